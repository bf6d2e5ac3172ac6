"""The ``simeval`` command line: a thin layer over the Python API, one module per command group.

Exit status: 0 on success, 2 when input or data is invalid (the message names file and line).
"""

from __future__ import annotations

from simeval.cli import build, campaign, data, reports, run, score  # noqa: F401  (registers them)
from simeval.cli.common import app


def main() -> None:
    app()


__all__ = ["app", "main"]
