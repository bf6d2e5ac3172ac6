"""Uploads on disk: streamed under a server-chosen name, capped, and put in place atomically.

Layout of the storage folder::

    tmp/<id>/upload              an upload being received or scored
    submissions/<id>/upload      a recorded submission (the bytes as received)
    submissions/<id>/results.jsonl    its result records, written by the results store
    submissions/<id>/items/           their per-item rows (each record names its file)

    quarantine/<time>/...        what a start found that no row names (moved, never deleted)

``<id>`` is a random hex name chosen by the server; nothing of the client's file name reaches
the disk. An upload is written to ``tmp/<id>``, fsynced, scored, then renamed to
``submissions/<id>`` (one rename of the folder, then the folder's parent is fsynced), and only
then is its database row committed. A crash leaves either a folder in ``tmp`` or a folder in
``submissions`` that no row names; :meth:`Storage.quarantine` moves both aside when the server
starts, and lists them: a start never deletes an upload (one server per folder holds the lock of
:mod:`.pairing`, and the folder is stamped with its database's id, so no other server's uploads in
flight and no wrong database's "leftovers" can be taken for a crash's).

Folders are made 0700 and files 0600 whatever the umask (:func:`~simeval.data.atomic.private_dir`,
``quarantine/`` and its parents too): uploads are the teams' work, readable by the server only.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import uuid
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from simeval.data.atomic import fsync_dir, private_dir, write_atomic
from simeval.errors import InputError

UPLOAD = "upload"


def outside(out: Path, folder: Path, doing: str, what: str = "the server's folder") -> None:
    """Refuse to write ``out`` inside ``folder`` (a backup would copy itself forever; an
    export inside the storage folder would be backed up, and kept, with the teams' data)."""
    target, root = Path(out).resolve(), Path(folder).resolve()
    if target == root or target.is_relative_to(root):
        raise InputError(out, None, f"is inside {what} {folder}: {doing} into a folder outside it")


class TooLarge(Exception):
    """The upload passed its size cap; reading stopped there."""

    def __init__(self, cap: int) -> None:
        super().__init__(f"the file is larger than this phase's cap of {cap:,} bytes")
        self.cap = cap


class Upload:
    """One upload being received: bytes are hashed and counted as they are written."""

    def __init__(self, folder: Path, cap: int) -> None:
        self.id = folder.name
        self.folder = folder
        self.path = folder / UPLOAD
        self.cap = cap
        self.size = 0
        self._sha = hashlib.sha256()
        folder.mkdir(mode=0o700)
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            self._file = os.fdopen(fd, "wb")  # closed by finish or discard
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise

    def write(self, chunk: bytes) -> None:
        """Append ``chunk``; past the cap, raise :class:`TooLarge` without writing it."""
        if self.size + len(chunk) > self.cap:
            raise TooLarge(self.cap)
        self._file.write(chunk)
        self._sha.update(chunk)
        self.size += len(chunk)

    @property
    def sha256(self) -> str:
        return self._sha.hexdigest()

    def finish(self) -> None:
        """Flush the bytes to the disk."""
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()

    def discard(self) -> None:
        """Remove the upload's folder (closing the file may fail again on a full disk: the
        bytes it could not flush are dropped with it)."""
        if not self._file.closed:
            with contextlib.suppress(OSError):
                self._file.close()
        shutil.rmtree(self.folder, ignore_errors=True)


class Storage:
    """The storage folder (module docstring)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.tmp = self.root / "tmp"
        self.submissions = self.root / "submissions"
        for folder in (self.root, self.tmp, self.submissions):
            private_dir(folder)

    def new_upload(self, cap: int) -> Upload:
        return Upload(self.tmp / uuid.uuid4().hex, cap)

    def keep(self, upload: Upload) -> Path:
        """Move a finished upload (with anything written beside it) into place."""
        final = self.submissions / upload.id
        fsync_dir(upload.folder)
        os.replace(upload.folder, final)
        fsync_dir(self.submissions)
        return final

    def drop(self, submission_id: str) -> None:
        """Remove a kept submission whose row could not be committed."""
        shutil.rmtree(self.submissions / submission_id, ignore_errors=True)

    def file(self, submission_id: str) -> Path:
        return self.submissions / submission_id / UPLOAD

    def folder(self, submission_id: str) -> Path:
        return self.submissions / submission_id

    def quarantine(self, recorded: Iterable[str]) -> list[str]:
        """Move unfinished uploads and kept folders that no row names to
        ``quarantine/<time>/`` (with a ``LIST.txt`` of them); their old places, listed."""
        known = set(recorded)
        stray = [e for e in sorted(self.tmp.iterdir())]
        stray += [e for e in sorted(self.submissions.iterdir()) if e.name not in known]
        if not stray:
            return []
        when = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
        into = self.root / "quarantine" / when
        moved = []
        for entry in stray:
            where = f"{entry.parent.name}/{entry.name}"
            private_dir(into / entry.parent.name)
            os.replace(entry, into / where)
            moved.append(where)
        listing = "".join(f"{m}\n" for m in moved)
        write_atomic(into / "LIST.txt", listing.encode(), mode=0o600)
        fsync_dir(self.tmp)
        fsync_dir(self.submissions)
        return moved
