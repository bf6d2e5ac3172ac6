"""Per-item records of a result, and the task kinds' metrics computed from them.

A result keeps, beside its numbers, one row per gold item: the gold value, the system's score
as it entered the metrics, and the benchmark's metadata (SimLex-999's POS and concreteness,
WordSim-353's split membership). Reports compute confidence intervals, subsets and
comparisons from these rows without running the measure again.

Columns by task kind:

- pair benchmarks: ``word1, word2, gold, score, covered, counted`` and the gold file's extra
  columns. ``covered`` = the system scored the pair; ``counted`` = the pair entered the metrics
  (with ``--missing zero`` an uncovered pair is counted with score 0);
- STS: ``item`` (1-based line), ``gold, score, covered, counted``;
- suites: the members' common columns plus ``benchmark`` and ``task``;
- linking: ``qid`` and the per-query ``success_1, success_5, recip_rank``.

:func:`task_metrics` is the one definition of which metrics a task kind reports; the task
classes call it on the full item set and :class:`ItemMetrics` on resampled rows. Suites are
resampled within members (strata) and related/unrelated pairs by word1 (clusters).
"""

from __future__ import annotations

from collections.abc import Mapping

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
)
from simeval.results.items import LINKING_METRICS, Items

GRADED, RELATED = "graded-pairs", "related-pairs"
STS, STS_SUITE, RUSSE_SUITE, LINKING = "sts", "sts-suite", "russe-suite", "linking"
LINKING_SUITE = "linking-suite"
LINKING_TASKS = (LINKING, LINKING_SUITE)  # items are queries (qid), scored without a gold column
MAIN_METRIC = {
    GRADED: "spearman",
    RELATED: "ap_trapezoid",
    STS: "pearson",
    STS_SUITE: "all",
    RUSSE_SUITE: "sum",
    LINKING: "recip_rank",
    LINKING_SUITE: "recip_rank",
}


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


def task_metrics(task: str, items: Mapping[str, np.ndarray]) -> dict[str, float]:
    """Every metric of ``task`` over the counted rows of ``items``."""
    return ItemMetrics(task, items)()


def _main_of(task: str, gold: np.ndarray, score: np.ndarray) -> float:
    """The main metric of a member benchmark (RUSSE's sum adds these)."""
    if task == GRADED:
        return spearman(score, gold)
    return average_precision_trapezoid(gold, score)


