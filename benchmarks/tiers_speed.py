"""The time to compute a phase's rank tiers on the server (:mod:`simeval.serve.service.tiers`:
a paired bootstrap of B = 1000 over items, the greedy Holm tiers) against the time to build
its strict board from the same records (:func:`simeval.serve.service.board_table.board`), measured
in the same run on the same results.

The runs are ``--runs`` (default 100) predictions of one RUSSE-size target (default
``russe-rt``, 9,548 pairs, related pairs: average precision), the gold plus seeded noise of
spread-out levels (so some runs are within noise of each other and some far apart), scored
in memory by :func:`simeval.score` once, before the clocks start. The tiers run once (they
are computed once per board, in the background); the board is the median of ``--repeat``.

Run: SIMEVAL_DATA_DIR=../shared/data python benchmarks/tiers_speed.py [--runs 100]
"""

from __future__ import annotations

import argparse
import statistics
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--target", default="russe-rt")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    import numpy as np

    import simeval
    from simeval.report.collect import entry_of, grid_of
    from simeval.serve.service.board_table import board
    from simeval.serve.service.tiers import REPLICATES, tiered, tiers_of_grid

    bench = simeval.benchmark(args.target)
    gold = np.asarray(bench.gold, dtype=float)
    rng = np.random.default_rng(20261126)
    results = []
    for i in range(args.runs):
        spread = gold.std() * (0.2 + 3.0 * i / max(1, args.runs - 1))
        noise = rng.normal(0, spread, len(gold))
        (r,) = simeval.score(bench.target, (gold + noise).tolist(), system={"name": f"run {i}"})
        results.append(r)
    records = [r.to_dict() for r in results]
    print(f"{args.runs} runs scored on {args.target} ({len(gold):,} items)")

    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        table = board(records, prune=False)
        times.append(time.perf_counter() - start)
    strict = statistics.median(times)

    start, cpu = time.perf_counter(), time.process_time()
    found = tiers_of_grid(grid_of([entry_of(r) for r in results]), [args.target])
    tiers_time, tiers_cpu = time.perf_counter() - start, time.process_time() - cpu
    shown = tiered(table, found)
    levels = {row[-1] for row in shown.rows}
    print(f"strict board: {strict * 1000:,.1f} ms (median of {args.repeat})")
    tests = len(found[args.target].p_values)
    print(f"tiers (B = {REPLICATES}): {tiers_time:,.1f} s ({tiers_cpu:,.1f} s of CPU), "
          f"{len(levels)} tiers, {tests} paired tests")  # fmt: skip
    print(f"tiers / strict board: {tiers_time / strict:,.0f}×")


if __name__ == "__main__":
    main()
