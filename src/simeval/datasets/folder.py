"""What every builder writes: one folder with the data, ``manifest.json`` and ``log.tsv``.

``manifest.json`` records the builder, its settings and seed, the sha256 of every input, the
counts of each step, and — when the folder is a benchmark — ``benchmark``: the file and task
kind that ``simeval evaluate MEASURE -b FOLDER`` reads (:func:`simeval.registry.from_path`).
``log.tsv`` has one row per decision (what, item, outcome, why), so a dataset can be audited.

The folder is written under a temporary name beside the target and renamed at the end: a build
cut short leaves nothing that looks finished, and an existing folder is never overwritten.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simeval.data.atomic import staged
from simeval.datasets.tables import write_table
from simeval.errors import InputError

MANIFEST = "manifest.json"
LOG = "log.tsv"


@dataclass
class Build:
    """A folder being built: write data files into ``path``, add log rows and counts."""

    path: Path
    builder: str
    settings: dict[str, Any]
    inputs: dict[str, str] = field(default_factory=dict)  # file -> sha256
    counts: dict[str, Any] = field(default_factory=dict)
    benchmark: dict[str, str] | None = None  # {"file": ..., "kind": graded|related|sts}
    log: list[tuple[str, ...]] = field(default_factory=list)

    def note(self, step: str, item: str, outcome: str, why: str = "") -> None:
        """One decision: the step, the item it concerns, what happened and why."""
        self.log.append((step, item, outcome, why))

    def manifest(self) -> dict[str, Any]:
        out = {
            "builder": self.builder,
            "settings": self.settings,
            "inputs": self.inputs,
            "counts": self.counts,
        }
        if self.benchmark:
            out["benchmark"] = self.benchmark
        return out


@contextmanager
def building(out: str | Path, builder: str, settings: dict[str, Any]) -> Iterator[Build]:
    """Build into ``out`` (module docstring); the caller writes its files into ``build.path``."""
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError(out, None, "exists and is not empty: choose a new folder (nothing lost)")
    with staged(out, folder=True) as partial:  # an empty ``out`` is replaced
        build = Build(partial, builder, settings)
        yield build
        (partial / MANIFEST).write_text(
            json.dumps(build.manifest(), ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
        )
        write_table(partial / LOG, ("step", "item", "outcome", "why"), build.log, "\t")
    build.path = out
