"""The Result record: one benchmark scored for one system, as plain JSON-ready data."""

from __future__ import annotations

import copy
import functools
import json
import math
import platform
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import Any

from simeval.errors import InputWarning

CONSTANT = "constant"  # the flag of a result whose counted scores are all equal


@functools.cache
def _version(name: str) -> str:
    """An installed distribution's version, looked up once a process (each look-up scans
    every folder of sys.path: 6 ms, paid by every result record otherwise)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:  # pragma: no cover
        return "unknown"


def package_versions() -> dict[str, str]:
    """Versions of simeval and of the libraries its numbers depend on."""
    import sys

    out = {"python": platform.python_version()}
    heavy = ("torch", "sentence-transformers", "gensim", "pymorphy3")
    loaded = [n for n in heavy if n.replace("-", "_") in sys.modules]
    for name in ("simeval", "numpy", "scipy", *loaded):
        out[name] = _version(name)
    return out


def machine() -> dict[str, Any]:
    """Where a result was computed."""
    import os

    return {
        "host": platform.node(),
        "system": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count() or 0,
    }


@dataclass
class Result:
    """Every metric of one benchmark for one system, with what is needed to trust it.

    ``coverage`` counts items: ``gold`` (items in the benchmark), ``scored`` (items the system
    scored), ``missing`` (gold items without a score), ``extra`` (scored items not in the gold).
    ``data`` maps every data file read to its sha256; ``system`` describes the submission file
    or the measure. ``items`` holds the per-item rows (``tasks/items.py``) that statistics are
    computed from; they are saved to ``items_file`` beside the results, not in the record.
    """

    benchmark: str
    task: str
    main_metric: str
    metrics: dict[str, float]
    coverage: dict[str, int] = field(default_factory=dict)
    system: dict[str, Any] = field(default_factory=dict)
    data: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=package_versions)
    machine: dict[str, Any] = field(default_factory=machine)
    created: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    seconds: float = 0.0
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:16])
    # per-item rows (tasks/items.py); saved beside the record, not inside it
    items: dict[str, Any] | None = field(default=None, repr=False, compare=False)
    items_file: str | None = None
    # the main metrics again within named parts of the benchmark (linking: per source)
    breakdown: dict[str, dict[str, float]] = field(default_factory=dict)
    # what a reader must know to read the numbers: CONSTANT = every counted score is the
    # same, so the ranking metrics measure no information (RUSSE AP 0.75 on a half-related set)
    flags: list[str] = field(default_factory=list)

    @property
    def score(self) -> float:
        return self.metrics[self.main_metric]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict; NaN metrics become null."""
        d = {
            f.name: copy.deepcopy(getattr(self, f.name)) for f in fields(self) if f.name != "items"
        }
        d["metrics"] = {
            k: (None if isinstance(v, float) and math.isnan(v) else v)
            for k, v in self.metrics.items()
        }
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=False)


class Timer:
    """Context manager measuring wall time in seconds."""

    def __enter__(self) -> Timer:
        self.start = time.perf_counter()
        self.seconds = 0.0
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self.start


def json_lines(results: Iterable[Result]) -> str:
    """The records as JSON lines (what ``--json`` prints)."""
    return "".join(r.to_json() + "\n" for r in results)


def warning_texts(warnings: list[InputWarning]) -> list[str]:
    return [str(w) for w in warnings]
