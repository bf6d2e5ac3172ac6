"""Pools of worker processes the server starts (scoring, rank tiers): started afresh (spawn:
nothing of the server's threads is copied) and ending with the server however it ends."""

from __future__ import annotations

import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor


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
    """A pool of ``processes`` fresh worker processes that end with the server."""
    context = multiprocessing.get_context("spawn")
    return ProcessPoolExecutor(processes, mp_context=context, initializer=exit_with_parent)
