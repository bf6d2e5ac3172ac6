"""The Dask engine: partitioned jobs on a Dask scheduler, in this process (``sync``), on a
``distributed.LocalCluster`` started for the command (``processes``), or on an existing
scheduler (``tcp://HOST:PORT``, probed first: :mod:`simeval.engine.probe`). Which one, and
when it is made, is decided by :mod:`simeval.engine`.

A job asks :func:`simeval.engine.active` for the current :class:`Engine` and builds a Dask
graph: large inputs every task needs go through :meth:`Engine.share` (scattered once to every
worker with ``distributed``), and :meth:`Engine.compute` runs the graph. Dask itself is imported
only inside these functions, when a scheduler is given (``pip install 'simeval[dask]'``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

from simeval.errors import InputError

WAIT_FOR_WORKERS = 60  # seconds a job waits for a scheduler's first worker


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


def start(spec: str, workers: int, stack: ExitStack) -> Engine:
    """Connect to (or start) the scheduler of a parsed ``spec``; ``workers``: the worker
    processes of a ``processes`` cluster. What must be closed goes on ``stack``."""
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
                n_workers=workers,
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
