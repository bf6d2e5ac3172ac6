"""What a command runs in: where records go when no folder is named (the user's own runs'
folder, ``SIMEVAL_RESULTS``), where data are found (``SIMEVAL_DATA_DIR``) and where work
runs (``--scheduler``, ``SIMEVAL_SCHEDULER``). Light to import: the command line reads its
defaults here at start."""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

from simeval.results.default_folder import DEFAULT_FOLDER, HOW_TO_CHANGE, RESULTS_ENV

if TYPE_CHECKING:
    from simeval.data.store import DataStore

__all__ = ["DEFAULT_FOLDER", "HOW_TO_CHANGE", "RESULTS_ENV", "data_store", "scheduler"]


def data_store(data_dir: Path | None = None) -> DataStore:
    """The data store of ``data_dir`` (None: ``SIMEVAL_DATA_DIR``, else the default mirror
    and cache), as every command reads data."""
    from simeval.data.store import DataStore

    return DataStore.from_env(data_dir)


def scheduler(spec: str | None) -> AbstractContextManager[None]:
    """Where partitioned jobs run while the context is open (:func:`simeval.engine.scheduler`):
    ``spec`` is sync, processes or tcp://HOST:PORT (a Dask scheduler); None reads
    ``SIMEVAL_SCHEDULER``, and without it the jobs run here."""
    from simeval.engine import scheduler as engine_scheduler

    return engine_scheduler(spec)
