"""Pools of worker processes the server starts (scoring, rank tiers): started afresh (spawn:
nothing of the server's threads is copied), at a lower priority than the server (:data:`NICE`),
and ending with the server however it ends."""

from __future__ import annotations

import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor

# how much nicer than the server its workers run: on a machine whose cores the scorers fill,
# the server's one process (which receives uploads and answers every reader) is served first,
# and scoring takes the rest. At 10,000 stored runs with 20 teams uploading and a reader in a
# loop, the JSON board's p95 was 387 ms with workers at the server's priority
# (``benchmarks/serve_throughput.py``)
NICE = 5


def start_worker(nice: int = NICE) -> None:
    """A worker's start: ``nice`` steps below the server's priority, then
    :func:`exit_with_parent`."""
    os.nice(nice)
    exit_with_parent()


def exit_with_parent() -> None:
    """In a worker: exit when the server's process ends, however it ends (a killed server
    closes no pipe: each worker holds both ends of its job queue)."""
    parent = multiprocessing.parent_process()
    if parent is None:  # pragma: no cover  (only ever a pool's initializer)
        return

    def watch() -> None:
        parent.join()
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def spawn_pool(processes: int) -> ProcessPoolExecutor:
    """A pool of ``processes`` fresh worker processes, :data:`NICE` below the server's
    priority, that end with the server."""
    context = multiprocessing.get_context("spawn")
    return ProcessPoolExecutor(processes, mp_context=context, initializer=start_worker)
