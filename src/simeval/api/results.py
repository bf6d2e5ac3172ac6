"""Result records kept and read back: a results folder's ``results.jsonl`` as records or as a
pandas DataFrame."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from simeval.results.record import Result
from simeval.results.store import load_results, save_results, system_name

__all__ = ["keep_results", "load_results", "results_frame", "save_results"]


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


def results_frame(folder: str | Path) -> Any:
    """Results as a pandas DataFrame: a row per result, a column per metric (``pandas``)."""
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover
        raise ImportError("results_frame needs pandas: pip install 'simeval[frames]'") from exc
    rows = []
    for r in load_results(folder):
        row = {
            "benchmark": r["benchmark"],
            "measure": system_name(r["system"]),
            "main_metric": r["main_metric"],
            "score": r["metrics"].get(r["main_metric"]),
            **{f"metric.{k}": v for k, v in r["metrics"].items()},
            **{f"coverage.{k}": v for k, v in r["coverage"].items()},
            "seconds": r["seconds"],
            "created": r["created"],
        }
        rows.append(row)
    return pd.DataFrame(rows)
