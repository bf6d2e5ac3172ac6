"""The suite kinds, named by their aggregate over the members' rows.

A suite's rows are its members' (the columns they share) plus ``benchmark`` and ``task``; they
resample within members (strata), each member's rows by its own kind's rule.

- ``suite-sum`` (``aggregate = "sum"``): the members' main scores and their sum, RUSSE's
  ranking;
- ``suite-sts`` (``"sts"``): SemEval-2012's ALL (Pearson over the pooled rows, main), ALLnrm
  (each member's scores fitted to its gold by least squares, then pooled) and Mean (members'
  r weighted by their sizes), and ``pooled_spearman``, Spearman's ρ over every scored pair of
  the suite pooled, which is how MTEB scores STS12-STS16;
- ``suite-sts-year`` (``"sts-year"``): the same figures, main Mean (the 2013-2016 official
  figure);
- ``suite-mean`` (``"mean"``): each metric the members share averaged, each member weighing
  the same (counts are not averaged); its main metric is the members' when they are of one
  kind, else ``mean``.

Records written before these names (``russe-suite``, ``sts-suite``, ``linking-suite``) are
read as their aliases.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simeval.kinds.base import Batch, Columns, SuiteKind, TaskKind
from simeval.metrics.catalog import is_count
from simeval.metrics.declared import Replicates, Sorted, point_values, resampled_values


def short_names(names: list[str]) -> list[str]:
    """Member names without the prefix (up to a ``-``) they all share: russe-hj -> hj."""
    prefix = min(names) if len(names) > 1 else ""
    for n in names:  # the longest common start
        while not n.startswith(prefix):
            prefix = prefix[:-1]
    prefix = prefix[: prefix.rfind("-") + 1]
    return [n.removeprefix(prefix) or n for n in names]


class SumSuite(SuiteKind):
    name = "suite-sum"
    aliases = ("russe-suite",)
    aggregate = "sum"
    main = "sum"

    def combine(
        self, parts: list[Columns], kinds: list[TaskKind], names: list[str], main_only: bool
    ) -> dict[str, float]:
        out = {}
        for name, kind, c in zip(short_names(names), kinds, parts, strict=True):
            out[name] = kind.metrics(c, True)[kind.main_metric()]
        out["sum"] = float(sum(out.values()))
        return out

    def combine_resampled(
        self,
        whole: Sorted,
        members: list[tuple[np.ndarray, Sorted]],
        w: np.ndarray,
        kinds: list[TaskKind],
        names: list[str],
        main_only: bool,
    ) -> Batch:
        per = [
            kind.resample(part, w[:, rows], True)
            for kind, (rows, part) in zip(kinds, members, strict=True)
        ]
        out = {
            name: p[kind.main_metric()]
            for name, kind, p in zip(short_names(names), kinds, per, strict=True)
        }
        out["sum"] = sum(out.values())
        return out


class STSSuite(SuiteKind):
    """ALL (main), ALLnrm, Mean and pooled Spearman, as declared in
    :mod:`simeval.metrics.catalog` over the members' rows."""

    name = "suite-sts"
    aliases = ("sts-suite",)
    aggregate = "sts"
    main = "all"
    member_kinds = ("sts",)
    plot = "scatter"

    def combine(
        self, parts: list[Columns], kinds: list[TaskKind], names: list[str], main_only: bool
    ) -> dict[str, float]:
        return point_values(self.declared(parts[0], main_only), parts)

    def combine_resampled(
        self,
        whole: Sorted,
        members: list[tuple[np.ndarray, Sorted]],
        w: np.ndarray,
        kinds: list[TaskKind],
        names: list[str],
        main_only: bool,
    ) -> Batch:
        found = self.declared(whole.c, main_only)
        return resampled_values(found, Replicates(whole, w, members))


class STSYearSuite(STSSuite):
    name = "suite-sts-year"
    aliases = ()
    aggregate = "sts-year"
    main = "mean"
    plot = None


class MeanSuite(SuiteKind):
    name = "suite-mean"
    aliases = ("linking-suite",)
    aggregate = "mean"
    breakdown = True

    def main_metric(self, items: Any = None) -> str:
        """The members' main metric when they are of one kind, else ``mean``."""
        from simeval.kinds import kind

        found = set(np.asarray(items["task"]).tolist()) if items is not None else {"linking"}
        return kind(found.pop()).main_metric() if len(found) == 1 else "mean"

    def combine(
        self, parts: list[Columns], kinds: list[TaskKind], names: list[str], main_only: bool
    ) -> dict[str, float]:
        per = [k.metrics(c, main_only) for k, c in zip(kinds, parts, strict=True)]
        return {k: float(np.mean([p[k] for p in per])) for k in _shared(per, kinds)}

    def combine_resampled(
        self,
        whole: Sorted,
        members: list[tuple[np.ndarray, Sorted]],
        w: np.ndarray,
        kinds: list[TaskKind],
        names: list[str],
        main_only: bool,
    ) -> Batch:
        per = [
            kind.resample(part, w[:, rows], main_only)
            for kind, (rows, part) in zip(kinds, members, strict=True)
        ]
        return {k: np.mean([p[k] for p in per], axis=0) for k in _shared(per, kinds)}


def _shared(per: list[dict[str, Any]], kinds: list[TaskKind]) -> list[str]:
    """The metrics every member has, tallies left out (a mean of counts means nothing)."""
    return [
        k
        for k in per[0]
        if all(k in p for p in per) and not any(is_count(k, kind.name) for kind in kinds)
    ]


SUM_SUITE = SumSuite()
STS_SUITE = STSSuite()
STS_YEAR_SUITE = STSYearSuite()
MEAN_SUITE = MeanSuite()
