"""The linking top-5 search (dictionary ranker's TF-IDF rows, ``top_k_sparse``) of N x N
synthetic comparable documents in one process and on a two-worker Dask LocalCluster
(``_dask.py``), in the same run: time, peak memory per worker, bytes moved between workers,
and whether the top 5 (documents, order, scores) are identical.

Query blocks are tasks; the document side is scattered once to every worker. Per-block cost =
the cluster's time / blocks.

Run: python benchmarks/dask_linking.py [--docs 30000 --memory-mib 64]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np

from _dask import compare


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=30_000)
    ap.add_argument("--memory-mib", type=int, default=64, help="score block budget")
    args = ap.parse_args()

    from simeval.datasets.synthetic import synthetic_collection
    from simeval.measures import create_measure
    from simeval.measures.search import top_k_sparse

    coll = synthetic_collection(args.docs, seed=0)
    with tempfile.TemporaryDirectory() as tmp:
        dict_path = Path(tmp) / "dict.tsv"
        dict_path.write_text("".join(f"{x}\t{e}\n" for x, e in coll.dictionary))
        ranker = create_measure(f"dictionary:dict={dict_path},format=tsv,lemmas=false")
        q, d = ranker.vectors(coll.queries, coll.corpus, "xx")  # type: ignore[attr-defined]
    memory = args.memory_mib << 20
    blocks = -(-args.docs // max(1, memory // (4 * args.docs)))
    print(f"{args.docs:,} x {args.docs:,} documents, {q.shape[1]:,} terms; {blocks} query blocks")

    def same(a, b) -> str:  # the float32 product's rounding depends on BLAS's threads
        gap = float(np.abs(a.score - b.score).max())
        rows = int((a.index != b.index).any(axis=1).sum())
        return f"top-5 documents differ for {rows} queries; largest score difference {gap:.1e}"

    compare("linking top-5", lambda: top_k_sparse(q, d, 5, memory=memory), same)


if __name__ == "__main__":
    main()
