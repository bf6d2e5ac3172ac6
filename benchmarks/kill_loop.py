"""Kill ``simeval evaluate`` with SIGKILL at random moments, then count what it left behind in
its results folder before and after the folder's next open (``simeval results``).

One evaluation (overlap on mc30, rg65 and sts12: 8 records, 8 items files) is run to the end
first, to time it; then N evaluations into the same folder, each killed at a moment drawn
(seeded) between 40% and 100% of that time, where the records and items are written. Counted:

- partials: temporaries (``.*.partial``) anywhere in the folder;
- orphans: items files that no record of ``results.jsonl`` names;
- broken: records whose items file is missing or unreadable;

before the next open, i.e. what a kill leaves, and after it (the store cleans on open: 0 is
the goal), with the records read back.

Run: SIMEVAL_DATA_DIR=../shared/data python benchmarks/kill_loop.py [-n 100] [--seed 30]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

BENCHMARKS = ("mc30", "rg65", "sts12")


def evaluate_command(folder: Path) -> list[str]:
    """``simeval evaluate overlap`` on :data:`BENCHMARKS`, appending to ``folder``."""
    bench = [a for b in BENCHMARKS for a in ("-b", b)]
    run = "from simeval.cli import main; main()"
    return [sys.executable, "-c", run, "evaluate", "overlap", *bench, "--results", str(folder)]


def kill_loop(folder: Path, kills: int, seed: int) -> tuple[float, int]:
    """One full evaluation into ``folder``, then ``kills`` evaluations each killed (SIGKILL)
    at a seeded random moment. Returns the full run's seconds and how many runs finished
    before their kill came."""
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    start = time.perf_counter()
    subprocess.run(evaluate_command(folder), check=True, **quiet)
    whole = time.perf_counter() - start
    rng = random.Random(seed)
    finished = 0
    for _ in range(kills):
        child = subprocess.Popen(evaluate_command(folder), **quiet)
        try:
            child.wait(timeout=rng.uniform(0.4, 1.0) * whole)
            finished += 1
        except subprocess.TimeoutExpired:
            os.kill(child.pid, signal.SIGKILL)
            child.wait()
    return whole, finished


@dataclass
class Left:
    """What a results folder holds beyond its records and their items."""

    records: int
    partials: int
    orphans: int
    broken: int


def count(folder: Path) -> Left:
    """Count the folder's records, temporaries, orphan items files and records whose items
    file is missing or unreadable (read with gzip and json here, not through the store)."""
    import gzip

    lines = (folder / "results.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    named = {r["items_file"] for r in records if r.get("items_file")}
    broken = 0
    for name in named:
        try:
            with gzip.open(folder / name, "rt", encoding="utf-8") as f:
                f.read()
        except (OSError, EOFError):
            broken += 1
    partials = [p for p in folder.rglob("*") if p.name.endswith(".partial")]
    items = {f"items/{p.name}" for p in (folder / "items").iterdir() if p.name.endswith(".gz")}
    return Left(len(records), len(partials), len(items - named), broken)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", "--kills", type=int, default=100)
    ap.add_argument("--seed", type=int, default=30)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d) / "results"
        whole, finished = kill_loop(folder, args.kills, args.seed)
        before = count(folder)
        opened = subprocess.run(
            [sys.executable, "-c", "from simeval.cli import main; main()", "results", str(folder)],
            capture_output=True,
            text=True,
        )
        after = count(folder)
    print(
        f"{args.kills} kills (seed {args.seed}) of a {whole:.2f} s evaluation, "
        f"{finished} finished before their kill"
    )
    print(f"{'':24}{'records':>9}{'partials':>10}{'orphans':>9}{'broken':>8}")
    for name, left in (("left by the kills", before), ("after the next open", after)):
        print(f"{name:24}{left.records:9}{left.partials:10}{left.orphans:9}{left.broken:8}")
    cleaned = (before.partials + before.orphans) - (after.partials + after.orphans)
    print(
        f"`simeval results` exit {opened.returncode}; the open removed {cleaned} of "
        f"{before.partials + before.orphans} leftovers"
    )


if __name__ == "__main__":
    main()
