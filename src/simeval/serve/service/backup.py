"""A backup of a running server: its database first, then its folder.

The order matters: every row names a stored file, so the database is copied first and the
files after it. A file stored after the database's copy was taken has no row in the backup;
the restored server quarantines it (:meth:`~simeval.serve.db.storage.Storage.quarantine`), and
nothing recorded is missing. The backup folder is itself a server folder: ``serve.db`` (SQLite)
or ``serve.sql`` (``pg_dump``'s plain SQL, for PostgreSQL) beside ``files/`` with the stamp.

Every backup gets a fresh pair of ids (:mod:`simeval.serve.db.pairing`): the copy's ``server`` row
is updated (for a dump, a final ``UPDATE`` is appended) and ``files/server.json`` carries the same
new ids, naming the backup's own database. A backup then pairs only with its own database, never
with the live one: started on the original database, it is refused instead of recording its uploads
in the original's rows with their files in the backup.

- SQLite: SQLite's online backup (a consistent copy while the server writes);
- PostgreSQL: ``pg_dump`` (on PATH, the server's major version or newer).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import uuid
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy.engine import make_url

from simeval.data.atomic import private_dir, write_atomic
from simeval.errors import InputError, SimevalError
from simeval.serve.db import DB_FILE, Database, default_url
from simeval.serve.db.pairing import STAMP_FILE
from simeval.serve.db.storage import Storage, outside
from simeval.serve.service.client_wheel import FOLDER as CLIENT_FOLDER

# the client wheel (client/) is made again on demand (:mod:`.client_wheel`)
SKIPPED = {"tmp", "server.lock", "server.lock.holder", "server.stamp.lock", CLIENT_FOLDER}
DUMP_FILE = "serve.sql"


def backup(db: Database, storage: Storage, out: Path) -> list[Path]:
    """Copy the database, then the folder, into the new folder ``out``, under a fresh pair of
    ids (module docstring); the paths written."""
    inside(out, storage.root)
    if out.exists() and any(out.iterdir()):
        raise InputError(out, None, "exists and is not empty: back up into a new folder")
    private_dir(out)
    url = make_url(db.url)
    files = out / "files"
    ids = {"db_id": uuid.uuid4().hex, "folder_id": uuid.uuid4().hex}
    folder = str(files.resolve())
    if url.drivername.startswith("sqlite"):
        copied = out / DB_FILE
        _sqlite_backup(Path(url.database or ""), copied)
        _restamp_sqlite(copied, ids, folder)
        named = default_url(out)
    else:
        copied = out / DUMP_FILE
        _pg_dump(db.url, copied)
        _restamp_dump(copied, ids, folder)
        named = f"the database restored from {copied.resolve()}"
    shutil.copytree(
        storage.root,
        files,
        ignore=lambda folder, names: [n for n in names if n in SKIPPED],
    )
    (files / "tmp").mkdir(mode=0o700, exist_ok=True)
    stamp = {
        **{k: ids[k] for k in ("folder_id", "db_id")},
        "db": named,
        "created": datetime.now(UTC).replace(microsecond=0, tzinfo=None).isoformat() + "Z",
    }
    write_atomic(files / STAMP_FILE, (json.dumps(stamp, indent=2) + "\n").encode(), mode=0o600)
    return [copied, files]


def inside(out: Path, folder: Path) -> None:
    """Refuse a backup into the server's own folder (it would copy itself forever)."""
    outside(out, folder, "back up")


def _restamp_sqlite(copy: Path, ids: dict[str, str], folder: str) -> None:
    con = sqlite3.connect(copy)
    try:
        with con:
            con.execute(
                "UPDATE server SET db_id = ?, folder_id = ?, folder = ?",
                (ids["db_id"], ids["folder_id"], folder),
            )
    finally:
        con.close()


def _restamp_dump(dump: Path, ids: dict[str, str], folder: str) -> None:
    text = dump.read_text(encoding="utf-8")
    found = re.search(r"^CREATE TABLE (\S+\.)?server \(", text, re.MULTILINE)
    table = f"{found.group(1) or ''}server" if found else "public.server"
    quoted = folder.replace("'", "''")
    with open(dump, "a", encoding="utf-8") as f:
        f.write(
            "\n-- simeval: this backup's own ids (it pairs only with its own files)\n"
            f"UPDATE {table} SET db_id = '{ids['db_id']}', folder_id = '{ids['folder_id']}', "
            f"folder = '{quoted}';\n"
        )


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
