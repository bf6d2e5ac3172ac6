"""One database, one storage folder, one server: the stamp and the folder lock.

A campaign's uploads live in the storage folder and their rows in the database; neither is any
use without the other, and a server that pairs a folder with the wrong database would take
every stored upload for a leftover. So each is stamped with the other's identity:

- the database holds one ``server`` row: its own random id (``db_id``) and the id of the
  folder it belongs to (``folder_id``, with the folder's path when stamped, for messages);
- the folder holds ``server.json``: its own id, the database's id and its URL (password
  hidden), for messages.

:func:`bind` checks them whenever a command opens a server (``serve run``, ``campaign``,
``publish``, ``export``, ``rotate-token``). A fresh pair (neither stamped, no uploads on
either side) is stamped then; so is a pair made before stamps existed, when its rows and its
files agree. Anything else is refused with a message that names the database the folder
belongs to, or the folder the database belongs to: nothing is moved, deleted or stamped,
and the database is not migrated (the stamps are read before any migration runs, so a start
on another application's database creates no table there).
Moving the folder, or restoring both from a backup, keeps the ids, so it still matches.

:class:`FolderLock` is an exclusive lock on ``server.lock`` in the folder (``flock``: the
kernel releases it when the process ends, however it ends). ``serve run`` holds it for its
whole life, so a second server on the same folder refuses to start instead of sweeping the
first one's uploads in flight.

:class:`DatabaseLock` is the same for the database, whatever the folder: ``DB_FILE.lock``
beside a SQLite file, or a PostgreSQL advisory lock held by a connection kept open (the
server releases it when its session ends, however the process ends). Two live servers on one
database would record one's uploads in the other's rows, with their files elsewhere.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout
from sqlalchemy import create_engine, exc, inspect, select, text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.pool import NullPool

from simeval.data.atomic import private_dir, write_atomic
from simeval.errors import InputError, SimevalError
from simeval.serve.db import Database, driver_url
from simeval.serve.db.models import ServerStamp, Submission, naive
from simeval.serve.db.storage import Storage

STAMP_FILE = "server.json"
LOCK_FILE = "server.lock"
STAMP_LOCK_FILE = "server.stamp.lock"
HOLDER_FILE = "server.lock.holder"  # who holds the lock (flock's file is truncated by openers)


class Mismatch(SimevalError):
    """The database and the storage folder do not belong together."""


class Busy(SimevalError):
    """Another server holds the folder's lock."""


def shown_url(url: str) -> str:
    """A database URL as messages show it: the password hidden."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # not a URL SQLAlchemy reads: shown as given, it holds no password
        return url


class FolderLock:
    """The exclusive lock of a storage folder (module docstring)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self._lock = FileLock(self.root / LOCK_FILE, mode=0o600, thread_local=False)

    def acquire(self) -> FolderLock:
        private_dir(self.root)
        try:
            self._lock.acquire(timeout=0)
        except Timeout:
            holder = self.root / HOLDER_FILE
            who = holder.read_text(encoding="utf-8").strip() if holder.exists() else ""
            raise Busy(
                f"another simeval server is running on {self.root}"
                f"{f' ({who})' if who else ''}: one server per folder. Stop it first, or "
                "give this one another folder."
            ) from None
        started = datetime.now(UTC).isoformat(timespec="seconds")
        holder = f"pid {os.getpid()}, since {started}\n".encode()
        write_atomic(self.root / HOLDER_FILE, holder, mode=0o600)
        return self

    def release(self) -> None:
        if self._lock.is_locked:
            (self.root / HOLDER_FILE).unlink(missing_ok=True)
            self._lock.release(force=True)

    def __enter__(self) -> FolderLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


# pg_try_advisory_lock's key: "simeval" in ASCII, one lock per database (they are per database)
ADVISORY_KEY = 0x73696D6576616C


