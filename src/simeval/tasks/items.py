"""Task kinds, their per-item rows, and the one definition of each kind's metric set.

A result keeps, beside its numbers, one row per gold item: the gold value, the system's score
as it entered the metrics, and the benchmark's metadata (SimLex-999's POS and concreteness,
WordSim-353's split membership). Every metric of a result is computed from these rows by
:func:`task_metrics` — when a benchmark is evaluated, when a file is scored, and when the
report resamples the rows — so a metric is defined once.

Columns by task kind:

- pair kinds (``graded-pairs``, ``related-pairs``): ``word1, word2, gold, score, covered,
  counted`` and the gold file's extra columns. ``covered`` = the system scored the pair;
  ``counted`` = the pair entered the metrics (with ``--missing zero`` an uncovered pair is
  counted with score 0);
- ``sts``: ``item`` (1-based line), ``gold, score, covered, counted`` (and ``confidence``);
- ``linking``: ``qid``, the per-query ``success_1, success_5, recip_rank`` and trec_eval's
  counts ``num_ret, num_rel, num_rel_ret`` (and ``source``);
- suites: the members' common columns plus ``benchmark`` and ``task``.

Suite kinds are named by their aggregate: ``suite-sum`` (the members' main scores and their
sum: RUSSE's ranking), ``suite-sts`` (SemEval-2012 ALL, ALLnrm, Mean; main ALL),
``suite-sts-year`` (the same, main Mean: the 2013-2016 official figure; both add
``pooled_spearman``, Spearman's ρ over every scored pair of the suite pooled, which is how
MTEB scores STS12-STS16), ``suite-mean`` (each
metric averaged over the members, each member weighing the same). Records written before
these names (``russe-suite``, ``sts-suite``, ``linking-suite``) are read as their aliases.

Suites are resampled within members (strata) and related/unrelated pairs by word1 (clusters).
Adding a metric: one line in its kind's function below.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from functools import cached_property
from typing import Any

import numpy as np

from simeval.metrics import (
    average_precision,
    average_precision_trapezoid,
    pearson,
    roc_auc,
    russe_accuracy,
    spearman,
    sts_all,
    sts_allnrm,
    sts_mean,
    weighted_pearson,
)
from simeval.metrics.classification import LEGACY_TIE_TOLERANCE
from simeval.results.items import COUNTS, LINKING_METRICS, Items

GRADED, RELATED, STS, LINKING = "graded-pairs", "related-pairs", "sts", "linking"
SUM_SUITE, STS_SUITE, MEAN_SUITE = "suite-sum", "suite-sts", "suite-mean"
STS_YEAR_SUITE = "suite-sts-year"  # the same figures, ranked by Mean (the 2013-2016 rule)
SUITE_KIND = {"sum": SUM_SUITE, "sts": STS_SUITE, "sts-year": STS_YEAR_SUITE, "mean": MEAN_SUITE}
ALIASES = {"russe-suite": SUM_SUITE, "sts-suite": STS_SUITE, "linking-suite": MEAN_SUITE}
SUITES = (SUM_SUITE, STS_SUITE, STS_YEAR_SUITE, MEAN_SUITE)
MAIN_METRIC = {
    GRADED: "spearman",
    RELATED: "ap_trapezoid",
    STS: "pearson",
    LINKING: "recip_rank",
    SUM_SUITE: "sum",
    STS_SUITE: "all",
    STS_YEAR_SUITE: "mean",
    MEAN_SUITE: None,  # the members' main metric (see main_metric)
}


def canonical(task: str) -> str:
    """The kind a record's ``task`` names (older suite names mapped to today's)."""
    return ALIASES.get(task, task)


def main_metric(task: str, items: Mapping[str, np.ndarray] | None = None) -> str:
    """The main metric of a kind; a mean suite's is its members' (all of one kind)."""
    task = canonical(task)
    if task == MEAN_SUITE:
        kinds = set(np.asarray(items["task"]).tolist()) if items is not None else {LINKING}
        return MAIN_METRIC[canonical(kinds.pop())] if len(kinds) == 1 else "mean"
    return MAIN_METRIC[task]


def is_linking(task: str, items: Mapping[str, np.ndarray]) -> bool:
    """Whether the rows are queries (per-query metric values, no gold or score column)."""
    return canonical(task) == LINKING or ("qid" in items and "score" not in items)


# -- each kind's metric set: (columns of the rows, main_only) -> metrics ----------------------


def graded_metrics(gold: np.ndarray, score: np.ndarray) -> dict[str, float]:
    """Spearman's ρ (main) and Pearson's r of system scores with graded gold."""
    return {"spearman": spearman(score, gold), "pearson": pearson(score, gold)}


def related_metrics(
    gold: np.ndarray, score: np.ndarray, word1: np.ndarray, word2: np.ndarray
) -> dict[str, float]:
    """RUSSE's related/unrelated metrics: AP as in 2015 (main), step-wise AP, accuracy, AUC."""
    return {
        "ap_trapezoid": average_precision_trapezoid(gold, score),
        "ap": average_precision(gold, score),
        "accuracy": russe_accuracy(word1, word2, score, gold),
        "roc_auc": roc_auc(gold, score),
    }


