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
belongs to, or the folder the database belongs to: nothing is moved, deleted or stamped.
Moving the folder, or restoring both from a backup, keeps the ids, so it still matches.

:class:`FolderLock` is an exclusive lock on ``server.lock`` in the folder (``flock``: the
kernel releases it when the process ends, however it ends). ``serve run`` holds it for its
whole life, so a second server on the same folder refuses to start instead of sweeping the
first one's uploads in flight.
"""

from __future__ import annotations

import json
import os
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout
from sqlalchemy import select
from sqlalchemy.engine import make_url

from simeval.data.atomic import write_atomic
from simeval.errors import InputError, SimevalError
from simeval.serve.db import Database
from simeval.serve.models import ServerStamp, Submission, naive
from simeval.serve.storage import Storage

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
        self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
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
        write_atomic(self.root / HOLDER_FILE, f"pid {os.getpid()}, since {started}\n".encode())
        return self

    def release(self) -> None:
        if self._lock.is_locked:
            (self.root / HOLDER_FILE).unlink(missing_ok=True)
            self._lock.release(force=True)

    def __enter__(self) -> FolderLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


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
    storage.root.mkdir(mode=0o700, parents=True, exist_ok=True)
    with FileLock(storage.root / STAMP_LOCK_FILE, mode=0o600):  # two commands stamp once
        path = storage.root / STAMP_FILE
        here = _read_file(path)
        wrote = False
        try:
            with db.session() as s:
                row = s.scalar(select(ServerStamp))
                if row is not None or here is not None:
                    return _matched(row, here, db, storage)
                _check_unstamped(s, db, storage)
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


def _matched(
    row: ServerStamp | None, here: dict[str, Any] | None, db: Database, storage: Storage
) -> str:
    """The folder's id when the stamps match; else the :class:`Mismatch` that says why."""
    url = shown_url(db.url)
    theirs = here.get("db", "?") if here else "?"
    if row is not None and here is not None:
        if row.db_id == here["db_id"] and row.folder_id == here["folder_id"]:
            return row.folder_id
        raise Mismatch(
            f"{storage.root} belongs to the database {theirs} (id {here['db_id']}), and the "
            f"database {url} (id {row.db_id}) to the folder {row.folder or '?'} "
            f"(id {row.folder_id}): they are not a pair. Start with --db {theirs} (or "
            "SIMEVAL_SERVE_DB), or with the database's own folder; nothing was changed."
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
        f"which has no stamp. Start with --db {theirs} (or SIMEVAL_SERVE_DB); nothing was "
        "changed."
    )


def _check_unstamped(s: Any, db: Database, storage: Storage) -> None:
    """Neither side is stamped: a new pair, or one made before stamps. They may be stamped
    only if the uploads on either side are the other's."""
    url = shown_url(db.url)
    rows = set(s.scalars(select(Submission.id)).all())
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


def open_pair(url: str, root: str | Path, busy_timeout: float = 30) -> tuple[Database, Storage]:
    """The database at ``url`` (migrated) and the storage folder ``root``, bound by
    :func:`bind`. When they are refused, a SQLite file that this call created is removed
    again, so a wrong start leaves no empty database behind."""
    made = _new_sqlite_file(url)
    if made is not None and made.parent.is_dir():  # SQLite's -wal and -shm files take its mode
        os.close(os.open(made, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    for path in _sqlite_files(url):  # one made by an earlier version, or by hand: the server's
        path.chmod(0o600)
    db = Database(url, busy_timeout=busy_timeout)
    try:
        storage = Storage(root)
        bind(db, storage)
    except BaseException:
        db.dispose()
        if made is not None:
            for suffix in ("", "-wal", "-shm", "-journal"):
                Path(f"{made}{suffix}").unlink(missing_ok=True)
        raise
    return db, storage


def _sqlite_files(url: str) -> list[Path]:
    """The files of a SQLite URL's database that exist (the database, its WAL and index)."""
    try:
        parsed = make_url(url)
    except Exception:
        return []
    if not parsed.drivername.startswith("sqlite") or parsed.database in (None, "", ":memory:"):
        return []
    base = Path(parsed.database)
    return [p for p in (Path(f"{base}{s}") for s in ("", "-wal", "-shm")) if p.exists()]


def _new_sqlite_file(url: str) -> Path | None:
    """The file of a SQLite URL that does not exist yet (so opening it will create it)."""
    try:
        parsed = make_url(url)
    except Exception:
        return None
    if not parsed.drivername.startswith("sqlite") or not parsed.database:
        return None
    if parsed.database == ":memory:":
        return None
    path = Path(parsed.database)
    return None if path.exists() else path
