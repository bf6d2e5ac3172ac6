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
from simeval.kinds.resampled import Sorted
from simeval.metrics import pearson, spearman, sts_all, sts_allnrm, sts_mean
from simeval.metrics import weighted as wt


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
    williams = False

    def randomized(self, main: str) -> bool:
        return main != "sum"

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
    name = "suite-sts"
    aliases = ("sts-suite",)
    aggregate = "sts"
    main = "all"
    plot = "scatter"
    all_main = True  # main_only computes ALL alone

    def combine(
        self, parts: list[Columns], kinds: list[TaskKind], names: list[str], main_only: bool
    ) -> dict[str, float]:
        golds, systems = [c["gold"] for c in parts], [c["score"] for c in parts]
        if main_only and self.all_main:
            return {"all": sts_all(golds, systems)}
        out = {
            "all": sts_all(golds, systems),
            "allnrm": sts_allnrm(golds, systems),
            "mean": sts_mean(
                [pearson(s, g) for g, s in zip(golds, systems, strict=True)],
                [len(g) for g in golds],
            ),
        }
        if not main_only:  # MTEB's STS12-16 figure: Spearman of all pairs pooled
            out["pooled_spearman"] = spearman(np.concatenate(systems), np.concatenate(golds))
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
        out = {"all": wt.pearson(whole.c["score"], whole.c["gold"], w)}
        if main_only and self.all_main:
            return out
        fitted = np.empty(w.shape)
        rs, sizes = [], []
        for rows, part in members:
            wm = w[:, rows]
            b1, b2 = wt.least_squares(part.c["score"], part.c["gold"], wm)
            fitted[:, rows] = b1[:, None] * part.c["score"] + b2[:, None]
            rs.append(wt.pearson(part.c["score"], part.c["gold"], wm))
            sizes.append(wm.sum(axis=1))
        out["allnrm"] = wt.pearson(fitted, whole.c["gold"], w)
        n = np.array(sizes)
        out["mean"] = (np.array(rs) * n).sum(axis=0) / n.sum(axis=0)
        if not main_only:
            out["pooled_spearman"] = wt.spearman(whole.score_ranks, whole.gold_ranks, w)
        return out


class STSYearSuite(STSSuite):
    name = "suite-sts-year"
    aliases = ()
    aggregate = "sts-year"
    main = "mean"
    plot = None
    all_main = False


class MeanSuite(SuiteKind):
    name = "suite-mean"
    aliases = ("linking-suite",)
    aggregate = "mean"
    breakdown = True
    williams = False

    def main_metric(self, items: Any = None) -> str:
        """The members' main metric when they are of one kind, else ``mean``."""
        from simeval.kinds import kind

        found = set(np.asarray(items["task"]).tolist()) if items is not None else {"linking"}
        return kind(found.pop()).main_metric() if len(found) == 1 else "mean"

    def combine(
        self, parts: list[Columns], kinds: list[TaskKind], names: list[str], main_only: bool
    ) -> dict[str, float]:
        per = [k.metrics(c, main_only) for k, c in zip(kinds, parts, strict=True)]
        shared = [k for k in per[0] if all(k in p for p in per) and not k.startswith("num_")]
        return {k: float(np.mean([p[k] for p in per])) for k in shared}

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
        shared = [k for k in per[0] if all(k in p for p in per) and not k.startswith("num_")]
        return {k: np.mean([p[k] for p in per], axis=0) for k in shared}


SUM_SUITE = SumSuite()
STS_SUITE = STSSuite()
STS_YEAR_SUITE = STSYearSuite()
MEAN_SUITE = MeanSuite()
