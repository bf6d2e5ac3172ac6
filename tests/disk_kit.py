"""A small disk to fill: a tmpfs mounted for one test (root only; CI runs as root), and the
``fill`` that writes it full. Tests take the ``small_disk`` fixture (tests/conftest.py).
``disk_journal`` records the flushes and renames a write makes, in order."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def mounted_tmpfs(mount: Path, size: str = "1m") -> Iterator[Path]:
    """A tmpfs of ``size`` mounted on the new folder ``mount``, unmounted after the block.
    Where it cannot be mounted the test is skipped, or fails under ``CI``."""
    mount.mkdir()
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
    )
    if made.returncode != 0:
        if os.environ.get("CI"):
            pytest.fail(f"cannot mount a tmpfs: {made.stderr}")
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(folder: Path, leave: int = 0) -> Path:
    """Write ``folder``'s disk full, then give back ``leave`` bytes (whole pages); the file
    that fills it."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError:
        pass
    finally:
        os.close(fd)
    if leave:
        os.truncate(filler, max(0, filler.stat().st_size - leave))
    return filler


def disk_journal(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Path]]:
    """Record every ``os.fsync`` (``("fsync", the file or folder flushed)``, read from the
    descriptor's /proc link) and ``os.replace``/``os.rename`` (``("rename", the
    destination)``) of the test from now on, in order; each still does its work."""
    journal: list[tuple[str, Path]] = []
    fsync, replace, rename = os.fsync, os.replace, os.rename

    def synced(fd: int) -> None:
        journal.append(("fsync", Path(os.readlink(f"/proc/self/fd/{fd}"))))
        fsync(fd)

    def replaced(src: str | Path, dst: str | Path, **kw: object) -> None:
        journal.append(("rename", Path(dst)))
        replace(src, dst, **kw)

    def renamed(src: str | Path, dst: str | Path, **kw: object) -> None:
        journal.append(("rename", Path(dst)))
        rename(src, dst, **kw)

    monkeypatch.setattr(os, "fsync", synced)
    monkeypatch.setattr(os, "replace", replaced)
    monkeypatch.setattr(os, "rename", renamed)
    return journal
