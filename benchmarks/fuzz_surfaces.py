"""The fuzzer of every input surface (``tests/fuzzing``) at a large budget: cases per surface,
counted as clean / traceback / silent / wrong / unclear, with the first few non-clean cases.

The test suite runs the same surfaces at 40 cases each; this is the run issue 30's "done when"
is judged by. Exit status 1 if any case is outside *clean*.

Run: SIMEVAL_DATA_DIR=../shared/data python benchmarks/fuzz_surfaces.py [-n 1000] [--seed 20261125]
     [--surface NAME ...]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fuzzing.harness import fuzz, table
from fuzzing.surfaces import all_surfaces


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--budget", type=int, default=1000, help="cases per surface")
    parser.add_argument("--seed", type=int, default=20261125)
    parser.add_argument("--surface", action="append", help="only these surfaces (repeatable)")
    args = parser.parse_args()
    os.environ.setdefault("SIMEVAL_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    surfaces = [s for s in all_surfaces() if not args.surface or s.name in args.surface]
    tallies = []
    for surface in surfaces:
        start = time.perf_counter()
        tally = fuzz(surface, args.budget, args.seed)
        tallies.append(tally)
        print(f"{surface.name}: {args.budget} cases in {time.perf_counter() - start:.1f} s",
              file=sys.stderr)  # fmt: skip
        for bucket, label, why in tally.examples:
            print(f"  [{bucket}] {label}: {why[:800]}", file=sys.stderr)
    print(table(tallies))
    return 1 if any(t.bad for t in tallies) else 0


if __name__ == "__main__":
    sys.exit(main())
