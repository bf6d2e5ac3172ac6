"""Writing a file or a folder so that a reader sees the old one or the new one, never a part.

One way for every writer: write under a temporary name beside the target (``.NAME.PID.partial``),
flush it to the disk, rename it into place and flush the folder that holds it; on any error
the temporary is removed and the target is as it was.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def fsync_dir(folder: str | Path) -> None:
    """Flush a folder's entries (a rename into it) to the disk."""
    _fsync(folder)


def _fsync(path: str | Path) -> None:
    """Flush a file's bytes, or a folder's entries, to the disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextmanager
def staged(target: str | Path, *, folder: bool = False, replace: bool = False) -> Iterator[Path]:
    """A temporary path beside ``target`` to write into, put in place when the block ends
    without an error and removed otherwise (``target`` is then untouched).

    A file (the default): the block creates the file at the path it is given (streaming
    writes, a library that writes to a path); it is fsynced and renamed over ``target`` (an
    existing file is replaced in one step). The folder that holds ``target`` must exist.

    A folder (``folder=True``): the block is given an empty folder (its parents are made) and
    writes its files into it; they are fsynced and the folder is renamed to ``target``. An
    existing ``target`` folder is replaced only if it is empty, or with ``replace=True``, which
    removes it just before the rename (so a reader may briefly find no folder); otherwise the
    rename raises :class:`OSError` (another writer finished first).
    """
    target = Path(target)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.partial")
    if folder:
        shutil.rmtree(tmp, ignore_errors=True)  # left by a process with our pid that died
        tmp.mkdir(parents=True)
    try:
        yield tmp
        if folder:
            for path in [*tmp.rglob("*"), tmp]:
                if not path.is_symlink() and (path.is_file() or path.is_dir()):
                    _fsync(path)
            if replace and target.is_dir():
                shutil.rmtree(target)
        else:
            _fsync(tmp)
        os.replace(tmp, target)
    except BaseException:
        if folder:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            tmp.unlink(missing_ok=True)
        raise
    fsync_dir(target.parent)


def write_atomic(path: str | Path, data: bytes, mode: int = 0o644) -> None:
    """Write ``data`` to ``path`` through :func:`staged` (a new file gets ``mode``, less the
    umask): a reader sees the old bytes or the new ones; on any error ``path`` is untouched."""
    with staged(path) as tmp:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
