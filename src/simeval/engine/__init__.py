"""Where work runs: in this process, or partitioned jobs on Dask — one switch, the same code on a
laptop and on a cluster.

``--scheduler`` (or ``SIMEVAL_SCHEDULER``) names where the partitioned jobs run:

- ``sync``: Dask's synchronous scheduler, in this process (the same graphs, for debugging and
  for tests of the graphs themselves);
- ``processes``: a ``distributed.LocalCluster`` of one single-threaded worker process per CPU,
  started for the command and closed after it;
- ``tcp://HOST:PORT``: an existing Dask scheduler (``dask scheduler`` and ``dask worker``
  started by the user); the files a job reads must be at the same path on every worker.

Without it nothing here is used and every command runs as it always has: :func:`active` is
None and each job takes its single-process path. Only the commands that compute take it (the
cli's ``computing`` commands); the others ignore it, so a stale ``SIMEVAL_SCHEDULER`` never
stops ``simeval results``. The jobs that use it are co-occurrence counting (``simeval train
ppmi|svd``), encoding texts with a sentence encoder, the linking top-k search, and the report's
bootstrap replicates. Counts and bootstrap replicates are identical to the single-process
path's; embeddings and linking scores are equal up to float rounding, which can depend on the
number of BLAS or torch threads a worker runs (see their tests and docs/engine.md).

This module holds the switch (parsing the spec, the engine of the running command); the Dask
engine itself, and starting or reaching its cluster, is :mod:`simeval.engine.dask`; probing a
``tcp://`` address before Dask connects is :mod:`simeval.engine.probe`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from simeval.engine.dask import Engine, start
from simeval.errors import InputError

__all__ = ["ENV", "KINDS", "Engine", "active", "cpus", "parse_spec", "scheduler", "using"]

ENV = "SIMEVAL_SCHEDULER"
KINDS = ("sync", "processes", "tcp://HOST:PORT")

_current: ContextVar[Engine | None] = ContextVar("simeval_engine", default=None)


def active() -> Engine | None:
    """The engine of the command being run, or None: the single-process paths. A command's
    engine is made when a job first asks (so a command with nothing to partition starts no
    cluster and needs no scheduler)."""
    made = _current.get()
    if made is not None:
        return made
    lazy = _lazy.get()
    if lazy is None:
        return None
    if lazy.made is None:
        lazy.made = start(lazy.spec, lazy.workers or cpus(), lazy.stack)
    return lazy.made


TCP = re.compile(r"tcp://(\[[0-9A-Fa-f:.]+\]|[^\s:/\[\]]+):\d{1,5}")


def parse_spec(spec: str | None) -> str | None:
    """The scheduler spec from ``--scheduler`` or the environment; a clear error if unknown."""
    spec = spec if spec is not None else os.environ.get(ENV) or None
    if spec is None or spec in ("sync", "processes") or TCP.fullmatch(spec):
        return spec
    raise InputError(
        None, None, f"--scheduler {spec!r}: expected sync, processes or tcp://HOST:PORT"
    )


@dataclass
class _Lazy:
    spec: str
    workers: int | None
    stack: ExitStack
    made: Engine | None = None


_lazy: ContextVar[_Lazy | None] = ContextVar("simeval_engine_spec", default=None)


@contextmanager
def scheduler(spec: str | None, workers: int | None = None) -> Iterator[None]:
    """Within the block, the engine for ``spec`` (see the module docstring) serves the jobs;
    it is made when :func:`active` is first asked, and closed (cluster and client) at the end.
    Nothing is imported when no scheduler is given."""
    spec = parse_spec(spec)
    if spec is None:
        yield
        return
    with ExitStack() as stack:
        token = _lazy.set(_Lazy(spec, workers, stack))
        try:
            yield
        finally:
            _lazy.reset(token)


@contextmanager
def using(e: Engine | None) -> Iterator[None]:
    """Make an existing engine (or none) active for the block (tests, the Python API)."""
    token = _current.set(e)
    try:
        yield
    finally:
        _current.reset(token)


def cpus() -> int:
    """The CPUs this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
