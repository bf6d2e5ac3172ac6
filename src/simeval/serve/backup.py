"""A backup of a running server: its database first, then its folder.

The order matters: every row names a stored file, so the database is copied first and the
files after it. A file stored after the database's copy was taken has no row in the backup;
the restored server quarantines it (:meth:`~simeval.serve.storage.Storage.quarantine`), and
nothing recorded is missing. The backup folder is itself a server folder: ``serve.db`` (SQLite)
or ``serve.sql`` (``pg_dump``'s plain SQL, for PostgreSQL) beside ``files/`` with the stamp,
so the restored pair still matches.

- SQLite: SQLite's online backup (a consistent copy while the server writes);
- PostgreSQL: ``pg_dump`` (on PATH, the server's major version or newer).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

from sqlalchemy.engine import make_url

from simeval.errors import InputError, SimevalError
from simeval.serve.db import DB_FILE, Database
from simeval.serve.storage import Storage

SKIPPED = {"tmp", "server.lock", "server.lock.holder", "server.stamp.lock"}
DUMP_FILE = "serve.sql"


def backup(db: Database, storage: Storage, out: Path) -> list[Path]:
    """Copy the database, then the folder, into the new folder ``out``; the paths written."""
    if out.exists() and any(out.iterdir()):
        raise InputError(out, None, "exists and is not empty: back up into a new folder")
    out.mkdir(mode=0o700, parents=True, exist_ok=True)
    url = make_url(db.url)
    if url.drivername.startswith("sqlite"):
        copied = out / DB_FILE
        _sqlite_backup(Path(url.database or ""), copied)
    else:
        copied = out / DUMP_FILE
        _pg_dump(db.url, copied)
    files = out / "files"
    shutil.copytree(
        storage.root,
        files,
        ignore=lambda folder, names: [n for n in names if n in SKIPPED],
    )
    (files / "tmp").mkdir(mode=0o700)
    return [copied, files]


def _sqlite_backup(source: Path, target: Path) -> None:
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.close(fd)
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    dst = sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        dst.close()
        src.close()


def _pg_dump(url: str, target: Path) -> None:
    plain = url.replace("postgresql+psycopg://", "postgresql://", 1)
    if shutil.which("pg_dump") is None:
        raise SimevalError(
            f"pg_dump is not on PATH (Debian: apt-get install postgresql-client); or run "
            f"pg_dump --no-owner -f {target} DATABASE_URL yourself, then copy the folder"
        )
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.close(fd)
    done = subprocess.run(
        ["pg_dump", "--no-owner", "--no-privileges", "-f", str(target), plain],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        target.unlink(missing_ok=True)
        raise SimevalError(f"pg_dump failed: {done.stderr.strip()}")
