"""Time the README's main job (after the install): four measures evaluated on russe, sts12 and
the English word benchmarks, ``simeval results`` and ``simeval report`` — first with an empty
embedding cache (what a fresh machine runs), then again with the cache filled.

With ``--before REV`` the same job also runs on the code of git revision REV (checked out in a
temporary worktree, put first on PYTHONPATH), in the same run, so the ratio compares like with
like on one machine at one time.

Run: SIMEVAL_DATA_DIR=../shared/data HF_HUB_OFFLINE=1 python benchmarks/main_job.py
     [--before bdd0416]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MEASURES = ("random:seed=1", "overlap", "orthographic:kind=prefix", "encoder")
REPO = Path(__file__).resolve().parents[1]
CLI = "from simeval.cli import main; main()"


def steps(results: Path, measures: tuple[str, ...] = MEASURES) -> list[tuple[str, list[str]]]:
    out = [
        (
            f"evaluate {m}",
            ["evaluate", m, "-s", "russe", "-s", "sts12", "-s", "words", "--results", str(results)],
        )
        for m in measures
    ]
    out.append(("results", ["results", str(results)]))
    out.append(("report", ["report", str(results), "--html", str(results / "report.html")]))
    return out


def job(src: Path, folder: Path, cache: Path, measures: tuple[str, ...]) -> dict[str, float]:
    """Wall seconds of each step of the main job run with the code in ``src``."""
    env = dict(os.environ, SIMEVAL_CACHE_DIR=str(cache), PYTHONPATH=str(src))
    times = {}
    for name, args in steps(folder, measures):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-c", CLI, *args],
            check=True,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        times[name] = time.perf_counter() - start
    return times


def both_runs(
    src: Path, work: Path, label: str, measures: tuple[str, ...]
) -> dict[str, dict[str, float]]:
    cache = work / f"cache-{label}"
    cache.mkdir()
    return {
        run: job(src, work / f"results-{label}-{run}", cache, measures)
        for run in ("first", "cached")
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", help="a git revision to time the same job on, for the ratio")
    ap.add_argument("--measures", nargs="+", default=list(MEASURES), help="(smaller runs)")
    args = ap.parse_args()
    measures = tuple(args.measures)
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)
        runs = {"now": both_runs(REPO / "src", work, "now", measures)}
        if args.before:
            tree = work / "before"
            subprocess.run(
                ["git", "-C", str(REPO), "worktree", "add", "--detach", str(tree), args.before],
                check=True,
                capture_output=True,
            )
            try:
                runs[args.before] = both_runs(tree / "src", work, "before", measures)
            finally:
                subprocess.run(
                    ["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)],
                    check=True,
                    capture_output=True,
                )
    names = [name for name, _ in steps(Path("x"), measures)]
    print(f"{'step':<36}" + "".join(f"{f'{c} {r}':>18}" for c in runs for r in ("first", "cached")))
    for name in [*names, "total"]:
        cells = []
        for c in runs:
            for r in ("first", "cached"):
                t = runs[c][r]
                cells.append(sum(t.values()) if name == "total" else t[name])
        print(f"{name:<36}" + "".join(f"{x:>17.1f}s" for x in cells))
    if args.before:
        for r in ("first", "cached"):
            now, before = sum(runs["now"][r].values()), sum(runs[args.before][r].values())
            print(f"{r} run: {before:.1f} s at {args.before}, {now:.1f} s now: {before / now:.1f}x")


if __name__ == "__main__":
    main()
