"""Time ``simeval report`` (B = 1000) over 3 systems x 15 benchmarks, and its bootstraps against
the per-replicate path, in the same run.

Evaluates random:seed=1, overlap and orthographic:kind=prefix on russe, sts12 and words (15
benchmarks) into a temporary results folder, then measures:

- the whole ``simeval report`` process, with the default jobs (one per CPU) and with -j 1:
  its wall time against the goal (3 s) and its CPU time (user + system, all its processes);
- in this process, every benchmark's and system's bootstrap intervals (all metrics) by the
  vectorised path (``ItemMetrics.weighted``: blocks of replicates from row multiplicities) and
  by the reference path (the metric called on each replicate's rows, as simeval did before),
  and the largest difference between their interval bounds.

Run: SIMEVAL_DATA_DIR=../shared/data python benchmarks/report_speed.py [-B 1000]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SYSTEMS = ("random:seed=1", "overlap", "orthographic:kind=prefix")
GOAL = 3.0  # seconds for the whole report at B = 1000 (issue 48, P6)


def timed(command: list[str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of ``command`` run to its end: on a shared
    machine the CPU time is the steadier of the two."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-B", "--replicates", type=int, default=1000)
    args = ap.parse_args()

    from simeval.api import evaluate, save_results
    from simeval.kinds.rows import ItemMetrics
    from simeval.metrics.stats import Resampling, bootstrap_intervals
    from simeval.report.collect import load_grid

    simeval = str(Path(sys.executable).with_name("simeval"))
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d) / "results"
        for spec in SYSTEMS:
            save_results(folder, evaluate(spec, "russe", "sts12", "words"))
        grid = load_grid(folder)
        print(
            f"{len(grid.systems)} systems x {len(grid.benchmarks)} benchmarks, "
            f"B = {args.replicates}"
        )
        page = str(Path(d) / "report.html")
        report = [simeval, "report", str(folder), "--html", page, "-B", str(args.replicates)]
        whole, whole_cpu = timed(report)
        single, single_cpu = timed([*report, "-j", "1"])

        fast_s = slow_s = 0.0
        worst = 0.0
        for entry in grid.entries.values():
            metric = ItemMetrics(entry.task, entry.items())
            start = time.perf_counter()
            how = Resampling(args.replicates, 0).of(metric)
            fast = bootstrap_intervals(metric, metric.n, how)
            fast_s += time.perf_counter() - start
            start = time.perf_counter()
            slow = bootstrap_intervals(lambda rows, m=metric: m(rows), metric.n, how)
            slow_s += time.perf_counter() - start
            for k, ci in slow.items():
                for a, b in ((ci.low, fast[k].low), (ci.high, fast[k].high)):
                    if a == a or b == b:  # NaN on both sides: no interval either way
                        worst = max(worst, abs(a - b))
    met = "met" if whole <= GOAL else "not met"
    print(
        f"simeval report (one job per CPU): {whole:6.1f} s (goal <= {GOAL:g} s: {met}), "
        f"CPU {whole_cpu:.1f} s"
    )
    print(
        f"simeval report -j 1             : {single:6.1f} s (goal <= {GOAL:g} s), "
        f"CPU {single_cpu:.1f} s"
    )
    print(
        f"bootstrap intervals of every result: vectorised {fast_s:.1f} s, per replicate "
        f"{slow_s:.1f} s, ratio {slow_s / fast_s:.1f}x; largest bound difference {worst:.1e}"
    )


if __name__ == "__main__":
    main()
