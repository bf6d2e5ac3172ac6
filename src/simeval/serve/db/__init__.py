"""Engines, sessions and migrations.

The default database is SQLite in the server's folder (``sqlite:///FOLDER/serve.db``); any
SQLAlchemy URL works (``postgresql://…`` runs on psycopg). Nothing here is dialect-specific
except SQLite's connection settings:

- WAL journal (readers never wait for the writer) and a 30 s busy timeout;
- every transaction starts with ``BEGIN IMMEDIATE``, taking the write lock at once: two
  uploads counting runs and then inserting can otherwise both read, and the second writer fails
  with "database is locked" instead of waiting its turn. Transactions are kept short (scoring
  happens outside them), so taking the lock early costs little. A session from
  :meth:`Database.reading` only reads: it begins a plain (deferred) transaction, which never
  waits for a writer.

The run limit itself does not depend on the lock: the unique (team, phase, target, run)
constraint refuses a second run with the same number on any dialect.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

MIGRATIONS = Path(__file__).parent / "migrations"
DB_FILE = "serve.db"
READ_ONLY = "simeval_read_only"  # the execution option of Database.reading's connections


def default_url(folder: str | Path) -> str:
    """The SQLite database of a server folder."""
    return f"sqlite:///{Path(folder).resolve() / DB_FILE}"


def driver_url(url: str) -> str:
    """``url`` with its driver named: ``postgresql://`` is driven by psycopg 3."""
    if url.startswith("postgresql://"):
        return "postgresql+psycopg://" + url.removeprefix("postgresql://")
    return url


def make_engine(url: str, busy_timeout: float = 30) -> Engine:
    """An engine for ``url`` (:func:`driver_url`). SQLite waits up to ``busy_timeout``
    seconds for a lock before it fails (the server then answers 503)."""
    url = driver_url(url)
    if not url.startswith("sqlite"):
        return create_engine(url, pool_pre_ping=True)
    engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": busy_timeout})

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, record: Any) -> None:
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves (below)
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout * 1000)}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        reading = connection.get_execution_options().get(READ_ONLY)
        connection.exec_driver_sql("BEGIN" if reading else "BEGIN IMMEDIATE")

    return engine


def _config() -> Any:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


@cache
def newest_revision() -> str | None:
    """The head of the migrations shipped with this simeval (read once per process: loading
    the scripts costs more than the rest of opening a database)."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(_config()).get_current_head()


def upgrade(engine: Engine) -> None:
    """Bring the schema to the newest migration (a new database gets every one); a database
    already at the newest is left as it is, without loading the migration scripts."""
    from alembic import command
    from alembic.runtime.migration import MigrationContext

    with engine.begin() as connection:
        current = MigrationContext.configure(connection).get_current_revision()
        if current is not None and current == newest_revision():
            return
        config = _config()
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


class Database:
    """An engine with its migrations applied and a session factory."""

    def __init__(self, url: str, busy_timeout: float = 30) -> None:
        self.url = url
        self.engine = make_engine(url, busy_timeout)
        upgrade(self.engine)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        reader = self.engine.execution_options(**{READ_ONLY: True})
        self._readers = sessionmaker(reader, expire_on_commit=False)

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session whose transaction commits on success and rolls back on error."""
        with self._sessions() as s, s.begin():
            yield s

    @contextmanager
    def reading(self) -> Iterator[Session]:
        """A session that only reads (on SQLite it does not wait for the write lock)."""
        with self._readers() as s, s.begin():
            yield s

    def dispose(self) -> None:
        self.engine.dispose()