@contextmanager
def opening(url: str) -> Iterator[None]:
    """A URL SQLAlchemy cannot read, a driver that is not installed, a database that cannot
    be reached: one line that names the database (password hidden) and the reason."""
    try:
        yield
    except (exc.ArgumentError, exc.NoSuchModuleError, ImportError) as e:
        hint = "" if "://" in url else f" (a file is sqlite:///{Path(url).resolve()})"
        raise SimevalError(
            f"cannot use the database URL {shown_url(url)}: {_reason(e)}{hint}"
        ) from None
    except (exc.OperationalError, exc.InterfaceError) as e:
        raise SimevalError(f"cannot open the database {shown_url(url)}: {_reason(e)}") from None
    except Exception as e:  # psycopg's own connection errors, when raised unwrapped
        if type(e).__module__.startswith("psycopg") and type(e).__name__ in (
            "OperationalError",
            "InterfaceError",
        ):
            raise SimevalError(f"cannot open the database {shown_url(url)}: {_reason(e)}") from None
        raise


def _reason(e: BaseException) -> str:
    inner = getattr(e, "orig", None) or e
    lines = [line.strip() for line in str(inner).splitlines() if line.strip()]
    return lines[0] if lines else type(inner).__name__


def _sqlite_path(url: str) -> Path | None:
    """The file of a SQLite URL (None for another database, or one in memory)."""
    try:
        parsed = make_url(url)
    except Exception:
        return None
    if not parsed.drivername.startswith("sqlite") or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database)