def _graded(c: Mapping[str, np.ndarray], main_only: bool) -> dict[str, float]:
    if main_only:
        return {"spearman": spearman(c["score"], c["gold"])}
    return graded_metrics(c["gold"], c["score"])


def _related(c: Mapping[str, np.ndarray], main_only: bool) -> dict[str, float]:
    if main_only:
        return {"ap_trapezoid": average_precision_trapezoid(c["gold"], c["score"])}
    return related_metrics(c["gold"], c["score"], c["word1"], c["word2"])


def _sts(c: Mapping[str, np.ndarray], main_only: bool) -> dict[str, float]:
    """Pearson's r (the STS scorers' correlation.pl; main), Spearman's ρ (the STS Benchmark's
    second figure, MTEB's main one), and the confidence-weighted r when the output gave
    confidences."""
    out = {"pearson": pearson(c["score"], c["gold"])}
    if main_only:
        return out
    out["spearman"] = spearman(c["score"], c["gold"])
    if "confidence" in c:
        out["weighted_pearson"] = weighted_pearson(c["score"], c["gold"], c["confidence"])
    return out


def _linking(c: Mapping[str, np.ndarray], main_only: bool) -> dict[str, float]:
    """trec_eval's means over the evaluated queries (success_1, success_5, recip_rank) and, but
    for resampling, its sums (num_ret, num_rel, num_rel_ret) and num_q."""
    n = len(c[LINKING_METRICS[0]])
    out = {k: float(c[k].mean()) if n else float("nan") for k in LINKING_METRICS}
    if not main_only and all(k in c for k in COUNTS):
        out = {**out, "num_q": float(n), **{k: float(c[k].sum()) for k in COUNTS}}
    return out


KIND_METRICS: dict[str, Callable[[Mapping[str, np.ndarray], bool], dict[str, float]]] = {
    GRADED: _graded,
    RELATED: _related,
    STS: _sts,
    LINKING: _linking,
}


def short_names(names: list[str]) -> list[str]:
    """Member names without the prefix (up to a ``-``) they all share: russe-hj -> hj."""
    prefix = min(names) if len(names) > 1 else ""
    for n in names:  # the longest common start
        while not n.startswith(prefix):
            prefix = prefix[:-1]
    prefix = prefix[: prefix.rfind("-") + 1]
    return [n.removeprefix(prefix) or n for n in names]


def task_metrics(task: str, items: Mapping[str, np.ndarray]) -> dict[str, float]:
    """Every metric of ``task`` over the counted rows of ``items``."""
    return ItemMetrics(task, items)()


