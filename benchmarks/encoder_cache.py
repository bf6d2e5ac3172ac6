"""The embedding cache: evaluate the offline encoder on sts12 twice with an empty cache.

The first run encodes every distinct sentence (4,964); the second finds them all in the
cache. Each run is a fresh ``simeval.evaluate("encoder", "sts12")`` call in this process (the
model load is part of the first run only when encoding is needed: the second never loads it).

Run: SIMEVAL_DATA_DIR=../shared/data python benchmarks/encoder_cache.py
"""

from __future__ import annotations

import os
import tempfile
import time


def main() -> None:
    with tempfile.TemporaryDirectory() as cache:
        os.environ["SIMEVAL_CACHE_DIR"] = cache
        from simeval.api import evaluate

        times, alls, encoded = [], [], []
        for _ in range(2):
            start = time.perf_counter()
            results = evaluate("encoder", "sts12")
            times.append(time.perf_counter() - start)
            alls.append(results[-1].metrics["all"])
            encoded.append(results[-1].system["texts_encoded"])
    print(f"first run : {times[0]:6.1f} s  ({encoded[0]:,} texts encoded)  ALL {alls[0]:.4f}")
    print(f"second run: {times[1]:6.1f} s  ({encoded[1]:,} texts encoded)  ALL {alls[1]:.4f}")
    print(f"second run is {times[0] / times[1]:.0f}x faster; same numbers: {alls[0] == alls[1]}")


if __name__ == "__main__":
    main()
