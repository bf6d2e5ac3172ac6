"""The results folder: ``results.jsonl`` (one Result record per line) and ``items/`` beside it.

Records are appended, never rewritten, so re-running a measure adds a newer record; readers
take the latest record of each (system, benchmark). Each record names its items file
(``items/<id>.tsv.gz``, :mod:`simeval.results.items`), from which reports compute intervals,
subsets and comparisons.

A write cut short (a killed process, a full disk) loses at most the records being written,
and what it leaves behind is removed on the next open of the folder:

- a call's records and their items files are one unit: the items are written under temporary
  names (``items/.<id>.tsv.gz.<pid>.partial``), then, under a lock (the folder's own: no
  lock file is left in it), renamed into place and the records appended in one write. A
  record never names a missing or half-written file; on an error (a full disk) the renamed
  items are removed and the results file is cut back to where it was;
- a final line without its line end is a torn record: readers skip it with a warning naming
  the line, and the next writer moves it to ``results.jsonl.torn`` before appending, so a new
  record never lands on a partial line;
- only a killed process leaves anything: temporaries of a process that is gone, or items files
  renamed just before the kill, whose record never landed. The next writer, holding the lock
  (:func:`clean_folder`), removes them, and says so on standard error. Only the store's own
  names are touched: ``.<name>.<pid>.partial``, and ``<hex id>.tsv.gz`` that no line of
  ``results.jsonl`` or ``results.jsonl.torn`` mentions; when a line of ``results.jsonl`` is
  not a record (a damaged file), no items file is judged unused.

Readers never delete or rewrite anything (``simeval results``, ``leaderboard``, ``compare``,
``report``): a folder is read as it is, and a record that is not what the store writes (a
metric that is not a finite number within its bounds, a missing field) is an error naming
the line and the key (:func:`~simeval.results.record.check_record`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from simeval.data.atomic import (
    fsync_dir,
    fsync_file,
    named,
    partial_path,
    remove,
    stale_partials,
)
from simeval.errors import InputError, InputWarning
from simeval.results.items import Items, read_items, write_items
from simeval.results.record import Result, check_record

RESULTS_FILE = "results.jsonl"
ITEMS_FOLDER = "items"
TORN_FILE = "results.jsonl.torn"
LOCK_FILE = "results.jsonl.lock"  # the lock where the folder cannot be locked (no flock)
ITEMS_NAME = re.compile(r"[0-9a-f]{8,64}\.tsv\.gz")  # what the store names an items file


def _report(warning: InputWarning) -> None:
    sys.stderr.write(f"warning: {warning}\n")


def _set_aside_torn_tail(path: Path) -> None:
    """Move a final line without its line end to ``results.jsonl.torn`` (see the module
    docstring), so the file ends at a complete record."""
    size = path.stat().st_size
    if size == 0:
        return
    with open(path, "rb+") as f:
        f.seek(size - 1)
        if f.read(1) == b"\n":
            return
        f.seek(0)
        data = f.read()
        cut = data.rfind(b"\n") + 1
        with open(path.with_name(TORN_FILE), "ab") as torn:
            torn.write(data[cut:] + b"\n")
        f.truncate(cut)
    line = data.count(b"\n") + 1
    _report(InputWarning(str(path), line, f"a torn record (no line end) was moved to {TORN_FILE}"))


def save_results(folder: str | Path, results: Sequence[Result], level: int = 6) -> Path:
    """Append results to ``folder/results.jsonl`` (created if needed), their items beside
    (gzip ``level``), and set each result's ``items_file``.

    Items are written first, so a record never names a file that is not there.
    """
    for r in results:
        if r.items is not None:
            r.items_file = f"{ITEMS_FOLDER}/{r.id}.tsv.gz"
    records = [r.to_dict() for r in results]
    return save_records(folder, records, [r.items for r in results], level)


def save_records(
    folder: str | Path,
    records: Sequence[dict[str, Any]],
    items: Sequence[Items | Path | None] = (),
    level: int = 6,
) -> Path:
    """Append ``records`` (result records as :meth:`Result.to_dict` gives them) to
    ``folder/results.jsonl``, as :func:`save_results` does. ``items[i]``, when given, is
    record i's rows, or an items file to copy as it is: either is written first to
    ``items/<id>.tsv.gz``, which the record then names (its ``items_file``)."""
    folder = Path(folder)
    path = folder / RESULTS_FILE
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    pending: list[tuple[Path, Path]] = []  # (temporary, final) items files
    placed: list[Path] = []
    try:
        for i, record in enumerate(records):
            rows = items[i] if i < len(items) else None
            if rows is not None:
                record = {**record, "items_file": f"{ITEMS_FOLDER}/{record['id']}.tsv.gz"}
                final = folder / record["items_file"]
                final.parent.mkdir(exist_ok=True)
                pending.append((partial_path(final), final))
                if isinstance(rows, Path):
                    shutil.copyfile(rows, pending[-1][0])
                else:
                    write_items(pending[-1][0], rows, level)
                fsync_file(pending[-1][0])
            out.append(record)
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in out)
        with _lock(folder):
            clean_folder(folder)
            for tmp, final in pending:
                existed = final.exists()  # the same record saved again: its file stays ours
                os.replace(tmp, final)
                if not existed:
                    placed.append(final)
            if placed:
                fsync_dir(folder / ITEMS_FOLDER)
            _append(path, text.encode("utf-8"))
    except BaseException as exc:
        remove([tmp for tmp, _ in pending] + placed)
        if isinstance(exc, OSError) and exc.errno and not exc.filename:
            raise named(exc, folder) from None  # a full disk: say which folder
        raise
    return path


@contextmanager
def _lock(folder: Path) -> Iterator[None]:
    """The folder's writers' lock: an exclusive ``flock`` on the folder itself, so no lock
    file is created or left behind. (A lock file deleted after use would not be safe: a
    writer waiting on the deleted file and one locking a new file would both hold "the"
    lock.) Where there is no ``flock`` (Windows), a ``results.jsonl.lock`` file instead."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on POSIX
        from filelock import FileLock

        with FileLock(str(folder / LOCK_FILE), mode=0o600):
            yield
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # released when the descriptor is closed
        yield
    finally:
        os.close(fd)


