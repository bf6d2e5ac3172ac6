"""A results folder as a grid: the latest record of every (system, benchmark)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simeval.engine import active
from simeval.errors import InputError
from simeval.kinds import TaskKind, canonical, kind
from simeval.kinds.rows import ItemMetrics
from simeval.metrics import catalog
from simeval.metrics.stats import DEFAULT_RESAMPLING, Interval, Resampling, bootstrap_intervals
from simeval.report import ties
from simeval.results.items import Items
from simeval.results.record import CONSTANT
from simeval.results.store import load_items, load_results, system_name


@dataclass
class Entry:
    """One system's latest result on one benchmark."""

    system: str
    record: dict[str, Any]
    folder: Path
    _items: Items | None = field(default=None, repr=False)
    _no_information: bool | None = field(default=None, repr=False)

    @property
    def benchmark(self) -> str:
        return str(self.record["benchmark"])

    @property
    def task(self) -> str:
        return canonical(str(self.record["task"]))

    @property
    def kind(self) -> TaskKind:
        return kind(self.task)

    @property
    def main_metric(self) -> str:
        return str(self.record["main_metric"])

    @property
    def higher_is_better(self) -> bool:
        """The main metric's declared ranking direction."""
        return catalog.higher_is_better(self.main_metric, self.task)

    @property
    def score(self) -> float:
        value = self.record["metrics"].get(self.main_metric)
        return float("nan") if value is None else float(value)

    @property
    def has_items(self) -> bool:
        """Per-item rows in memory (a result just computed) or in the folder's items file."""
        return self._items is not None or bool(self.record.get("items_file"))

    @property
    def no_information(self) -> bool:
        """Constant scores, or nearly so (:mod:`simeval.report.ties`): never crowned. Worked
        out once (a report asks every compare, tier and table: hundreds of times)."""
        if self._no_information is None:
            flagged = CONSTANT in self.record.get("flags", [])
            self._no_information = flagged or (self.has_items and ties.no_information(self.items()))
        return self._no_information

    def items(self) -> Items:
        """The per-item rows (read once); an error when the record was saved without them."""
        if self._items is None:
            found = load_items(self.folder, self.record)
            if found is None:
                raise InputError(
                    self.folder / "results.jsonl",
                    None,
                    f"{self.system} on {self.benchmark} has no per-item rows (recorded by an "
                    "older simeval); evaluate it again to get intervals and tests",
                )
            self._items = found
        return self._items


@dataclass
class Grid:
    """Systems × benchmarks, in the order they were first recorded."""

    entries: dict[tuple[str, str], Entry]
    systems: list[str]
    benchmarks: list[str]

    def get(self, system: str, benchmark: str) -> Entry | None:
        return self.entries.get((system, benchmark))

    def scores(self, metric: str | None = None) -> dict[str, dict[str, float]]:
        """system → benchmark → main score (or ``metric``, where it was recorded)."""
        out: dict[str, dict[str, float]] = {s: {} for s in self.systems}
        for (s, b), e in self.entries.items():
            if metric is None:
                out[s][b] = e.score
            elif (value := e.record["metrics"].get(metric)) is not None:
                out[s][b] = float(value)
        return out

    def flagged(self, flag: str = CONSTANT) -> set[tuple[str, str]]:
        """(system, benchmark) pairs whose record carries ``flag``."""
        return {k for k, e in self.entries.items() if flag in e.record.get("flags", [])}

    def no_information(self) -> set[tuple[str, str]]:
        """(system, benchmark) pairs whose scores carry no information (constant, or at least
        99% tied: :mod:`simeval.report.ties`); reading the per-item rows where there are."""
        return {k for k, e in self.entries.items() if e.no_information}

    def main_metric(self, benchmark: str) -> str:
        return next(e.main_metric for (_, b), e in self.entries.items() if b == benchmark)

    def higher_is_better(self, benchmark: str, metric: str | None = None) -> bool:
        """The declared ranking direction of the benchmark's main metric (or ``metric``)."""
        e = next(e for (_, b), e in self.entries.items() if b == benchmark)
        return catalog.higher_is_better(metric or e.main_metric, e.task)

    def lower(self, metric: str | None = None) -> set[str]:
        """The benchmarks whose main metric (or ``metric``) ranks lower first."""
        return {b for b in self.benchmarks if not self.higher_is_better(b, metric)}

    def resolve(self, name: str) -> str:
        """A system by its full name, or by a unique part of it."""
        if name in self.systems:
            return name
        found = [s for s in self.systems if name in s]
        if len(found) == 1:
            return found[0]
        known = "; ".join(self.systems)
        what = "matches several systems" if found else "is not a system here"
        raise InputError(None, None, f"{name!r} {what}; systems: {known}")


