"""Writing a file or a folder so that a reader sees the old one or the new one, never a part.

One way for every writer: write under a temporary name beside the target (``.NAME.PID.partial``),
flush it to the disk, rename it into place and flush the folder that holds it; on any error
the temporary is removed and the target is as it was.

Only a killed process (kill -9, a power cut) leaves a temporary behind. Its name says which
process wrote it, so the next writer of the same target removes it once that process is gone
(:func:`stale_partials`); a temporary of a running process is never touched.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PARTIAL = re.compile(r"^\.(?P<name>.+)\.(?P<pid>[0-9]+)\.partial$")


def partial_path(target: str | Path) -> Path:
    """The temporary name this process writes ``target`` under: ``.NAME.PID.partial``."""
    target = Path(target)
    return target.with_name(f".{target.name}.{os.getpid()}.partial")


def _running(pid: int) -> bool:
    """Whether a process ``pid`` exists (one of another user's counts as running)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def stale_partials(folder: str | Path, name: str | None = None) -> list[Path]:
    """The temporaries in ``folder`` (of target ``name``, or of any target) whose writer is no
    longer running: what a killed writer left. This process's own are never stale (another
    thread may be writing them)."""
    try:
        entries = list(Path(folder).iterdir())
    except OSError:  # no folder, or not ours to read
        return []
    found = []
    for path in entries:
        match = PARTIAL.match(path.name)
        if match is None or (name is not None and match["name"] != name):
            continue
        pid = int(match["pid"])
        if pid != os.getpid() and not _running(pid):
            found.append(path)
    return sorted(found)


def remove(paths: list[Path]) -> list[Path]:
    """Remove files and folders, quietly skipping what cannot be removed; the ones removed."""
    done = []
    for path in paths:
        try:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
        except FileNotFoundError:
            continue
        except OSError:
            continue
        done.append(path)
    return done


def named(exc: OSError, path: str | Path) -> OSError:
    """``exc`` naming ``path`` (errors of a write, a flush, gzip's, often name no file)."""
    return OSError(exc.errno, exc.strerror or str(exc), str(path))


def fsync_dir(folder: str | Path) -> None:
    """Flush a folder's entries (a rename into it) to the disk."""
    _fsync(folder)


def fsync_file(path: str | Path) -> None:
    """Flush a file's bytes to the disk."""
    _fsync(path)


def _fsync(path: str | Path) -> None:
    """Flush a file's bytes, or a folder's entries, to the disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def private_dir(folder: str | Path) -> Path:
    """``folder`` made with each missing parent, every one of them 0700 whatever the umask
    (``mkdir(parents=True)`` would make the parents by the umask alone: 0755 under the
    common 022)."""
    folder = Path(folder)
    missing = []
    for level in (folder, *folder.parents):
        if level.exists():
            break
        missing.append(level)
    for level in reversed(missing):
        try:
            level.mkdir(mode=0o700)
        except FileExistsError:  # made meanwhile by another writer: as it made it
            continue
        level.chmod(0o700)
    return folder


def make_private(tree: str | Path) -> None:
    """Files below ``tree`` 0600, folders 0700 (``tree`` itself included); symbolic links
    are left alone (their modes are not theirs)."""
    for path in [Path(tree), *Path(tree).rglob("*")]:
        if path.is_symlink():
            continue
        path.chmod(0o700 if path.is_dir() else 0o600)


@contextmanager
def staged(
    target: str | Path, *, folder: bool = False, replace: bool = False, private: bool = False
) -> Iterator[Path]:
    """A temporary path beside ``target`` to write into, put in place when the block ends
    without an error and removed otherwise (``target`` is then untouched). Temporaries of
    ``target`` left by killed writers are removed first.

    A file (the default): the block creates the file at the path it is given (streaming
    writes, a library that writes to a path); it is fsynced and renamed over ``target`` (an
    existing file is replaced in one step). The folder that holds ``target`` must exist.

    A folder (``folder=True``): the block is given an empty folder (its parents are made) and
    writes its files into it; they are fsynced and the folder is renamed to ``target``. An
    existing ``target`` folder is replaced only if it is empty, or with ``replace=True``, which
    removes it just before the rename (so a reader may briefly find no folder); otherwise the
    rename raises :class:`OSError` (another writer finished first).

    ``private``: the folder and its missing parents are made 0700, and everything in it is
    made 0600 (files) or 0700 (folders) before it is put in place, whatever the umask (the
    server's exports: its teams' files and results).
    """
    target = Path(target)
    tmp = partial_path(target)
    remove(stale_partials(target.parent, target.name))
    if folder:
        shutil.rmtree(tmp, ignore_errors=True)  # left by a process with our pid that died
        if private:
            private_dir(tmp)
        else:
            tmp.mkdir(parents=True)
    try:
        yield tmp
        if folder and private:
            make_private(tmp)
        if folder:
            for path in [*tmp.rglob("*"), tmp]:
                if not path.is_symlink() and (path.is_file() or path.is_dir()):
                    _fsync(path)
            if replace and target.is_dir():
                shutil.rmtree(target)
        else:
            _fsync(tmp)
        os.replace(tmp, target)
    except BaseException as exc:
        if folder:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError) and exc.errno and not exc.filename:
            raise named(exc, target) from None  # a full disk: say which output it cut short
        raise
    fsync_dir(target.parent)


def write_atomic(path: str | Path, data: bytes, mode: int = 0o644) -> None:
    """Write ``data`` to ``path`` through :func:`staged` (a new file gets ``mode``, less the
    umask): a reader sees the old bytes or the new ones; on any error ``path`` is untouched.

    A symbolic link is followed (the file it names is replaced, the link stays); a path that
    is not a regular file (``/dev/stdout``, a pipe) is written as it is, since nothing can be
    renamed over it."""
    path = Path(os.path.realpath(path))
    if path.exists() and not path.is_file():
        with open(path, "wb") as f:
            f.write(data)
        return
    with staged(path) as tmp:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
