"""Result records kept and read back: a results folder's ``results.jsonl`` as records or as a
pandas DataFrame."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simeval.api.options import LEVEL, REPLICATES, SEED, checked
from simeval.errors import InputError
from simeval.results.record import Result
from simeval.results.store import load_results as _load_results
from simeval.results.store import save_results, system_name

load_results = checked()(_load_results)  # the store's reader, its keywords checked

__all__ = [
    "ResultsTable",
    "keep_results",
    "load_results",
    "results_frame",
    "results_table",
    "save_results",
]


def keep_results(
    results: Sequence[Result], folder: str | Path | None, name: str | None = None
) -> Path | None:
    """Name the system ``name`` (when given) in every record and append the records, with
    their per-item rows, to ``folder``'s results file (when a folder is given).

    Returns:
        The results file written to, or None when no folder was given.
    """
    for r in results:
        if name:
            r.system["name"] = name
    if folder is None:
        return None
    return save_results(folder, results)


@checked(REPLICATES, SEED, LEVEL)
def results_frame(
    results: str | Path | Sequence[Result | dict[str, Any]],
    ci: bool = False,
    replicates: int = REPLICATES.default,
    seed: int = SEED.default,
    level: float = LEVEL.default,
) -> Any:
    """Results as a pandas DataFrame: a row per result, a column per metric (``pandas``).

    Args:
        results: a results folder (one without a record is an error), or records in
            memory (what ``simeval.evaluate`` and ``simeval.score`` return, or their
            ``to_dict()``).
        ci: also each metric's percentile bootstrap interval at ``level`` from the result's
            per-item rows (``replicates``, ``seed``; the report's intervals, drawn as the
            benchmark's kind resamples): ``lower`` and ``upper`` for the main score,
            ``metric.NAME.lower`` and ``metric.NAME.upper`` for each metric; NaN for a record
            without per-item rows (a ``to_dict()``, an older record).

    Examples:
        >>> import simeval
        >>> gold = simeval.benchmark_from_pairs([("a", "b", 1.0), ("c", "d", 2.0), ("e", "f", 3.0)])
        >>> frame = simeval.results_frame(simeval.score(gold, [0.1, 0.3, 0.2]))
        >>> frame[["benchmark", "main_metric", "score"]].to_dict("records")
        [{'benchmark': 'pairs', 'main_metric': 'spearman', 'score': 0.5}]
    """
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover
        raise ImportError("results_frame needs pandas: pip install 'simeval[frames]'") from exc
    if isinstance(results, str | Path):
        records = load_results(results, allow_empty=False)
    else:
        records = [r.to_dict() if isinstance(r, Result) else r for r in results]
    if ci:
        from simeval.metrics.stats import Resampling

        cis = _intervals(results, Resampling(replicates, seed, level))
    rows = []
    for i, r in enumerate(records):
        row = {
            "benchmark": r["benchmark"],
            "measure": system_name(r.get("system", {})),
            "main_metric": r["main_metric"],
            "score": r["metrics"].get(r["main_metric"]),
            **{f"metric.{k}": v for k, v in r["metrics"].items()},
            **{f"coverage.{k}": v for k, v in r.get("coverage", {}).items()},
            "seconds": r.get("seconds"),
            "created": r.get("created"),
        }
        if ci:
            row |= _interval_columns(r, cis[i])
        rows.append(row)
    return pd.DataFrame(rows)


def _intervals(results: Any, how: Any) -> list[dict[str, Any]]:
    """Each result's metric intervals (:func:`simeval.report.collect.intervals`), in order;
    none for a record given as a dict (its rows are not at hand)."""
    from simeval.report.collect import entry_of, intervals, load_entries

    if isinstance(results, str | Path):
        return [intervals(e, how) for e in load_entries(results)]
    return [intervals(entry_of(r), how) if isinstance(r, Result) else {} for r in results]


def _interval_columns(record: dict[str, Any], found: dict[str, Any]) -> dict[str, float]:
    """``lower``/``upper`` of the main score and ``metric.NAME.lower``/``.upper``."""
    nan = float("nan")
    out = {}
    for k in record["metrics"]:
        interval = found.get(k)
        out[f"metric.{k}.lower"] = nan if interval is None else interval.low
        out[f"metric.{k}.upper"] = nan if interval is None else interval.high
    main = record["main_metric"]
    return {"lower": out.get(f"metric.{main}.lower", nan),
            "upper": out.get(f"metric.{main}.upper", nan), **out}  # fmt: skip


@dataclass(frozen=True)
class ResultsTable:
    """The latest value of one metric per (benchmark, measure): ``rows`` are (benchmark, metric
    name, {measure: value}), in the order the results were recorded; ``coverage``: each
    value's (scored, gold) items, by (benchmark, measure), where the record says."""

    measures: list[str]
    rows: list[tuple[str, str, dict[str, float]]]
    coverage: dict[tuple[str, str], tuple[int, int]] = field(default_factory=dict)


@checked()
def results_table(
    folder: str | Path,
    metric: str | None = None,
    benchmarks: Sequence[str] = (),
    registry: Any = None,
) -> ResultsTable:
    """What ``simeval results`` shows: each benchmark's main metric (or ``metric``, for the
    benchmarks whose results have it) for every measure, the latest record of a pair winning.
    An unknown ``metric`` is an :class:`~simeval.errors.InputError` listing the known ones.
    ``benchmarks``: only these rows (and the measures that have one), a suite of the catalog
    or of the ``registry`` files standing for its members
    (:func:`simeval.api.targets.recorded_benchmarks`).

    Examples:
        >>> import tempfile, simeval
        >>> folder = tempfile.mkdtemp()
        >>> _ = simeval.evaluate("orthographic:kind=prefix", "mc30", results_dir=folder)
        >>> table = simeval.results_table(folder)
        >>> table.measures, [(bench, metric) for bench, metric, _ in table.rows]
        (['orthographic:kind=prefix'], [('mc30', 'spearman')])
        >>> len(simeval.load_results(folder))
        1
    """
    frame = results_frame(folder)
    if metric is not None:
        column = f"metric.{metric}"
        known = sorted(c.removeprefix("metric.") for c in frame if c.startswith("metric."))
        if column not in frame:
            raise InputError(folder, None, f"no result has a metric {metric!r}; metrics: {known}")
        frame = frame[frame[column].notna()].assign(score=frame[column], main_metric=metric)
    latest = frame.drop_duplicates(["measure", "benchmark"], keep="last")
    rows = [
        (
            str(bench),
            str(group["main_metric"].iloc[0]),
            dict(zip(map(str, group["measure"]), map(float, group["score"]), strict=True)),
        )
        for bench, group in latest.groupby("benchmark", sort=False)
    ]
    if benchmarks:
        from simeval.api.targets import recorded_benchmarks

        by_name = {row[0]: row for row in rows}
        chosen = recorded_benchmarks(benchmarks, list(by_name), str(folder), registry)
        rows = [by_name[b] for b in chosen]
        latest = latest[latest["benchmark"].isin([row[0] for row in rows])]
    return ResultsTable([str(m) for m in dict.fromkeys(latest["measure"])], rows, _coverage(latest))


def _coverage(frame: Any) -> dict[tuple[str, str], tuple[int, int]]:
    """(scored, gold) of each (benchmark, measure) of ``frame`` whose record counts both."""
    if "coverage.scored" not in frame or "coverage.gold" not in frame:
        return {}
    known = frame[frame["coverage.scored"].notna() & frame["coverage.gold"].notna()]
    return {
        (str(b), str(m)): (int(s), int(g))
        for b, m, s, g in zip(
            known["benchmark"],
            known["measure"],
            known["coverage.scored"],
            known["coverage.gold"],
            strict=True,
        )
    }
