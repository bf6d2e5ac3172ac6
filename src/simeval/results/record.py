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
from pathlib import Path, PurePosixPath
from typing import Any

from simeval.errors import InputError, InputWarning
from simeval.metrics.catalog import bounds

CONSTANT = "constant"  # the flag of a result whose counted scores are all equal
REQUIRED = ("benchmark", "task", "main_metric", "metrics")  # every record read back has them


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
        """A JSON-ready dict; NaN metrics (the breakdown's parts' too) become null."""
        d = {
            f.name: copy.deepcopy(getattr(self, f.name)) for f in fields(self) if f.name != "items"
        }
        d["metrics"] = _nulled(self.metrics)
        d["breakdown"] = {part: _nulled(values) for part, values in self.breakdown.items()}
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=False)


def _nulled(metrics: dict[str, Any]) -> dict[str, Any]:
    """``metrics`` with NaN values as None (JSON null: undefined)."""
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in metrics.items()}


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


# -- a record read back ------------------------------------------------------------------------


def check_record(record: Any, path: str | Path, line: int) -> dict[str, Any]:
    """``record`` (line ``line`` of ``path``, parsed) if it is a result record readers can
    trust, else an :class:`InputError` naming the line and the key: the fields of
    :data:`REQUIRED` present, names as strings, every metric a finite number or null and
    within its declared bounds (:attr:`simeval.metrics.declared.Metric.bounds`), the main
    metric among them, and the optional fields of the types :meth:`Result.to_dict` writes."""

    def fail(message: str) -> InputError:
        return InputError(path, line, message)

    if not isinstance(record, dict):
        raise fail("expected a JSON object (a result record)")
    for key in REQUIRED:
        if key not in record:
            raise fail(f"the record has no {key!r}")
    for key in ("benchmark", "task", "main_metric", "id", "created"):
        if key in record and not isinstance(record[key], str):
            raise fail(f"{key!r}: expected a string, got {_shown(record[key])}")
    for key in ("metrics", "system", "coverage", "breakdown", "settings", "data"):
        if key in record and not isinstance(record[key], dict):
            raise fail(f"{key!r}: expected an object, got {_shown(record[key])}")
    task = record["task"]
    for name, value in record["metrics"].items():
        _check_metric(value, bounds(name, task), f"'metrics' {name!r}", fail)
    if record["main_metric"] not in record["metrics"]:
        raise fail(f"'main_metric' {record['main_metric']!r} is not one of its metrics")
    for part, values in record.get("breakdown", {}).items():
        if not isinstance(values, dict):
            raise fail(f"'breakdown' {part!r}: expected an object, got {_shown(values)}")
        for name, value in values.items():
            _check_metric(value, bounds(name, task), f"'breakdown' {part!r} {name!r}", fail)
    for name, value in record.get("coverage", {}).items():
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise fail(f"'coverage' {name!r}: expected a count, got {_shown(value)}")
    if "seconds" in record:
        _check_metric(record["seconds"], (0.0, math.inf), "'seconds'", fail)
    for key in ("warnings", "flags"):
        found = record.get(key, [])
        if not isinstance(found, list) or not all(isinstance(w, str) for w in found):
            raise fail(f"{key!r}: expected a list of strings, got {_shown(found)}")
    _check_items_file(record.get("items_file"), fail)
    return record


def _check_metric(value: Any, limits: tuple[float, float] | None, key: str, fail: Any) -> None:
    """A metric's value: null, or a finite number within ``limits`` (when it has them)."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise fail(f"{key}: {_shown(value)} is not a number (expected a number or null)")
    if not math.isfinite(value):
        raise fail(f"{key}: {value} is not finite (an undefined value is written null)")
    if limits is not None:
        low, high = limits
        slack = 1e-12 * max(1.0, abs(low), abs(high) if math.isfinite(high) else 1.0)
        if not low - slack <= value <= high + slack:
            raise fail(f"{key}: {value!r} is outside [{_bound(low)}, {_bound(high)}]")


def _check_items_file(name: Any, fail: Any) -> None:
    """``items_file``: absent, null, or a relative path that stays inside the folder."""
    if name is None:
        return
    parts = PurePosixPath(name).parts if isinstance(name, str) else ("..",)
    if not parts or PurePosixPath(name).is_absolute() or ".." in parts or "\\" in name:
        raise fail(
            f"'items_file': expected a path inside the results folder "
            f"(items/<id>.tsv.gz), got {_shown(name)}"
        )


def _bound(x: float) -> str:
    return f"{x:g}" if math.isfinite(x) else "inf"


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 60 else text[:60] + "…"
