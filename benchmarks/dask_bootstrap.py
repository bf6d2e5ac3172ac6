"""The report's bootstrap intervals (B = 1000, every metric) of 3 systems x 15 benchmarks in
one process and on a two-worker Dask LocalCluster (``_dask.py``), in the same run: time, peak
memory per worker, bytes moved between workers, and whether every replicate value is the same.

Replicate blocks are tasks (the draws are made once, in this process, as before); each
statistic is scattered once.

Run: SIMEVAL_DATA_DIR=../shared/data python benchmarks/dask_bootstrap.py [-B 1000]
"""

from __future__ import annotations

import argparse

import numpy as np

from _dask import compare

SYSTEMS = ("random:seed=1", "overlap", "orthographic:kind=prefix")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-B", "--replicates", type=int, default=1000)
    args = ap.parse_args()

    from simeval.api import evaluate
    from simeval.engine import active
    from simeval.kinds.rows import ItemMetrics
    from simeval.metrics import stats

    results = [r for s in SYSTEMS for r in evaluate(s, "russe", "sts12", "words")]
    metrics = [ItemMetrics(r.task, r.items) for r in results]
    print(f"{len(results)} results, B = {args.replicates}")

    def job() -> list[dict]:
        stats._REPLICATES.values.clear()  # no values from the other run
        on = active()  # the cluster while compare() times it there
        return [
            stats.bootstrap(m, m.n, stats.Resampling(args.replicates, 0).of(m).on(on))
            for m in metrics
        ]

    def same(a: list[dict], b: list[dict]) -> bool:
        return all(
            list(x) == list(y) and all(np.array_equal(x[k], y[k], equal_nan=True) for k in x)
            for x, y in zip(a, b, strict=True)
        )

    compare("bootstrap replicates", job, same)


if __name__ == "__main__":
    main()