class ItemMetrics:
    """The metrics of one result as a function of resampled rows or replaced scores.

    ``metrics(rows)`` evaluates the rows ``rows`` (a bootstrap replicate, repeats allowed) and
    ``metrics(scores=s)`` the same items with other per-item outputs (approximate
    randomization). Words are coded once as integers whose order is the code-point order, so
    RUSSE accuracy's tie-break by word2 is kept without comparing strings in every replicate.
    """

    def __init__(self, task: str, items: Mapping[str, np.ndarray], main_only: bool = False) -> None:
        if task not in MAIN_METRIC:
            raise ValueError(f"no item metrics for task kind {task!r}")
        self.task = task
        self.main_only = main_only  # the main metric alone (and a suite's parts): cheaper
        keep = np.asarray(items["counted"], dtype=bool) if "counted" in items else None
        self.items = {k: (v[keep] if keep is not None else v) for k, v in items.items()}
        self.n = len(next(iter(self.items.values()))) if self.items else 0
        suites = (STS_SUITE, RUSSE_SUITE, LINKING_SUITE)
        self.strata = self.items.get("benchmark") if task in suites else None
        self.words = None
        if task == RELATED:
            self.words = tuple(
                np.unique(np.asarray(self.items[c]), return_inverse=True)[1]
                for c in ("word1", "word2")
            )
        # a suite's members as integer codes in order of first appearance, and their names
        self.member = np.zeros(self.n, dtype=np.int64)
        self.member_names: list[str] = []
        if self.strata is not None:
            names, first, codes = np.unique(self.strata, return_index=True, return_inverse=True)
            appearance = np.argsort(first)
            self.member = np.argsort(appearance)[codes]
            self.member_names = [str(x) for x in names[appearance]]
        self.clusters = self._clusters()

    def _clusters(self) -> np.ndarray | None:
        """Resampling units: a related/unrelated pair set is drawn by word1 (RUSSE accuracy
        labels pairs within each word1, and every word1 has as many related as unrelated
        partners); other items are drawn one by one."""
        if self.task == RELATED:
            return self.words[0]  # type: ignore[index]
        if self.task == RUSSE_SUITE and "word1" in self.items:
            word1 = np.unique(np.asarray(self.items["word1"]), return_inverse=True)[1]
            single = np.asarray(self.items["task"]) != RELATED
            # (member, word1) for related pairs; a unit of its own for every other row
            unit = self.member * (int(word1.max()) + 1) + word1
            return np.where(single, -1 - np.arange(self.n), unit)
        return None

    @property
    def resampling(self) -> dict[str, np.ndarray | None]:
        """How the bootstrap draws this result's items: ``strata`` and ``clusters``."""
        return {"strata": self.strata, "clusters": self.clusters}

    @property
    def values(self) -> np.ndarray:
        """The per-item outputs that approximate randomization swaps."""
        if self.task in LINKING_TASKS:
            return np.column_stack([self.items[k] for k in LINKING_METRICS])
        return np.asarray(self.items["score"], dtype=float)

    def _parts(self, rows: np.ndarray) -> list[np.ndarray]:
        """A suite's rows split by member (rows are drawn within each member, stratified)."""
        member = self.member[rows]
        order = np.argsort(member, kind="stable")
        sizes = np.bincount(member, minlength=len(self.member_names))
        return np.split(rows[order], np.cumsum(sizes)[:-1])

    def __call__(
        self, rows: np.ndarray | None = None, scores: np.ndarray | None = None
    ) -> dict[str, float]:
        rows = np.arange(self.n) if rows is None else rows
        if self.task == LINKING:
            values = self.values if scores is None else scores
            return {k: float(values[rows, i].mean()) for i, k in enumerate(LINKING_METRICS)}
        if self.task == LINKING_SUITE:  # the mean over member benchmarks (languages)
            values = self.values if scores is None else scores
            parts = self._parts(rows)
            return {
                k: float(np.mean([values[p, i].mean() for p in parts]))
                for i, k in enumerate(LINKING_METRICS)
            }
        score = np.asarray(self.items["score"] if scores is None else scores, dtype=float)
        gold = np.asarray(self.items["gold"], dtype=float)
        if self.main_only and self.task in (GRADED, RELATED):
            return {MAIN_METRIC[self.task]: _main_of(self.task, gold[rows], score[rows])}
        if self.task == GRADED:
            return graded_metrics(gold[rows], score[rows])
        if self.task == RELATED:
            assert self.words is not None
            w1, w2 = self.words
            return related_metrics(gold[rows], score[rows], w1[rows], w2[rows])
        if self.task == STS:
            return {"pearson": pearson(score[rows], gold[rows])}
        parts = self._parts(rows)
        names = self.member_names
        if self.task == STS_SUITE:
            golds = [gold[p] for p in parts]
            systems = [score[p] for p in parts]
            if self.main_only:
                return {"all": sts_all(golds, systems)}
            return {
                "all": sts_all(golds, systems),
                "allnrm": sts_allnrm(golds, systems),
                "mean": sts_mean(
                    [pearson(s, g) for g, s in zip(golds, systems, strict=True)],
                    [len(p) for p in parts],
                ),
            }
        tasks = self.items["task"]
        out = {
            name.removeprefix("russe-"): _main_of(str(tasks[p[0]]), gold[p], score[p])
            for name, p in zip(names, parts, strict=True)
        }
        out["sum"] = float(sum(out.values()))
        return out


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
