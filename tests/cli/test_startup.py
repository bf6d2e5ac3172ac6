"""``simeval --help`` answers without loading the numeric stack: numpy, scipy and the rest
are imported by the commands that compute, never by the command line's start (issue 35:
startup ≤ 0.3 s; ``benchmarks/cli_startup.py`` measures it)."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("numpy", "scipy", "pandas", "sklearn", "torch", "sqlalchemy", "fastapi", "httpx")

PROBE = """
import sys
sys.argv = ["simeval", *sys.argv[1:]]
from simeval.cli import main
try:
    main()
except SystemExit:
    pass
print("LOADED", *sorted(m for m in {heavy!r} if m in sys.modules))
"""


def loaded_by(*args: str) -> list[str]:
    """The heavy modules in memory after ``simeval ARGS`` ran in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY), *args],
        capture_output=True,
        text=True,
        check=True,
    )
    line = next(x for x in done.stdout.splitlines() if x.startswith("LOADED"))
    return line.split()[1:]


def test_help_loads_no_numeric_library() -> None:
    assert loaded_by("--help") == []


def test_a_group_help_loads_no_numeric_library() -> None:
    for group in ("score", "serve", "leaderboard", "train"):
        assert loaded_by(group, "--help") == [], group


def test_the_probe_sees_an_import() -> None:
    """The probe itself works: a command that computes does load numpy."""
    assert "numpy" in loaded_by("benchmarks")
