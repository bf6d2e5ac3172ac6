"""Uploads on disk: streamed under a server-chosen name, capped, and put in place atomically.

Layout of the storage folder::

    tmp/<id>/upload              an upload being received or scored
    submissions/<id>/upload      a recorded submission (the bytes as received)
    submissions/<id>/items/N.tsv.gz   the per-item rows of its N-th result record

``<id>`` is a random hex name chosen by the server; nothing of the client's file name reaches
the disk. An upload is written to ``tmp/<id>``, fsynced, scored, then renamed to
``submissions/<id>`` (one rename of the folder, then the folder's parent is fsynced), and only
then is its database row committed. A crash leaves either a folder in ``tmp`` or a folder in
``submissions`` that no row names; :meth:`Storage.sweep` removes both when the server starts
(one server process per storage folder).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import uuid
from collections.abc import Iterable
from pathlib import Path

UPLOAD = "upload"
ITEMS = "items"


class TooLarge(Exception):
    """The upload passed its size cap; reading stopped there."""

    def __init__(self, cap: int) -> None:
        super().__init__(f"the file is larger than this phase's cap of {cap:,} bytes")
        self.cap = cap


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Upload:
    """One upload being received: bytes are hashed and counted as they are written."""

    def __init__(self, folder: Path, cap: int) -> None:
        self.id = folder.name
        self.folder = folder
        self.path = folder / UPLOAD
        self.cap = cap
        self.size = 0
        self._sha = hashlib.sha256()
        folder.mkdir(parents=True)
        self._file = open(self.path, "wb")  # noqa: SIM115  (closed by finish or discard)

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
        if not self._file.closed:
            self._file.close()
        shutil.rmtree(self.folder, ignore_errors=True)


class Storage:
    """The storage folder (module docstring)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.tmp = self.root / "tmp"
        self.submissions = self.root / "submissions"
        self.tmp.mkdir(parents=True, exist_ok=True)
        self.submissions.mkdir(parents=True, exist_ok=True)

    def new_upload(self, cap: int) -> Upload:
        return Upload(self.tmp / uuid.uuid4().hex, cap)

    def keep(self, upload: Upload) -> Path:
        """Move a finished upload (with anything written beside it) into place."""
        final = self.submissions / upload.id
        _fsync_dir(upload.folder)
        os.replace(upload.folder, final)
        _fsync_dir(self.submissions)
        return final

    def drop(self, submission_id: str) -> None:
        """Remove a kept submission whose row could not be committed."""
        shutil.rmtree(self.submissions / submission_id, ignore_errors=True)

    def file(self, submission_id: str) -> Path:
        return self.submissions / submission_id / UPLOAD

    def folder(self, submission_id: str) -> Path:
        return self.submissions / submission_id

    def sweep(self, recorded: Iterable[str]) -> list[str]:
        """Remove unfinished uploads and kept folders that no row names; their names."""
        known = set(recorded)
        removed = []
        for entry in sorted(self.tmp.iterdir()):
            shutil.rmtree(entry, ignore_errors=True) if entry.is_dir() else entry.unlink()
            removed.append(f"tmp/{entry.name}")
        for entry in sorted(self.submissions.iterdir()):
            if entry.name not in known:
                shutil.rmtree(entry, ignore_errors=True) if entry.is_dir() else entry.unlink()
                removed.append(f"submissions/{entry.name}")
        return removed
