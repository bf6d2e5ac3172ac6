"""Shared by the dask_*.py benchmarks: a job timed in this process and on a two-worker
``distributed.LocalCluster``, with each worker's peak memory and the bytes workers sent each
other.

Peak memory is each worker process's ``ru_maxrss`` (its own high-water mark: the workers are
started fresh, not forked). Bytes between workers are the workers' ``transfer_outgoing_bytes_total``
(data one worker fetched from another); what the client scattered to them or gathered back is
reported apart, as the scheduler counts it.
"""

from __future__ import annotations

import resource
import time
from collections.abc import Callable
from typing import Any


def _peak_kib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _sent(dask_worker: Any) -> int:  # client.run passes the worker by this name
    return int(dask_worker.transfer_outgoing_bytes_total)


def compare(name: str, job: Callable[[], Any], same: Callable[[Any, Any], Any]) -> None:
    """Run ``job`` single-process, then on a 2-worker LocalCluster; print both and whether the
    results are the same."""
    import distributed

    from simeval import engine

    start = time.perf_counter()
    single = job()
    single_s = time.perf_counter() - start
    single_peak = _peak_kib() / 1024
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        client.wait_for_workers(2)
        start = time.perf_counter()
        with engine.using(engine.Engine("processes", client)):
            spread = job()
        spread_s = time.perf_counter() - start
        peaks = client.run(_peak_kib)
        sent = sum(client.run(_sent).values())
    print(f"{name}:")
    print(f"  one process        : {single_s:7.1f} s, peak {single_peak:,.0f} MiB")
    print(
        f"  2-worker cluster   : {spread_s:7.1f} s ({spread_s / single_s:.2f}x the one process), "
        f"worker peaks {', '.join(f'{v / 1024:,.0f}' for v in peaks.values())} MiB, "
        f"{sent / 2**20:,.1f} MiB sent between workers"
    )
    print(f"  same result        : {same(single, spread)}")
