"""Sentence encoding (``encoder``, all-MiniLM-L6-v2, torch, no cache) of STS-2012's distinct
sentences in one process and on a two-worker Dask LocalCluster (``_dask.py``), in the same run:
time, peak memory per worker, bytes moved between workers, and how far the embeddings differ.

Groups of length-sorted batches are tasks; the measure (settings, not the model) is scattered
once and each worker loads the model on its first task. The one process uses torch's threads
(one per CPU), each worker one thread: on one machine the cluster buys no speed, it shows what
a task costs and that nothing but the batches and their embeddings travels.

Run: SIMEVAL_DATA_DIR=../shared/data HF_HUB_OFFLINE=1 python benchmarks/dask_encoding.py
     [--texts N]  (the first N sentences only)
"""

from __future__ import annotations

import argparse

import numpy as np

from _dask import compare


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--texts", type=int, default=0, help="encode only this many (0: all)")
    args = ap.parse_args()

    from simeval.api import load_targets
    from simeval.measures import create_measure

    texts = sorted(
        {t for target in load_targets(["sts12"]) for r in target.requests() for t in r.texts()}
    )
    if args.texts:
        texts = texts[: args.texts]
    print(f"sts12: {len(texts):,} distinct sentences, batches of 64")

    def job() -> np.ndarray:  # a fresh measure: the model is loaded inside the timing
        return create_measure("encoder:cache=false").encode_all(texts)  # type: ignore[attr-defined]

    def same(a: np.ndarray, b: np.ndarray) -> str:  # torch's sums depend on its thread count
        a, b = a.astype(np.float64), b.astype(np.float64)
        cos = np.einsum("ij,ij->i", a, b) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
        return (
            f"largest element difference {float(np.abs(a - b).max()):.1e}, "
            f"smallest cosine {float(cos.min()):.7f}"
        )

    compare("encoding", job, same)


if __name__ == "__main__":
    main()
