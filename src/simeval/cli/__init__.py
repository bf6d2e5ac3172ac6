"""The ``simeval`` command line: a thin layer over the Python API, one module per command group.

Exit status: 0 on success, 2 when input or data is invalid (the message names file and line).
"""

from __future__ import annotations

import sys
from typing import Any


def main() -> None:
    _keep_freed_memory()
    from simeval.cli.lean import answered

    if not answered(sys.argv[1:]):  # `score trec` answers without Typer (simeval.cli.lean)
        _app()()


def _app() -> Any:
    """The Typer application with every command group registered."""
    from simeval.cli import (  # noqa: F401  (registers them)
        annotation,
        build,
        data,
        reports,
        run,
        score,
        serve,
    )
    from simeval.cli.common import app

    return app


def __getattr__(name: str) -> Any:
    if name == "app":  # built on first use, so the lean path never imports Typer
        return _app()
    raise AttributeError(f"module 'simeval.cli' has no attribute {name!r}")


def _keep_freed_memory() -> None:
    """Let glibc keep up to 128 MiB of freed heap, and serve blocks up to 32 MiB from it.

    Bootstraps and encoders allocate and free arrays of a few MiB thousands of times; by
    default glibc hands such memory back to the kernel and page-faults it in again each time,
    which cost a third of ``simeval report``'s run time in system time (measured: 8 s of 31 s).
    Peak memory is unchanged. A no-op off glibc. The process's own symbols are searched
    (``CDLL(None)``, where glibc is loaded): ``ctypes.util.find_library`` runs ldconfig and a
    compiler to find libc, 20 ms of CPU at every start."""
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt(-3, 32 << 20)  # M_MMAP_THRESHOLD
    mallopt(-1, 128 << 20)  # M_TRIM_THRESHOLD


__all__ = ["app", "main"]
