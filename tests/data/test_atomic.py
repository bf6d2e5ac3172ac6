"""The one way simeval writes files and folders whole: data.atomic.staged and write_atomic."""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import threading
from pathlib import Path

import pytest

from disk_kit import disk_journal
from simeval.data.atomic import staged, write_atomic


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_a_file_is_put_in_place_and_replaces_the_old_one(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("old")
    with staged(target) as tmp:
        assert tmp.parent == tmp_path and tmp.name.startswith(".a.txt.")
        tmp.write_text("new")
        assert target.read_text() == "old"  # nothing shows before the block ends
    assert target.read_text() == "new"
    assert _names(tmp_path) == ["a.txt"]


def test_a_failed_file_leaves_the_old_one_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError), staged(target) as tmp:
        tmp.write_text("half")
        raise RuntimeError("cut short")
    assert target.read_text() == "old"
    assert _names(tmp_path) == ["a.txt"]


def test_a_folder_is_renamed_into_place_whole(tmp_path: Path) -> None:
    target = tmp_path / "out" / "model"
    with staged(target, folder=True) as tmp:
        assert tmp.is_dir() and not any(tmp.iterdir())
        (tmp / "sub").mkdir()
        (tmp / "sub" / "x.txt").write_text("x")
        assert not target.exists()
    assert (target / "sub" / "x.txt").read_text() == "x"
    assert _names(target.parent) == ["model"]


def test_a_failed_folder_leaves_nothing(tmp_path: Path) -> None:
    target = tmp_path / "model"
    with pytest.raises(RuntimeError), staged(target, folder=True) as tmp:
        (tmp / "x.txt").write_text("x")
        raise RuntimeError("cut short")
    assert _names(tmp_path) == []


def test_an_existing_folder_is_replaced_when_empty_or_asked_and_kept_otherwise(
    tmp_path: Path,
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    with staged(empty, folder=True) as tmp:
        (tmp / "x.txt").write_text("x")
    assert _names(empty) == ["x.txt"]

    with pytest.raises(OSError), staged(empty, folder=True) as tmp:  # another writer's folder
        (tmp / "y.txt").write_text("y")
    assert _names(empty) == ["x.txt"]
    assert _names(tmp_path) == ["empty"]

    with staged(empty, folder=True, replace=True) as tmp:
        (tmp / "y.txt").write_text("y")
    assert _names(empty) == ["y.txt"]


def test_write_atomic_writes_the_bytes_with_the_mode(tmp_path: Path) -> None:
    target = tmp_path / "secret"
    write_atomic(target, b"abc", mode=0o600)
    assert target.read_bytes() == b"abc"
    assert target.stat().st_mode & 0o777 == 0o600
    write_atomic(target, b"def")  # an existing file: replaced
    assert target.read_bytes() == b"def"
    assert _names(tmp_path) == ["secret"]


def _dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_a_file_is_flushed_before_its_rename_and_its_folder_after(tmp_path, monkeypatch) -> None:
    """write_atomic: the temporary's bytes reach the disk before the rename puts them in
    place (else a power cut can leave the target empty), then the folder's entry does."""
    folder = tmp_path.resolve()
    target = folder / "a.txt"
    target.write_text("old")
    journal = disk_journal(monkeypatch)
    write_atomic(target, b"new")
    temporary = folder / f".a.txt.{os.getpid()}.partial"
    assert journal == [("fsync", temporary), ("rename", target), ("fsync", folder)]


def test_a_folder_is_flushed_whole_before_its_rename(tmp_path, monkeypatch) -> None:
    """staged(folder=True): every file and subfolder written, and the folder itself, are
    flushed before the rename; the parent folder after it."""
    parent = tmp_path.resolve()
    target = parent / "out"
    journal = disk_journal(monkeypatch)
    with staged(target, folder=True) as tmp:
        (tmp / "sub").mkdir()
        (tmp / "sub" / "b.txt").write_text("b")
        (tmp / "a.txt").write_text("a")
    temporary = parent / f".out.{os.getpid()}.partial"
    flushed = {p for event, p in journal[:-2] if event == "fsync"}
    assert flushed == {temporary, temporary / "sub", temporary / "sub" / "b.txt",
                       temporary / "a.txt"}  # fmt: skip
    assert journal[-2:] == [("rename", target), ("fsync", parent)], journal


def test_a_killed_writers_temporary_goes_at_the_next_write_of_its_target(tmp_path: Path) -> None:
    dead, alive = _dead_pid(), os.getppid()  # the parent runs as long as this test does
    left = tmp_path / f".a.txt.{dead}.partial"  # a writer of a.txt killed mid-write
    busy = tmp_path / f".a.txt.{alive}.partial"  # a running writer's: never touched
    other = tmp_path / f".b.txt.{dead}.partial"  # another target's: its own writer cleans it
    for path in (left, busy, other):
        path.write_text("half")
    write_atomic(tmp_path / "a.txt", b"whole")
    assert _names(tmp_path) == sorted(["a.txt", busy.name, other.name])


def test_write_atomic_follows_a_link_and_writes_a_pipe_in_place(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    write_atomic(link, b"new")
    assert link.is_symlink() and real.read_text() == "new"
    pipe = tmp_path / "pipe"  # as /dev/stdout may be: nothing can be renamed over it
    os.mkfifo(pipe)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(pipe.read_bytes()), daemon=True)
    reader.start()
    write_atomic(pipe, b"through the pipe")
    reader.join(timeout=10)
    assert got == [b"through the pipe"] and stat.S_ISFIFO(pipe.stat().st_mode)


def test_a_failed_write_names_its_target(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    with pytest.raises(OSError) as caught, staged(target) as tmp:
        tmp.write_text("half")
        raise OSError(errno.ENOSPC, "No space left on device")  # as a write() raises it
    assert caught.value.errno == errno.ENOSPC and caught.value.filename == str(target)
    assert _names(tmp_path) == []