class DatabaseLock:
    """The exclusive lock of a database (module docstring): one live server per database."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._file = _sqlite_path(url)
        self._lock = (
            FileLock(f"{self._file}.lock", mode=0o600, thread_local=False)
            if self._file is not None
            else None
        )
        self._connection: Connection | None = None
        self._engine: Any = None

    def acquire(self) -> DatabaseLock:
        if self._lock is not None:
            try:
                self._lock.acquire(timeout=0)
            except Timeout:
                raise self._busy() from None
            return self
        if _sqlite_path(self.url) is None and self.url.startswith("sqlite"):
            return self  # in memory: no other process can open it
        with opening(self.url):
            self._engine = create_engine(driver_url(self.url), poolclass=NullPool)
            if self._engine.dialect.name != "postgresql":
                self._engine.dispose()
                self._engine = None
                return self
            self._connection = self._engine.connect()
            got = self._connection.scalar(text(f"SELECT pg_try_advisory_lock({ADVISORY_KEY})"))
            self._connection.commit()
        if not got:
            self.release()
            raise self._busy()
        return self

    def _busy(self) -> Busy:
        return Busy(
            f"another simeval server is running on the database {shown_url(self.url)}: one "
            "server per database. Stop it first, or give this one a database of its own."
        )

    def release(self, forget: bool = False) -> None:
        """Release the lock; ``forget``: a start that failed, so a SQLite lock file beside a
        database that does not exist (a refused start removes the file it made) goes too."""
        if self._lock is not None and self._lock.is_locked:
            self._lock.release(force=True)
            if forget and self._file is not None and not self._file.exists():
                Path(f"{self._file}.lock").unlink(missing_ok=True)
        if self._connection is not None:
            try:
                self._connection.close()  # the session ends: PostgreSQL drops its locks
            finally:
                self._connection = None
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None


def held(url: str, known: str) -> bool:
    """Whether a live server holds the database ``url`` (as a stamp names it: its password
    hidden, so ``known``'s password is tried when user and host are the same). False when
    that cannot be told."""
    path = _sqlite_path(url)
    if path is not None:
        if not path.exists():
            return False
        probe = FileLock(f"{path}.lock", mode=0o600, thread_local=False)
        try:
            probe.acquire(timeout=0)
        except Timeout:
            return True
        except OSError:
            return False
        probe.release(force=True)
        return False
    try:
        target = make_url(driver_url(url))
        mine = make_url(driver_url(known))
    except Exception:
        return False
    if target.get_dialect().name != "postgresql":
        return False
    if target.password is not None and str(target.password) == "***":
        same = (target.username, target.host, target.port) == (
            mine.username,
            mine.host,
            mine.port,
        )
        if not same:
            return False
        target = target.set(password=mine.password)
    engine = create_engine(target, poolclass=NullPool, connect_args={"connect_timeout": 5})
    try:
        with engine.connect() as c:
            got = c.scalar(text(f"SELECT pg_try_advisory_lock({ADVISORY_KEY})"))
            if got:
                c.scalar(text(f"SELECT pg_advisory_unlock({ADVISORY_KEY})"))
            return not got
    except Exception:
        return False
    finally:
        engine.dispose()


def _read_file(path: Path) -> dict[str, Any] | None:
    if not path.exists():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(
            path, None, f"not a server stamp ({exc}); restore it from a backup"
        ) from None
    if not isinstance(doc, dict) or not {"folder_id", "db_id"} <= doc.keys():
        raise InputError(path, None, "not a server stamp (folder_id, db_id); restore it")
    return doc


def bind(db: Database, storage: Storage) -> str:
    """Check that ``db`` and ``storage`` belong together, stamping a fresh pair (module
    docstring); returns the folder's id. Raises :class:`Mismatch` otherwise."""
    private_dir(storage.root)
    with FileLock(storage.root / STAMP_LOCK_FILE, mode=0o600):  # two commands stamp once
        path = storage.root / STAMP_FILE
        here = _read_file(path)
        wrote = False
        try:
            with db.session() as s:
                row = s.scalar(select(ServerStamp))
                if row is not None or here is not None:
                    return _matched(row, here, db.url, storage)
                _check_unstamped(set(s.scalars(select(Submission.id)).all()), db.url, storage)
                stamp = _new_stamp(db, storage)
                s.add(
                    ServerStamp(
                        id=1,
                        **{k: stamp[k] for k in ("db_id", "folder_id")},
                        folder=str(storage.root.resolve()),
                        created=stamp["when"],
                    )
                )
                # the file first, then the row's commit: if the commit fails, the file goes
                # again below, so neither side is ever stamped alone
                write_atomic(path, _stamp_json(stamp), mode=0o600)
                wrote = True
        except BaseException:
            if wrote:
                path.unlink(missing_ok=True)
            raise
        return stamp["folder_id"]


def _matched(row: Any, here: dict[str, Any] | None, known: str, storage: Storage) -> str:
    """The folder's id when the stamps match; else the :class:`Mismatch` that says why.
    ``row``: the database's stamp (``db_id``, ``folder_id``, ``folder``), or None; ``known``:
    the database's URL."""
    url = shown_url(known)
    theirs = here.get("db", "?") if here else "?"
    if row is not None and here is not None:
        if row.db_id == here["db_id"] and row.folder_id == here["folder_id"]:
            return row.folder_id
        raise Mismatch(
            f"{storage.root} belongs to the database {theirs} (id {here['db_id']}), and the "
            f"database {url} (id {row.db_id}) to the folder {row.folder or '?'} "
            f"(id {row.folder_id}): they are not a pair. {_start_with(theirs, known)}, or "
            "with the database's own folder; nothing was changed."
        )
    if row is not None:
        raise Mismatch(
            f"the database {url} belongs to the folder {row.folder or '?'} (id {row.folder_id}); "
            f"{storage.root} has no stamp ({STAMP_FILE}). Start with the database's own folder, "
            "or give this folder a database of its own; nothing was changed."
        )
    assert here is not None
    if theirs == url:  # the same URL, but a database without the stamp: replaced or lost
        raise Mismatch(
            f"{storage.root} belongs to the database {theirs} (id {here['db_id']}), but the "
            "database there now has no stamp: it was replaced or created anew since. Restore "
            "it from a backup (see simeval serve backup); nothing was changed."
        )
    raise Mismatch(
        f"{storage.root} belongs to the database {theirs} (id {here['db_id']}), not to {url}, "
        f"which has no stamp. {_start_with(theirs, known)}; nothing was changed."
    )


def _start_with(theirs: str, known: str) -> str:
    """What the organiser should start with: the folder's own database, unless a live server
    holds it (the folder is then a copy of that server's, and starting it there would put
    this folder's files under the other's rows)."""
    if held(theirs, known):
        return (
            f"But another live simeval server holds {theirs}: this folder is a copy of that "
            "server's (copied by hand, or a backup made before backups got ids of their own). "
            "Start it with a database restored from the same backup, never with the live one"
        )
    if "://" not in theirs:  # a backup's stamp: "the database restored from OUT/serve.sql"
        return f"Start with --db set to {theirs} (or SIMEVAL_SERVE_DB)"
    return f"Start with --db {theirs} (or SIMEVAL_SERVE_DB)"


def _check_unstamped(rows: set[str], known: str, storage: Storage) -> None:
    """Neither side is stamped: a new pair, or one made before stamps. They may be stamped
    only if the uploads on either side (``rows``: the ids the database at ``known`` records)
    are the other's."""
    url = shown_url(known)
    files = (
        {p.name for p in storage.submissions.iterdir()} if storage.submissions.exists() else set()
    )
    if files and not files & rows:
        raise Mismatch(
            f"{storage.root} holds {len(files):,} stored upload(s), and the database {url} "
            f"records {'none of them' if rows else 'no upload at all'}: it is not this folder's "
            "database. Give the right one with --db (or SIMEVAL_SERVE_DB); nothing was changed."
        )
    if rows and not files & rows:
        raise Mismatch(
            f"the database {url} records {len(rows):,} upload(s) and {storage.root} holds none "
            "of them: it is not this database's folder; nothing was changed."
        )


def _new_stamp(db: Database, storage: Storage) -> dict[str, Any]:
    return {
        "folder_id": uuid.uuid4().hex,
        "db_id": uuid.uuid4().hex,
        "db": shown_url(db.url),
        "when": naive(datetime.now(UTC)).replace(microsecond=0),
    }


def _stamp_json(stamp: dict[str, Any]) -> bytes:
    doc = {k: stamp[k] for k in ("folder_id", "db_id", "db")}
    doc["created"] = stamp["when"].isoformat() + "Z"
    return (json.dumps(doc, indent=2) + "\n").encode()


def check_before_migrating(url: str, storage: Storage) -> None:
    """:func:`bind`'s refusals, decided on the database as it is, before any migration:
    its stamp (the ``server`` table, if it has one) and its uploads (the ``submission``
    table's ids) read with plain SQL, nothing created or written (not even SQLite's journal
    mode). So a start on the wrong database (another folder's, another application's) is
    refused with the database as it was found; :func:`bind` checks again once it is migrated
    (under the stamp's lock, for two commands starting at once)."""
    here = _read_file(storage.root / STAMP_FILE)
    engine = create_engine(driver_url(url), poolclass=NullPool)
    try:
        with engine.connect() as c:
            tables = set(inspect(c).get_table_names())
            row = None
            if "server" in tables:
                row = c.execute(text("SELECT db_id, folder_id, folder FROM server")).first()
            if row is not None or here is not None:
                _matched(row, here, url, storage)
                return
            rows = set()
            if "submission" in tables:
                rows = set(c.scalars(text("SELECT id FROM submission")).all())
    finally:
        engine.dispose()
    _check_unstamped(rows, url, storage)


def open_pair(url: str, root: str | Path, busy_timeout: float = 30) -> tuple[Database, Storage]:
    """The database at ``url`` (migrated) and the storage folder ``root``, bound by
    :func:`bind`, once :func:`check_before_migrating` found them a pair: a refused start
    changes nothing in the database. When they are refused, a SQLite file that this call
    created is removed again, so a wrong start leaves no empty database behind."""
    made = _new_sqlite_file(url)
    if made is not None and made.parent.is_dir():  # SQLite's -wal and -shm files take its mode
        os.close(os.open(made, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    for path in _sqlite_files(url):  # one made by an earlier version, or by hand: the server's
        path.chmod(0o600)
    db = None
    try:
        storage = Storage(root)
        with opening(url):
            check_before_migrating(url, storage)
            db = Database(url, busy_timeout=busy_timeout)
            bind(db, storage)
    except BaseException:
        if db is not None:
            db.dispose()
        if made is not None:
            for suffix in ("", "-wal", "-shm", "-journal"):
                Path(f"{made}{suffix}").unlink(missing_ok=True)
        raise
    return db, storage


def _sqlite_files(url: str) -> list[Path]:
    """The files of a SQLite URL's database that exist (the database, its WAL and index)."""
    base = _sqlite_path(url)
    if base is None:
        return []
    return [p for p in (Path(f"{base}{s}") for s in ("", "-wal", "-shm")) if p.exists()]


def _new_sqlite_file(url: str) -> Path | None:
    """The file of a SQLite URL that does not exist yet (so opening it will create it)."""
    path = _sqlite_path(url)
    return None if path is None or path.exists() else path
