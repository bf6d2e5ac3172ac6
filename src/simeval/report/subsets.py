"""Subsets of a benchmark's items, and a result's main metric on each with an interval.

Named views (from the seed papers), declared by the benchmarks' registry entries
(:mod:`simeval.registry`):

- ``simlex999``: ``POS`` (A, N, V); ``concreteness``: quartiles of conc(w1) + conc(w2), as the
  SimLex-999 paper splits them; ``SimAssoc333``: the 333 most associated pairs vs the rest;
- ``wordsim353``: the ``similarity`` and ``relatedness`` splits of Agirre et al. (2009)
  (they overlap: unrelated pairs belong to both);
- a suite (``sts12``, ``russe``): one subset per member benchmark.

``--by COLUMN`` groups by any item column: by value, or by quartile when the column holds
numbers with more than 8 distinct values.

Quartiles: with edges q1 ≤ q2 ≤ q3 the 25/50/75th percentiles (linear interpolation), Q1 holds
v ≤ q1, Q2 q1 < v ≤ q2, Q3 q2 < v ≤ q3, Q4 v > q3 (``pandas.qcut``'s intervals).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simeval.engine import active
from simeval.errors import InputError
from simeval.kinds import main_metric
from simeval.kinds.base import View
from simeval.kinds.rows import ItemMetrics
from simeval.metrics.stats import DEFAULT_RESAMPLING, Interval, Resampling, bootstrap_intervals
from simeval.registry import Registry
from simeval.results.items import Items


@dataclass(frozen=True)
class Subset:
    view: str
    label: str
    mask: np.ndarray


@dataclass(frozen=True)
class SubsetScore:
    subset: Subset
    task: str
    value: float
    interval: Interval
    n: int
    metric: str = ""  # the main metric of the subset's kind (a suite's: its aggregate)


def quartiles(values: np.ndarray) -> np.ndarray:
    """Quartile 1-4 of each value (module docstring)."""
    edges = np.percentile(values, [25, 50, 75])
    return np.searchsorted(edges, values, side="left") + 1


def _numeric(column: np.ndarray) -> np.ndarray | None:
    try:
        return np.asarray(column, dtype=float)
    except ValueError:
        return None


def by_column(items: Items, column: str, view: str | None = None) -> list[Subset]:
    """Subsets by the values of ``column`` (quartiles for many distinct numbers)."""
    if column not in items:
        raise InputError(None, None, f"no item column {column!r}; columns: {', '.join(items)}")
    values = items[column]
    numbers = _numeric(values)
    if numbers is not None and len(np.unique(numbers)) > 8:
        q = quartiles(numbers)
        return [Subset(view or column, f"Q{k}", q == k) for k in range(1, 5)]
    labels = list(dict.fromkeys(str(v) for v in values))
    if numbers is not None:
        labels.sort(key=float)
    text = values.astype(str)
    return [Subset(view or column, label, text == label) for label in labels]


def view_subsets(view: View, items: Items) -> list[Subset]:
    """The subsets one registry view (:class:`simeval.kinds.base.View`) makes of items."""
    if view.how == "column":
        return by_column(items, view.columns[0], view.name)
    if view.how == "quartiles":
        total = sum(items[c].astype(float) for c in view.columns)
        q = quartiles(np.asarray(total))
        return [Subset(view.name, f"Q{k}", q == k) for k in range(1, 5)]
    if view.how == "flag":
        marked = items[view.columns[0]].astype(str) == "1"
        return [Subset(view.name, view.columns[0], marked), Subset(view.name, "rest", ~marked)]
    if view.how == "flags":
        return [Subset(view.name, c, items[c].astype(str) == "1") for c in view.columns]
    raise ValueError(f"unknown view kind {view.how!r}")


def named_views(benchmark: str, items: Items, registry: Registry | None = None) -> list[Subset]:
    """A suite's members, and the views the registry entry of ``benchmark`` declares (those
    whose columns the items have)."""
    out: list[Subset] = []
    if "benchmark" in items:
        out += by_column(items, "benchmark", "member")
    entry = (registry or Registry.default()).entries.get(benchmark)
    for view in getattr(entry, "views", ()):
        if all(c in items for c in view.columns):
            out += view_subsets(view, items)
    return out


def subset_task(task: str, items: Items, mask: np.ndarray) -> str:
    """The task kind of a subset: rows of one suite member have that member's kind; rows of
    several members keep the suite's (its aggregate, not one pooled metric)."""
    one_member = "benchmark" in items and len(set(items["benchmark"][mask].tolist())) == 1
    if one_member and "task" in items:
        return str(items["task"][mask][0])
    return task


def score_subsets(
    task: str,
    items: Items,
    subsets: list[Subset],
    how: Resampling = DEFAULT_RESAMPLING,
) -> list[SubsetScore]:
    """The main metric on each subset with a bootstrap interval."""
    out = []
    for s in subsets:
        kind = subset_task(task, items, s.mask)
        part = {k: v[s.mask] for k, v in items.items()}
        metric = ItemMetrics(kind, part, main_only=True)
        main = main_metric(kind, part)
        value = metric()[main]
        ci = bootstrap_intervals(metric, metric.n, how.of(metric).on(active()))[main]
        out.append(SubsetScore(s, kind, value, ci, metric.n, main))
    return out
