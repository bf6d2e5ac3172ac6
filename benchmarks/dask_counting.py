"""Co-occurrence counting (window 5, min count 20) of a tokenized corpus in one process and on a
two-worker Dask LocalCluster (``_dask.py``), in the same run: time, peak memory per worker, bytes
moved between workers, and whether the counts are identical.

The corpus is RusLit by default (its text, lowercased and split at white space, a line per
paragraph; 6 M tokens). Per-partition cost = the cluster's time / partitions.

Run: SIMEVAL_DATA_DIR=../shared/data python benchmarks/dask_counting.py [--corpus FILE.tar.xz]
     [--partition-mib 32]
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from _dask import compare


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    data = Path(os.environ.get("SIMEVAL_DATA_DIR", Path(__file__).parents[2] / "shared/data"))
    ap.add_argument("--corpus", type=Path, default=data / "corpora" / "ruslit.tar.xz")
    ap.add_argument("--partition-mib", type=int, default=32)
    args = ap.parse_args()

    from simeval.text.corpus import iter_documents
    from simeval.train import count

    with tempfile.TemporaryDirectory() as d:
        text = Path(d) / "corpus.txt"
        tokens = 0
        with open(text, "w", encoding="utf-8") as f:
            for doc in iter_documents(args.corpus):
                for line in doc.text.splitlines():
                    if words := line.lower().split():
                        f.write(" ".join(words) + "\n")
                        tokens += len(words)
        words = count.build_vocabulary(count.word_counts(text), 20)
        count.PARTITION_BYTES = args.partition_mib << 20
        parts = -(-text.stat().st_size // count.PARTITION_BYTES)
        print(
            f"{args.corpus.name}: {tokens:,} tokens, {text.stat().st_size / 2**20:.0f} MiB, "
            f"{len(words):,} words; {parts} partitions of {args.partition_mib} MiB"
        )
        compare(
            "counting",
            lambda: count.cooccurrence(text, words, words, 5, workers=1),
            lambda a, b: (a != b).nnz == 0,
        )


if __name__ == "__main__":
    main()
