"""Where work runs: in this process, or partitioned jobs on Dask — one switch, the same code on a
laptop and on a cluster.

``--scheduler`` (or ``SIMEVAL_SCHEDULER``) names where the partitioned jobs run:

- ``sync``: Dask's synchronous scheduler, in this process (the same graphs, for debugging and
  for tests of the graphs themselves);
- ``processes``: a ``distributed.LocalCluster`` of one single-threaded worker process per CPU,
  started for the command and closed after it;
- ``tcp://HOST:PORT``: an existing Dask scheduler (``dask scheduler`` and ``dask worker``
  started by the user); the files a job reads must be at the same path on every worker.

Without it nothing here is used and every command runs as it always has. Only the commands
that compute take it (the cli's ``computing`` commands); the others ignore it, so a stale
``SIMEVAL_SCHEDULER`` never stops ``simeval results``. A ``tcp://`` address is probed with a
timeout before Dask connects (:mod:`simeval.engine.probe`). The jobs that use it
are co-occurrence counting (``simeval train ppmi|svd``), encoding texts with a sentence
encoder, the linking top-k search, and the report's bootstrap replicates. Counts and bootstrap
replicates are identical to the single-process path's; embeddings and linking scores are
equal up to float rounding, which can depend on the number of BLAS or torch threads a worker
runs (see their tests and docs/engine.md).

A job asks :func:`active` for the current :class:`Engine` and builds a Dask graph: large
inputs every task needs go through :meth:`Engine.share` (scattered once to every worker with
``distributed``), and :meth:`Engine.compute` runs the graph. Dask itself is imported only
here and only when a scheduler is given (``pip install 'simeval[dask]'``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from simeval.errors import InputError

ENV = "SIMEVAL_SCHEDULER"
KINDS = ("sync", "processes", "tcp://HOST:PORT")

_current: ContextVar[Engine | None] = ContextVar("simeval_engine", default=None)


@dataclass
class Engine:
    """Where partitioned jobs run: ``spec`` as given, and a ``distributed`` client (None for
    the synchronous scheduler)."""

    spec: str
    client: Any | None = None
    memo: dict = field(default_factory=dict)  # shared parts by key (see share_parts)

    def share(self, value: Any) -> Any:
        """``value`` as a task argument every task may read: scattered once to every worker
        (a future) with ``distributed``; itself in this process."""
        if self.client is None:
            return value
        return self.client.scatter(value, broadcast=True, hash=False)

    def share_parts(self, key: Any, parts: list[Any]) -> list[Any]:
        """``parts`` spread over the workers (each to one; sent directly, not inside the task
        graph), kept under ``key`` (unless None) for later jobs of this engine that need the
        same parts; themselves in this process."""
        if self.client is None:
            return parts
        if key is None:
            return self.client.scatter(parts, hash=False)
        if key not in self.memo:
            self.memo[key] = self.client.scatter(parts, hash=False)
        return self.memo[key]

    def compute(self, *graphs: Any) -> tuple:
        """Run Dask collections or delayed values; results in order."""
        import dask

        return dask.compute(*graphs, scheduler=self.client if self.client else "sync")

    def map(self, fn: Callable[..., Any], items: Sequence[Any], *shared: Any) -> list[Any]:
        """``[fn(item, *shared) for item in items]`` as one task per item (``shared``: values
        from :meth:`share`)."""
        import dask

        task = dask.delayed(fn, pure=False)
        return list(self.compute(*[task(item, *shared) for item in items]))

    @property
    def workers(self) -> int:
        if self.client is None:
            return 1
        return max(1, len(self.client.scheduler_info().get("workers", {})))


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
        lazy.made = _start(lazy.spec, lazy.workers, lazy.stack)
    return lazy.made


TCP = re.compile(r"tcp://(\[[0-9A-Fa-f:.]+\]|[^\s:/\[\]]+):\d{1,5}")
WAIT_FOR_WORKERS = 60  # seconds a job waits for a scheduler's first worker


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


def _start(spec: str, workers: int | None, stack: ExitStack) -> Engine:
    """Connect to (or start) the scheduler; what must be closed goes on ``stack``."""
    try:
        import dask  # noqa: F401
        import distributed
    except ImportError:
        raise InputError(
            None, None, "--scheduler needs Dask: pip install 'simeval[dask]' (dask, distributed)"
        ) from None
    if spec == "sync":
        return Engine(spec)
    if spec == "processes":
        cluster = stack.enter_context(
            distributed.LocalCluster(
                n_workers=workers or cpus(),
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
            )
        )
        return Engine(spec, stack.enter_context(distributed.Client(cluster)))
    from simeval.engine.probe import check_scheduler

    check_scheduler(spec)  # distributed would trust junk bytes as a message length
    try:
        client = distributed.Client(spec, timeout="10s")
    except OSError as exc:
        raise InputError(None, None, f"no Dask scheduler at {spec}: {exc}") from None
    stack.callback(client.close)
    try:
        client.wait_for_workers(1, timeout=WAIT_FOR_WORKERS)
    except TimeoutError:
        raise InputError(
            None,
            None,
            f"the Dask scheduler at {spec} has had no worker for {WAIT_FOR_WORKERS} s; "
            f"start one: dask worker {spec}",
        ) from None
    return Engine(spec, client)


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
