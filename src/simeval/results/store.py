"""The results folder: ``results.jsonl`` (one Result record per line) and ``items/`` beside it.

Records are appended, never rewritten, so re-running a measure adds a newer record; readers
take the latest record of each (system, benchmark). Each record names its items file
(``items/<id>.tsv.gz``, see ``tasks/items.py``), from which reports compute intervals, subsets
and comparisons.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from simeval.errors import InputError
from simeval.results.items import Items, read_items, write_items
from simeval.results.record import Result

RESULTS_FILE = "results.jsonl"
ITEMS_FOLDER = "items"


def save_results(folder: str | Path, results: Sequence[Result]) -> Path:
    """Append results to ``folder/results.jsonl`` (created if needed), their items beside.

    Items are written first, so a record never names a file that is not there.
    """
    folder = Path(folder)
    path = folder / RESULTS_FILE
    folder.mkdir(parents=True, exist_ok=True)
    for r in results:
        if r.items is not None:
            r.items_file = f"{ITEMS_FOLDER}/{r.id}.tsv.gz"
            write_items(folder / r.items_file, r.items)
    with open(path, "a", encoding="utf-8") as f:
        for r in results:
            f.write(r.to_json() + "\n")
    return path


def load_results(folder: str | Path) -> list[dict[str, Any]]:
    """Every record of ``folder/results.jsonl``; a malformed line is an error naming it."""
    path = Path(folder) / RESULTS_FILE
    if not path.is_file():
        raise InputError(path, None, "no results file")
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if line.strip():
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(path, number, f"not a JSON record: {exc.msg}") from None
            for key in ("benchmark", "task", "main_metric", "metrics"):
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
