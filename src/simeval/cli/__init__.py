"""The ``simeval`` command line: a thin layer over the Python API, one module per command group.

Exit status: 0 on success, 2 when input or data is invalid (the message names file and line).
"""

from __future__ import annotations

from simeval.cli import (  # noqa: F401  (registers them)
    build,
    campaign,
    data,
    reports,
    run,
    score,
    serve,
)
from simeval.cli.common import app


def main() -> None:
    app()


__all__ = ["app", "main"]
