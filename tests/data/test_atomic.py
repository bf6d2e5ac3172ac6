"""The one way simeval writes files and folders whole: data.atomic.staged and write_atomic."""

from __future__ import annotations

from pathlib import Path

import pytest

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