def _append(path: Path, data: bytes) -> None:
    """Append ``data`` to ``path`` in one write, after setting aside a torn tail; on an error
    (a full disk) the file is cut back to its old end, so no part of ``data`` stays."""
    if path.exists():
        _set_aside_torn_tail(path)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        end = os.fstat(fd).st_size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        except BaseException:
            os.ftruncate(fd, end)
            raise
    finally:
        os.close(fd)


def clean_folder(folder: str | Path) -> list[Path]:
    """Remove what killed writers left in a results folder (:func:`leftovers`), and say so on
    standard error. The caller holds the folder's lock. Returns the paths removed."""
    folder = Path(folder)
    removed = remove(leftovers(folder))
    if removed:
        shown = ", ".join(str(p.relative_to(folder)) for p in removed[:5])
        more = f" and {len(removed) - 5} more" if len(removed) > 5 else ""
        sys.stderr.write(
            f"note: {folder}: removed {len(removed)} file(s) left by an interrupted write "
            f"({shown}{more})\n"
        )
    return removed


def leftovers(folder: str | Path) -> list[Path]:
    """What killed writers left in a results folder: temporaries of processes that are gone,
    and items files that no line of ``results.jsonl`` or ``results.jsonl.torn`` mentions (see
    the module docstring); never any other file. When a line of ``results.jsonl`` (but a torn
    last one) is not a JSON record, what it named cannot be told: no items file is judged
    unused."""
    folder = Path(folder)
    items = folder / ITEMS_FOLDER
    found = stale_partials(folder) + stale_partials(items)
    try:
        names = [p for p in items.iterdir() if ITEMS_NAME.fullmatch(p.name)]
    except OSError:
        names = []
    if names:
        mentioned: set[str] = set()
        texts = []
        for name in (RESULTS_FILE, TORN_FILE):
            try:
                texts.append((folder / name).read_text(encoding="utf-8", errors="replace"))
            except FileNotFoundError:
                texts.append("")
            except OSError:  # records that cannot be read: no items file is judged unused
                return found
            mentioned.update(ITEMS_NAME.findall(texts[-1]))
        unused = [p for p in names if p.name not in mentioned]
        if unused and _all_records(texts[0]):
            found += unused
    return found


def _all_records(text: str) -> bool:
    """Whether every line of a results file's ``text`` is a JSON object, but a torn last
    line (no line end), which the next writer sets aside."""
    lines = text.split("\n")
    for line in lines[:-1]:
        if not line.strip():
            continue
        try:
            if not isinstance(json.loads(line), dict):
                return False
        except json.JSONDecodeError:
            return False
    return True


def load_results(folder: str | Path, allow_empty: bool = True) -> list[dict[str, Any]]:
    """Every record of ``folder/results.jsonl``, each checked
    (:func:`~simeval.results.record.check_record`). A malformed line or record is an error
    naming it, but a torn final line (no line end) is skipped with a warning. A file without
    a record is an error unless ``allow_empty`` (the reports have nothing to show).

    Reading changes nothing in the folder: what a killed writer left stays until the next
    writer takes the lock (:func:`save_records`).

    Examples:
        >>> import tempfile, simeval
        >>> folder = tempfile.mkdtemp()
        >>> _ = simeval.evaluate("overlap", "mc30", "rg65", results_dir=folder)
        >>> [(r["benchmark"], r["main_metric"]) for r in simeval.load_results(folder)]
        [('mc30', 'spearman'), ('rg65', 'spearman')]
    """
    path = Path(folder) / RESULTS_FILE
    if not path.is_file():
        raise InputError(path, None, "no results file")
    lines = _records_text(path).split("\n")
    out = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            if number == len(lines):  # the last line has no line end: a write cut short
                _report(InputWarning(str(path), number, "a torn record (no line end) is skipped"))
                continue
            raise InputError(path, number, f"not a JSON record: {exc.msg}") from None
        out.append(check_record(record, path, number))
    if not out and not allow_empty:
        raise InputError(path, None, "no result records (the file is empty)")
    return out


def _records_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InputError(path, None, f"cannot read the results: {exc.strerror or exc}") from None


def load_items(folder: str | Path, record: dict[str, Any]) -> Items | None:
    """The per-item rows of ``record`` (None for records saved without them)."""
    name = record.get("items_file")
    if not name:
        return None
    path = Path(folder) / name
    if not path.is_file():
        raise InputError(path, None, f"the items of result {record.get('id')} are missing")
    return read_items(path)


def system_name(system: dict[str, Any]) -> str:
    """How a system is named in tables: its given name, measure spec or submission path."""
    return str(system.get("name") or system.get("spec") or system.get("path") or "unnamed")
