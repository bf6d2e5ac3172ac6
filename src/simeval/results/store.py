"""The results folder: ``results.jsonl`` (one Result record per line) and ``items/`` beside it.

Records are appended, never rewritten, so re-running a measure adds a newer record; readers
take the latest record of each (system, benchmark). Each record names its items file
(``items/<id>.tsv.gz``, :mod:`simeval.results.items`), from which reports compute intervals,
subsets and comparisons.

A write cut short (a killed process, a full disk) loses at most the records being written:

- items files are written under a temporary name and renamed, and before the record that names
  them, so a record never names a missing or half-written file (items whose record never
  landed are never read);
- records are appended under a lock (``results.jsonl.lock``), all of one call in one write;
- a final line without its line end is a torn record: readers skip it with a warning naming
  the line, and the next writer moves it to ``results.jsonl.torn`` before appending, so a new
  record never lands on a partial line.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from simeval.data.atomic import staged
from simeval.errors import InputError, InputWarning
from simeval.results.items import Items, read_items, write_items
from simeval.results.record import Result

RESULTS_FILE = "results.jsonl"
ITEMS_FOLDER = "items"
TORN_FILE = "results.jsonl.torn"
REQUIRED = ("benchmark", "task", "main_metric", "metrics")


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
    from filelock import FileLock

    folder = Path(folder)
    path = folder / RESULTS_FILE
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for i, record in enumerate(records):
        rows = items[i] if i < len(items) else None
        if rows is not None:
            record = {**record, "items_file": f"{ITEMS_FOLDER}/{record['id']}.tsv.gz"}
            final = folder / record["items_file"]
            final.parent.mkdir(exist_ok=True)
            with staged(final) as partial:
                if isinstance(rows, Path):
                    shutil.copyfile(rows, partial)
                else:
                    write_items(partial, rows, level)
        out.append(record)
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in out)
    with FileLock(str(path) + ".lock"):
        if path.exists():
            _set_aside_torn_tail(path)
        with open(path, "a", encoding="utf-8") as f:
            f.write(text)
    return path


def load_results(folder: str | Path) -> list[dict[str, Any]]:
    """Every record of ``folder/results.jsonl``. A malformed line is an error naming it, but
    a torn final line (no line end) is skipped with a warning."""
    path = Path(folder) / RESULTS_FILE
    if not path.is_file():
        raise InputError(path, None, "no results file")
    text = path.read_text(encoding="utf-8", errors="replace")
    lines = text.split("\n")
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
        if not isinstance(record, dict):
            raise InputError(path, number, "expected a JSON object (a result record)")
        for key in REQUIRED:
            if key not in record:
                raise InputError(path, number, f"the record has no {key!r}")
        out.append(record)
    return out


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
