"""How long ``simeval --help`` takes to answer, against the interpreter's own start
(``python -c pass``) and against importing the command line's two libraries (``python -c
"import typer, rich.console"``), measured in the same run: the median wall time of
``--repeat`` runs of each, interleaved so that a busy moment hits all three alike. Issue 35's
goal: ≤ 0.3 s.

Run: python benchmarks/cli_startup.py [--repeat 15]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time


def wall(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    simeval = shutil.which("simeval") or sys.exit("no simeval on PATH: pip install -e .")
    commands = {
        "simeval --help": [simeval, "--help"],
        "python -c pass": [sys.executable, "-c", "pass"],
        "import typer, rich": [sys.executable, "-c", "import typer, rich.console"],
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.repeat):
        for name, command in commands.items():
            times[name].append(wall(command))
    median = {name: statistics.median(t) for name, t in times.items()}
    for name, m in median.items():
        print(f"{name:<20} {m * 1000:7.0f} ms (median of {args.repeat})")
    own = median["simeval --help"]
    print(f"simeval --help: {own / median['python -c pass']:.1f}x the interpreter's start, "
          f"{own / median['import typer, rich']:.1f}x importing typer and rich; goal 300 ms: "
          f"{'met' if own <= 0.3 else 'not met'}")  # fmt: skip


if __name__ == "__main__":
    main()
