"""Link 100,000 x 100,000 synthetic comparable documents top-5 with the dictionary ranker.

BUCC 2015 had up to ~150,000 source articles per language. This script builds a synthetic
comparable collection (``simeval.datasets.synthetic``: Zipfian vocabulary, synthetic dictionary,
X documents that keep 25% of their English counterpart's words), then in the same run:

1. simeval's path: tokenize, translate through the dictionary, TF-IDF both sides, then
   ``simeval.measures.search.top_k_sparse``: in blocks of queries, the frequent terms'
   product by BLAS plus the rest's sparse product, top 5 per query; success@5;
2. the named alternative, brute force on a random sample of queries: the sample's sparse
   product with every document, made dense and fully sorted per query (``argsort``),
   success@5 — and the same sample's top 5 from step 1. Both are exact, so they must agree
   query by query; the brute force time is extrapolated to all queries for the ratio.

Prints wall time per step, peak resident memory (VmHWM) and the ratio. Goal: at most 10
minutes on 2 cores, same success@5 as exact. Run: python benchmarks/linking_scale.py
(smaller: --docs 20000).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from simeval.datasets.synthetic import synthetic_collection
from simeval.measures import create_measure
from simeval.measures.search import dense_terms, top_k_sparse

# top_k_sparse's score-block budget, passed to it and to dense_terms so the split printed is
# the one the search used
MEMORY = 256 << 20


def peak_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--sample", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    t0 = time.perf_counter()
    coll = synthetic_collection(args.docs, seed=args.seed)
    t_gen = time.perf_counter() - t0
    print(f"generated {args.docs:,} x {args.docs:,} documents in {t_gen:.1f} s")

    with tempfile.TemporaryDirectory() as tmp:
        dict_path = Path(tmp) / "dict.tsv"
        dict_path.write_text("".join(f"{x}\t{e}\n" for x, e in coll.dictionary))
        ranker = create_measure(f"dictionary:dict={dict_path},format=tsv,lemmas=false")
        t0 = time.perf_counter()
        q, d = ranker.vectors(coll.queries, coll.corpus, "xx")  # type: ignore[attr-defined]
        t_vec = time.perf_counter() - t0
        print(f"tokenize + translate + TF-IDF: {t_vec:.1f} s ({q.shape[1]:,} terms)")

        t0 = time.perf_counter()
        top = top_k_sparse(q, d, 5, memory=MEMORY)
        t_top = time.perf_counter() - t0
        gold = np.arange(args.docs)
        hit = (top.index == gold[:, None]).any(axis=1)
        n_dense = len(dense_terms(q.tocsr(), d.tocsr(), MEMORY))
        print(
            f"blocked top-5 ({n_dense} most frequent terms by BLAS, the rest sparse), "
            f"all {args.docs:,} queries: {t_top:.1f} s"
        )
        print(f"success@5 (all queries): {hit.mean():.4f}")

        rng = np.random.default_rng(args.seed + 1)
        sample = np.sort(rng.choice(args.docs, size=min(args.sample, args.docs), replace=False))
        t0 = time.perf_counter()
        scores = (q[sample] @ d.T).toarray()
        order = np.argsort(-scores, axis=1, kind="stable")[:, :5]
        t_brute = time.perf_counter() - t0
        exact_hit = (order == sample[:, None]).any(axis=1)
        same_top = float(np.mean((order == top.index[sample]).all(axis=1)))
        score_gap = float(np.abs(np.take_along_axis(scores, order, 1) - top.score[sample]).max())
        extrapolated = t_brute * args.docs / len(sample)
        print(
            f"brute force on {len(sample):,} sampled queries: {t_brute:.1f} s "
            f"(~{extrapolated:.0f} s for all)"
        )
        print(
            f"success@5 on the sample: blocked {hit[sample].mean():.4f}, "
            f"brute force {exact_hit.mean():.4f}; top 5 identical (same documents, same order) "
            f"for {same_top:.2%} of queries, largest score difference {score_gap:.1e}"
        )
    total = t_vec + t_top
    print(f"simeval total (vectors + search): {total:.1f} s = {total / 60:.1f} min")
    print(f"ratio, brute force (extrapolated) / blocked search: {extrapolated / t_top:.2f}")
    print(f"peak resident memory: {peak_mib():,.0f} MiB")


if __name__ == "__main__":
    main()
