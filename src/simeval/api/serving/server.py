"""The server itself: its database and files opened (:func:`open_server`, the rule of which
action may make a missing folder), made, served and backed up."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from simeval.errors import InputError

__all__ = ["backup_server", "init_server", "open_server", "run_server"]


def open_server(folder: Path, db: str | None = None, make: bool = False) -> tuple[Any, Any]:
    """The server's database and storage folder (``db``: a database URL instead of
    FOLDER/serve.db), checked to be a pair (refused otherwise, with the database the folder
    belongs to named). Only ``make`` (a command that makes a server) makes a missing folder.
    The caller disposes of the database (``database.dispose()``)."""
    from simeval.serve import require_extra

    require_extra()
    from simeval.serve.db import default_url
    from simeval.serve.service.results import open_server as open_pair

    if not make and not folder.is_dir():
        raise InputError(
            folder, None, f"no server folder at {folder}: `simeval serve init {folder}` makes one"
        )
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return open_pair(db or default_url(folder), folder / "files")


@contextmanager
def opened(folder: Path, db: str | None, make: bool = False) -> Iterator[tuple[Any, Any]]:
    """:func:`open_server` for the length of one action, its database disposed after."""
    database, storage = open_server(folder, db, make)
    try:
        yield database, storage
    finally:
        database.dispose()


@contextmanager
def scoring_service(folder: Path, db: str | None) -> Iterator[Any]:
    """The server's service (:class:`simeval.serve.service.submit.Service`) for an action
    that scores stored files again, closed after."""
    from simeval.serve.service.submit import Service

    with opened(folder, db) as (database, storage):
        service = Service(database, storage, utc_now)
        try:
            yield service
        finally:
            service.close()


def utc_now() -> datetime:
    """Now, in UTC: the time every action is made and audited at."""
    return datetime.now(UTC)


def init_server(folder: Path, db: str | None = None) -> None:
    """Create (or migrate to the newest schema) the server's database and folders."""
    with opened(folder, db, make=True):
        pass


def run_server(
    folder: Path,
    db: str | None = None,
    host: str = "127.0.0.1",
    port: int = 8000,
    scorers: int = 0,
    trust_proxy: list[str] | None = None,
    rejected_per_day: int = 20,
    max_connections: int = 500,
    uploads_per_minute: float = 20,
    reads_per_minute: float = 120,
) -> None:
    """Serve the server of ``folder`` until stopped (:func:`simeval.serve.app.run`: the web
    pages and the API with uvicorn, ``scorers`` scoring processes besides its own)."""
    from simeval.serve.app import run

    run(
        folder,
        db,
        host,
        port,
        scorers,
        trust_proxy or [],
        rejected_per_day,
        max_connections,
        uploads_per_minute,
        reads_per_minute,
    )


def backup_server(folder: Path, to: Path, db: str | None = None) -> list[Path]:
    """Back up the server of ``folder``, running or not, into the new folder ``to`` (not
    inside ``folder``, checked before anything is opened or made); the paths written."""
    from simeval.serve.service.backup import backup, inside

    inside(to, folder)
    with opened(folder, db) as (database, storage):
        return backup(database, storage, to)