class ItemMetrics:
    """The metrics of one result as a function of resampled rows or replaced scores.

    ``metrics(rows)`` evaluates the rows ``rows`` (a bootstrap replicate, repeats allowed) and
    ``metrics(scores=s)`` the same items with other per-item outputs (approximate
    randomization). Words are coded once as integers whose order is the code-point order, so
    RUSSE accuracy's tie-break by word2 is kept without comparing strings in every replicate.
    """

    def __init__(self, task: str, items: Mapping[str, np.ndarray], main_only: bool = False) -> None:
        task = canonical(task)
        if task not in MAIN_METRIC:
            raise ValueError(f"no item metrics for task kind {task!r}")
        self.task = task
        self.main_only = main_only  # the main metric alone (and a suite's parts): cheaper
        keep = np.asarray(items["counted"], dtype=bool) if "counted" in items else None
        self.items = {k: (v[keep] if keep is not None else v) for k, v in items.items()}
        self.n = len(next(iter(self.items.values()))) if self.items else 0
        self.linking = is_linking(task, self.items)
        self.strata = self.items.get("benchmark") if task in SUITES else None
        # a suite's members as integer codes in order of first appearance, their names, kinds
        self.member = np.zeros(self.n, dtype=np.int64)
        self.member_names: list[str] = []
        self.member_kinds: list[str] = [task]
        if self.strata is not None:
            names, first, codes = np.unique(self.strata, return_index=True, return_inverse=True)
            appearance = np.argsort(first)
            self.member = np.argsort(appearance)[codes]
            self.member_names = [str(x) for x in names[appearance]]
            kinds = np.asarray(self.items["task"])[first[appearance]]
            self.member_kinds = [canonical(str(k)) for k in kinds]
        # columns as the kinds' functions take them (words as integer codes)
        self.columns: dict[str, np.ndarray] = {}
        for k in ("gold", "score", "confidence", *LINKING_METRICS, *COUNTS):
            if k in self.items:
                self.columns[k] = np.asarray(self.items[k], dtype=float)
        for k in ("word1", "word2"):
            if k in self.items and RELATED in self.member_kinds:
                self.columns[k] = np.unique(np.asarray(self.items[k]), return_inverse=True)[1]
        self.clusters = self._clusters()

    def _clusters(self) -> np.ndarray | None:
        """Resampling units: a related/unrelated pair set is drawn by word1 (RUSSE accuracy
        labels pairs within each word1, and every word1 has as many related as unrelated
        partners); other items are drawn one by one."""
        if RELATED not in self.member_kinds:
            return None
        word1 = self.columns["word1"]
        if self.task == RELATED:
            return word1
        single = np.asarray(self.items["task"]) != RELATED
        # (member, word1) for related pairs; a unit of its own for every other row
        unit = self.member * (int(word1.max()) + 1) + word1
        return np.where(single, -1 - np.arange(self.n), unit)

    @property
    def resampling(self) -> dict[str, np.ndarray | None]:
        """How the bootstrap draws this result's items: ``strata`` and ``clusters``."""
        return {"strata": self.strata, "clusters": self.clusters}

    @property
    def values(self) -> np.ndarray:
        """The per-item outputs that approximate randomization swaps."""
        if self.linking:
            return np.column_stack([self.columns[k] for k in LINKING_METRICS])
        return self.columns["score"]

    def _parts(self, rows: np.ndarray) -> list[np.ndarray]:
        """A suite's rows split by member (rows are drawn within each member, stratified)."""
        member = self.member[rows]
        order = np.argsort(member, kind="stable")
        sizes = np.bincount(member, minlength=len(self.member_names))
        return np.split(rows[order], np.cumsum(sizes)[:-1])

    def _columns(self, rows: np.ndarray, scores: np.ndarray | None) -> dict[str, np.ndarray]:
        cols = dict(self.columns)
        if scores is not None:
            if self.linking:
                cols.update({k: scores[:, i] for i, k in enumerate(LINKING_METRICS)})
            else:
                cols["score"] = np.asarray(scores, dtype=float)
        return {k: v[rows] for k, v in cols.items()}

    def __call__(
        self, rows: np.ndarray | None = None, scores: np.ndarray | None = None
    ) -> dict[str, float]:
        rows = np.arange(self.n) if rows is None else rows
        if self.task in KIND_METRICS:
            return KIND_METRICS[self.task](self._columns(rows, scores), self.main_only)
        parts = [self._columns(p, scores) for p in self._parts(rows)]
        if self.task in (STS_SUITE, STS_YEAR_SUITE):
            golds, systems = [c["gold"] for c in parts], [c["score"] for c in parts]
            if self.main_only and self.task == STS_SUITE:
                return {"all": sts_all(golds, systems)}
            out = {
                "all": sts_all(golds, systems),
                "allnrm": sts_allnrm(golds, systems),
                "mean": sts_mean(
                    [pearson(s, g) for g, s in zip(golds, systems, strict=True)],
                    [len(g) for g in golds],
                ),
            }
            if not self.main_only:  # MTEB's STS12-16 figure: Spearman of all pairs pooled
                out["pooled_spearman"] = spearman(np.concatenate(systems), np.concatenate(golds))
            return out
        names = short_names(self.member_names)
        if self.task == SUM_SUITE:
            out = {}
            for name, kind, c in zip(names, self.member_kinds, parts, strict=True):
                out[name] = KIND_METRICS[kind](c, True)[MAIN_METRIC[kind]]
            out["sum"] = float(sum(out.values()))
            return out
        # MEAN_SUITE: every metric the members share, averaged (counts are not averaged)
        per = [
            KIND_METRICS[k](c, self.main_only)
            for k, c in zip(self.member_kinds, parts, strict=True)
        ]
        shared = [k for k in per[0] if all(k in p for p in per) and not k.startswith("num_")]
        return {k: float(np.mean([p[k] for p in per])) for k in shared}

    def weighted(self, w: np.ndarray) -> dict[str, np.ndarray]:
        """The metrics of many resamples at once: row b of ``w`` (B, n) gives how often each
        row enters resample b. Equals ``self(rows)`` for ``w[b] = bincount(rows, minlength=n)``
        up to summation order (:mod:`simeval.tasks.resampled`)."""
        from simeval.tasks import resampled

        whole, members = self._sorted
        if self.task in KIND_METRICS:
            return resampled.KINDS[self.task](whole, w, self.main_only)
        if self.task in (STS_SUITE, STS_YEAR_SUITE):
            return resampled.sts_suite(whole, members, w, self.main_only, self.task == STS_SUITE)
        sums = self.task == SUM_SUITE
        per = [
            resampled.KINDS[kind](part, w[:, rows], sums or self.main_only)
            for kind, (rows, part) in zip(self.member_kinds, members, strict=True)
        ]
        if sums:
            names = short_names(self.member_names)
            out = {
                name: p[MAIN_METRIC[kind]]
                for name, kind, p in zip(names, self.member_kinds, per, strict=True)
            }
            out["sum"] = sum(out.values())
            return out
        shared = [k for k in per[0] if all(k in p for p in per) and not k.startswith("num_")]
        return {k: np.mean([p[k] for p in per], axis=0) for k in shared}

    def swapped(
        self, a: np.ndarray, b: np.ndarray, swap: np.ndarray
    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]] | None:
        """Approximate randomization's rounds at once: the metrics of A′ (b where ``swap``,
        a elsewhere) and B′ for each row of ``swap`` (R, n), as ``self(scores=A′)`` round by
        round. None for the kinds and metric sets not done at once."""
        from simeval.metrics import weighted as wt

        if self.linking:  # the counts do not depend on the outputs
            fixed = {k: np.full(len(swap), v) for k, v in self().items()}
            pick = swap[:, :, None]
            return tuple(  # type: ignore[return-value]
                {**fixed, **{k: o[:, :, i].mean(axis=1) for i, k in enumerate(LINKING_METRICS)}}
                for o in (np.where(pick, b, a), np.where(pick, a, b))
            )
        if self.task != RELATED or not self.main_only:
            return None
        swaps = wt.Swaps(a, b, LEGACY_TIE_TOLERANCE)
        if not swaps.grouped:
            return None
        pa, pb = swaps.points(self.columns["gold"], swap)
        return (
            {"ap_trapezoid": wt.average_precision(pa, trapezoid=True)},
            {"ap_trapezoid": wt.average_precision(pb, trapezoid=True)},
        )

    @property
    def partial(self) -> bool:
        """Whether only the main metric (and a suite's parts) is computed."""
        return self.main_only

    @cached_property
    def fingerprint(self) -> str:
        """A key for the content the metrics are computed from (kind, rows and strata): equal
        content reuses resampled values (:func:`simeval.metrics.stats.bootstrap`)."""
        h = hashlib.blake2b(self.task.encode(), digest_size=16)
        for name in sorted(self.columns):
            h.update(name.encode())
            h.update(np.ascontiguousarray(self.columns[name]).tobytes())
        h.update(self.member.tobytes())
        h.update("\0".join(self.member_names).encode())
        return h.hexdigest()

    @cached_property
    def _sorted(self) -> tuple[Any, list[tuple[np.ndarray, Any]]]:
        """The rows as :class:`simeval.tasks.resampled.Sorted`, whole and per suite member."""
        from simeval.tasks.resampled import Sorted

        members = []
        for m in range(len(self.member_names)):
            rows = np.flatnonzero(self.member == m)
            members.append((rows, Sorted({k: v[rows] for k, v in self.columns.items()})))
        return Sorted(self.columns), members


def concat_items(members: list[tuple[str, str, Items]]) -> Items:
    """The items of a suite: each member's (name, task, items), columns common to all kept."""
    common = [c for c in members[0][2] if all(c in m[2] for m in members)]
    out = {c: np.concatenate([m[2][c] for m in members]) for c in common}
    sizes = [len(next(iter(m[2].values()))) for m in members]
    out["benchmark"] = np.concatenate(
        [np.full(n, m[0]) for n, m in zip(sizes, members, strict=True)]
    )
    out["task"] = np.concatenate([np.full(n, m[1]) for n, m in zip(sizes, members, strict=True)])
    return out
