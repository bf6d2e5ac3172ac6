"""The embedding cache: evaluate the offline encoder on sts12 twice with an empty cache.

The first run encodes every distinct sentence (4,964); the second finds them all in the
cache. Each run is a fresh ``simeval.evaluate("encoder", "sts12")`` call in this process (the
model load is part of the first run only when encoding is needed: the second never loads it).

Run: SIMEVAL_DATA_DIR=../shared/data python benchmarks/encoder_cache.py
(smaller: --benchmark mc30, which encodes MC-30's words)
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--benchmark", default="sts12", help="benchmark or suite (default sts12)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        os.environ["SIMEVAL_CACHE_DIR"] = cache
        from simeval.api import evaluate

        times, mains, encoded = [], [], []
        for _ in range(2):
            start = time.perf_counter()
            results = evaluate("encoder", args.benchmark)
            times.append(time.perf_counter() - start)
            mains.append(results[-1].score)
            encoded.append(results[-1].system["texts_encoded"])
        metric = results[-1].main_metric.upper()
    print(f"first run : {times[0]:6.1f} s  ({encoded[0]:,} texts encoded)  {metric} {mains[0]:.4f}")
    print(f"second run: {times[1]:6.1f} s  ({encoded[1]:,} texts encoded)  {metric} {mains[1]:.4f}")
    print(f"second run is {times[0] / times[1]:.0f}x faster; same numbers: {mains[0] == mains[1]}")


if __name__ == "__main__":
    main()