def intervals(entry: Entry, how: Resampling = DEFAULT_RESAMPLING) -> dict[str, Interval]:
    """Every metric's percentile bootstrap interval from the entry's per-item rows, drawn as
    its kind resamples (the report's intervals, :func:`simeval.metrics.stats.bootstrap`);
    none for a record without rows."""
    if not entry.has_items:
        return {}
    metric = ItemMetrics(entry.task, entry.items())
    return bootstrap_intervals(metric, metric.n, how.of(metric).on(active()))


def load_grid(folder: str | Path) -> Grid:
    """Read ``folder/results.jsonl`` (a file without a record is an error); a later record of
    the same system and benchmark wins."""
    return grid_of(load_entries(folder))


def load_entries(folder: str | Path) -> list[Entry]:
    """Every record of ``folder/results.jsonl`` as an entry, in the order recorded (a file
    without a record is an error)."""
    return [Entry(system_name(r.get("system", {})), r, Path(folder)) for r in
            load_results(folder, allow_empty=False)]  # fmt: skip


# what tells two systems apart besides their name: a measure's spec, a submission's path(s)
IDENTITY = ("spec", "path", "files")


def _identity(entry: Entry) -> tuple[Any, ...] | None:
    """What identifies the entry's system besides its name, or None when nothing does (a
    result of predictions in memory: ``{"kind": "predictions"}``)."""
    system = entry.record.get("system", {})
    found = tuple(str(system.get(k)) if system.get(k) else None for k in IDENTITY)
    return found if any(found) else None


def name_clash(entries: list[Entry], reruns: bool = True) -> tuple[str, str] | None:
    """The first (system name, benchmark) two entries share that a grid would make one row,
    or None. With ``reruns`` (a results folder) a later record of the same system (the same
    spec or submission path) replaces the earlier one, as :func:`grid_of` intends; two
    systems that only share a name (given by ``--name``, or "unnamed") clash. Without (results
    in memory), any two entries of one name on one benchmark clash."""
    seen: dict[tuple[str, str], tuple[Any, ...] | None] = {}
    for e in entries:
        key, found = (e.system, e.benchmark), _identity(e)
        if key in seen and not (reruns and found is not None and seen[key] == found):
            return key
        seen[key] = found
    return None


def entry_of(result: Any) -> Entry:
    """A result held in memory (:class:`~simeval.results.record.Result`, with its per-item
    rows) as an entry of a grid."""
    record = result.to_dict()
    return Entry(system_name(record.get("system", {})), record, Path("."), result.items)


def grid_of(found: list[Entry]) -> Grid:
    """Entries as a grid; a later entry of the same system and benchmark wins."""
    entries: dict[tuple[str, str], Entry] = {}
    systems: dict[str, None] = {}  # insertion-ordered sets: a list's ``in`` made this quadratic
    benchmarks: dict[str, None] = {}
    for entry in found:
        system, bench = entry.system, entry.benchmark
        entries[(system, bench)] = entry
        systems.setdefault(system)
        benchmarks.setdefault(bench)
    return Grid(entries, list(systems), list(benchmarks))
