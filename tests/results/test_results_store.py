"""The results store leaves nothing behind: a record and its items file land as one unit, what
a killed writer left is removed by the next writer (and nothing of the user's; a reader removes
nothing), and a full disk
fails `evaluate`, `report --html` and `predict --out` with one line and no partial file."""

from __future__ import annotations

import errno
import gzip
import importlib.util
import json
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from disk_kit import disk_journal, fill
from simeval.api import evaluate
from simeval.results.store import load_items, load_results, save_records

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-c", "from simeval.cli import main; main()"]


def _dead_pid() -> int:
    """The pid of a process that has ended."""
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def _names(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def _referenced(folder: Path) -> set[str]:
    """The items files named by the folder's records, read with json here."""
    lines = (folder / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return {json.loads(line)["items_file"] for line in lines if line.strip()}


def _simeval(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300)


def test_leftovers_of_a_killed_writer_are_removed_by_the_next_writer(tmp_path, capsys) -> None:
    folder = tmp_path / "results"
    evaluate("overlap", "mc30", results_dir=folder)
    kept = _names(folder)
    dead = _dead_pid()
    items = folder / "items"
    left = [
        items / f".0123456789abcdef.tsv.gz.{dead}.partial",  # killed while writing items
        items / "fedcba9876543210.tsv.gz",  # renamed, killed before its record landed
    ]
    mine = [
        items / "notes.txt",  # the user's files: never touched
        items / "mine.tsv.gz",
        folder / "copy.jsonl",
        items / f".0123456789abcdef.tsv.gz.{os.getpid()}.partial",  # a running writer's
    ]
    for path in left + mine:
        path.write_bytes(b"x")
    capsys.readouterr()

    records = load_results(folder)  # a reader: nothing removed
    assert all(p.exists() for p in left + mine)
    save_records(folder, [])  # a writer, holding the lock

    assert len(records) == 1 and load_items(folder, records[0]) is not None
    assert not any(p.exists() for p in left)
    assert all(p.exists() for p in mine)
    assert _names(folder) == sorted([*kept, *(str(p.relative_to(folder)) for p in mine)])
    err = capsys.readouterr().err
    assert "removed 2 file(s) left by an interrupted write" in err
    assert "fedcba9876543210.tsv.gz" in err


def test_a_folder_being_written_is_read_and_not_cleaned(tmp_path) -> None:
    """While a writer holds the folder's lock, an items file renamed but not yet recorded is
    its, not a leftover: a reader leaves it; once the lock is free the next writer removes it."""
    from simeval.results.store import _lock

    folder = tmp_path / "results"
    evaluate("overlap", "mc30", results_dir=folder)
    pending = folder / "items" / "00112233445566778899.tsv.gz"
    pending.write_bytes(b"x")
    with _lock(folder):
        assert len(load_results(folder)) == 1
        assert pending.exists()
    assert len(load_results(folder)) == 1
    assert pending.exists()
    save_records(folder, [])
    assert not pending.exists()


def test_a_failed_append_leaves_no_items_file(tmp_path) -> None:
    """The results file cannot be appended to (here: it is a folder); the items file written
    for the record goes again."""
    folder = tmp_path / "results"
    results = evaluate("overlap", "mc30")
    (folder / "results.jsonl").mkdir(parents=True)
    with pytest.raises(OSError):
        save_records(folder, [results[0].to_dict()], [results[0].items])
    assert list((folder / "items").iterdir()) == []


def test_items_files_are_on_disk_before_their_rename_and_the_record(tmp_path, monkeypatch) -> None:
    """Two records with items: each items file is flushed (fsync) under its temporary name
    before it is renamed into place, and the items folder is flushed after the renames and
    before the records are appended, so after a power cut a record never names a file whose
    bytes or name were still in memory."""
    import simeval.results.store as store

    folder = (tmp_path / "results").resolve()
    results = evaluate("overlap", "mc30", "rg65")
    journal = disk_journal(monkeypatch)
    append = store._append

    def appended(path: Path, data: bytes) -> None:
        journal.append(("append", path))
        append(path, data)

    monkeypatch.setattr(store, "_append", appended)
    save_records(folder, [r.to_dict() for r in results], [r.items for r in results])

    finals = [folder / "items" / f"{r.id}.tsv.gz" for r in results]
    assert all(f.exists() for f in finals)
    temporaries = [f.with_name(f".{f.name}.{os.getpid()}.partial") for f in finals]
    needed = [*(("fsync", t) for t in temporaries), *(("rename", f) for f in finals),
              ("fsync", folder / "items"), ("append", folder / "results.jsonl")]  # fmt: skip
    missing = [event for event in needed if event not in journal]
    assert not missing, f"never done: {missing}; done: {journal}"
    at = {event: i for i, event in enumerate(journal)}
    for temporary, final in zip(temporaries, finals, strict=True):
        assert at[("fsync", temporary)] < at[("rename", final)], journal
    assert max(at[("rename", f)] for f in finals) < at[("fsync", folder / "items")], journal
    assert at[("fsync", folder / "items")] < at[("append", folder / "results.jsonl")], journal


def test_a_failed_items_file_takes_the_ones_written_before_it(tmp_path) -> None:
    """Two records in one call, the second's items cannot be copied: neither lands, and the
    first's items file is not left behind."""
    folder = tmp_path / "results"
    results = evaluate("overlap", "mc30", "rg65")
    records = [r.to_dict() for r in results]
    with pytest.raises(OSError):
        save_records(folder, records, [results[0].items, tmp_path / "no-such-items.tsv.gz"])
    assert list((folder / "items").iterdir()) == []
    assert not (folder / "results.jsonl").exists() or _referenced(folder) == set()


@pytest.mark.slow  # kills a live process again and again
def test_kill_9_during_evaluate_leaves_no_orphan_and_no_partial(tmp_path) -> None:
    spec = importlib.util.spec_from_file_location("kill_loop", ROOT / "benchmarks/kill_loop.py")
    assert spec is not None and spec.loader is not None
    kill_loop = importlib.util.module_from_spec(spec)
    sys.modules["kill_loop"] = kill_loop  # its dataclass looks its module up
    spec.loader.exec_module(kill_loop)
    folder = tmp_path / "results"
    kill_loop.kill_loop(folder, kills=10, seed=30)

    opened = _simeval("results", str(folder))
    assert opened.returncode == 0, opened.stderr

    assert [p for p in folder.rglob("*") if p.name.endswith(".partial")] == []
    named = _referenced(folder)
    assert {f"items/{p.name}" for p in (folder / "items").iterdir()} == named
    records = load_results(folder)
    assert len(records) >= 8  # at least the first, uninterrupted run's
    for name in named:  # every record's items whole (gzip checks its length and CRC)
        with gzip.open(folder / name, "rt", encoding="utf-8") as f:
            lines = f.read().split("\n")
        assert len(lines) > 2 and lines[-1] == ""


# ---- a full disk


def _one_line_error(run: subprocess.CompletedProcess[str], path: Path) -> None:
    assert run.returncode == 2, (run.stdout, run.stderr)
    errors = [line for line in run.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in run.stderr, run.stderr  # progress aside
    assert "No space left on device" in errors[0] and str(path) in errors[0], errors[0]


def _leftover_files(folder: Path) -> list[str]:
    return [p.name for p in folder.rglob("*") if p.name.endswith(".partial")]


def test_evaluate_on_a_full_disk_fails_in_one_line_and_keeps_the_folder_as_it_was(
    small_disk,
) -> None:
    folder = small_disk / "results"
    assert _simeval("evaluate", "overlap", "-b", "mc30", "--results", str(folder)).returncode == 0
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    fill(small_disk, leave=12 * 1024)  # room for the first items files, not for sts12's

    run = _simeval(
        "evaluate", "overlap", "-b", "rg65", "-b", "mc30", "-b", "sts12", "--results", str(folder)
    )

    after = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    assert after == before  # no new items file, no partial, the records as they were
    assert _leftover_files(small_disk) == []
    _one_line_error(run, folder)


def test_report_html_on_a_full_disk_leaves_no_truncated_page(small_disk, tmp_path) -> None:
    folder = tmp_path / "results"
    evaluate("overlap", "mc30", "rg65", results_dir=folder)
    page = small_disk / "report.html"
    fill(small_disk, leave=8 * 1024)  # the page is larger than that

    run = _simeval("report", str(folder), "--html", str(page), "-B", "50", "-j", "1")

    assert not page.exists()
    assert _leftover_files(small_disk) == []
    _one_line_error(run, page)


def test_predict_on_a_full_disk_leaves_no_cut_file(small_disk) -> None:
    out = small_disk / "simlex.csv"
    fill(small_disk, leave=4 * 1024)  # simlex999's 999 pairs take 17 KB

    run = _simeval("predict", "overlap", "-s", "simlex999", "--out", str(out))

    assert not out.exists()
    assert _leftover_files(small_disk) == []
    _one_line_error(run, out)


def test_predict_of_a_folder_on_a_full_disk_leaves_none_of_its_files(small_disk) -> None:
    out = small_disk / "sts"
    fill(small_disk, leave=20 * 1024)  # room for MSRpar's 14 KB, not for the other four

    run = _simeval("predict", "overlap", "-s", "sts12", "--out", str(out))

    assert list(out.iterdir()) == []
    assert _leftover_files(small_disk) == []
    _one_line_error(run, out)


def test_a_campaign_export_on_a_full_disk_leaves_no_part_of_it(small_disk, tmp_path, mc30) -> None:
    """The server's export (submissions, a results folder and leaderboards per phase) is one
    folder: on a full disk none of it is left, and with room it is all there."""
    pytest.importorskip("fastapi")
    from serve_kit import OPENS, TRIAL_END, Clock, make_server, pair_file, register, stop, upload
    from simeval.serve.db.storage import Storage
    from simeval.serve.service.export import export

    clock = Clock(OPENS + timedelta(days=1))
    srv = make_server(f"sqlite:///{tmp_path / 'serve.db'}", tmp_path / "server", clock)
    token = register(srv.client, "alpha")
    for seed in (1, 2):
        r = upload(srv.client, token, pair_file(mc30, seed)[0], target="mc30")
        assert r.status_code == 201, r.text
    clock.now = TRIAL_END + timedelta(days=1)
    out = small_disk / "export"
    filler = fill(small_disk, leave=4 * 1024)  # room for the submissions, not the rest

    with pytest.raises(OSError) as caught:
        export(srv.db, Storage(srv.folder / "files"), "lex25", out)
    assert caught.value.errno == errno.ENOSPC
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler"]

    filler.unlink()
    written = export(srv.db, Storage(srv.folder / "files"), "lex25", out)
    assert all(p.is_file() and p.is_relative_to(out) for p in written)
    assert len(load_results(out / "trial")) == 2
    stop(srv.app)


def test_a_write_leaves_no_lock_file(tmp_path) -> None:
    """The writers' lock is the folder itself: nothing but the results and their items stays
    behind (an empty results.jsonl.lock used to stay in every folder; issue 47, stumble 4)."""
    folder = tmp_path / "results"
    evaluate("overlap", "mc30", results_dir=folder)
    names = _names(folder)
    assert "results.jsonl.lock" not in names
    assert [n for n in names if not n.startswith("items")] == ["results.jsonl"]


def _append_many(folder: str, start: int, count: int) -> None:
    """A writer process: ``count`` records, one save each (ids ``start``..)."""
    from simeval.results.store import save_records

    for i in range(start, start + count):
        save_records(folder, [{"id": f"{i:016x}", "filler": "x" * 20_000}])


def test_concurrent_writers_lose_no_record_and_tear_no_line(tmp_path) -> None:
    """Four processes appending 25 records each at once, large lines (20 kB, beyond one
    pipe buffer): the file holds the 100 records, every line whole, and no lock file."""
    import multiprocessing

    folder = tmp_path / "results"
    folder.mkdir()
    context = multiprocessing.get_context("spawn")
    writers = [
        context.Process(target=_append_many, args=(str(folder), k * 100, 25)) for k in range(4)
    ]
    for w in writers:
        w.start()
    for w in writers:
        w.join(120)
        assert w.exitcode == 0
    lines = (folder / "results.jsonl").read_text(encoding="utf-8").splitlines()
    ids = sorted(json.loads(line)["id"] for line in lines)
    assert ids == sorted(f"{k * 100 + i:016x}" for k in range(4) for i in range(25))
    assert not (folder / "results.jsonl.lock").exists()
