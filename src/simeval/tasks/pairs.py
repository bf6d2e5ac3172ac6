"""Task kinds over word pairs: graded (correlations) and related/unrelated (AP, accuracy, AUC).

Predictions are aligned with the gold by the exact ordered pair ``(word1, word2)``. A gold pair
the system did not score is *missing*; what happens to it is the ``missing`` policy:

- ``"zero"``: score it 0 — the RUSSE 2015 scorer's rule (``evaluate_test.py``), so the official
  numbers are reproduced; the count is reported;
- ``"skip"``: leave it out and evaluate the covered pairs only;
- ``"error"``: refuse the submission, naming the first missing pair.

Pairs scored but not in the gold are *extra*: ignored, counted and reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from simeval.data.pairs import ScoredPairs
from simeval.errors import InputError, InputWarning
from simeval.results.record import Result, Timer, warning_texts
from simeval.tasks.items import GRADED, MAIN_METRIC, RELATED, Items, graded_metrics, related_metrics

MISSING_POLICIES = ("zero", "skip", "error")


@dataclass
class Alignment:
    """System scores in gold order; ``covered`` marks gold items the system scored."""

    scores: np.ndarray
    covered: np.ndarray
    extra: int
    warnings: list[InputWarning] = field(default_factory=list)


def align_pairs(
    gold: ScoredPairs, predictions: ScoredPairs, missing: str, *, extra_ok: frozenset | None = None
) -> Alignment:
    """Put prediction scores in gold order and apply the ``missing`` policy (module docstring).

    ``extra_ok``: pairs that are not extra even if this gold lacks them (the other benchmarks of
    a suite scored from one file).
    """
    if missing not in MISSING_POLICIES:
        raise ValueError(f"missing must be one of {MISSING_POLICIES}, got {missing!r}")
    index = predictions.lookup()
    rows = np.fromiter((index.get(p, -1) for p in gold.pairs), dtype=np.int64, count=len(gold))
    found = rows >= 0
    scores = np.where(found, predictions.scores[np.where(found, rows, 0)], np.nan)
    covered = ~np.isnan(scores)
    warnings: list[InputWarning] = []
    n_missing = int((~covered).sum())
    if n_missing:
        first = gold.pairs[int(np.flatnonzero(~covered)[0])]
        text = f"{n_missing} of {len(gold)} gold pairs have no score (first: {first[0]},{first[1]})"
        if missing == "error":
            raise InputError(
                predictions.path, None, text + "; use --missing zero|skip to score anyway"
            )
        action = "scored 0 as the official RUSSE scorer does" if missing == "zero" else "skipped"
        warnings.append(InputWarning(predictions.path, None, f"{text}; {action}"))
    n_extra, extra_warnings = extra_pairs(
        predictions, set(gold.pairs) | (extra_ok or frozenset()), "the gold"
    )
    if extra_ok is None:
        warnings += extra_warnings
    if missing == "zero":
        scores = np.where(covered, scores, 0.0)
    return Alignment(scores, covered, n_extra, warnings)


def extra_pairs(
    predictions: ScoredPairs, known: set | frozenset, where: str
) -> tuple[int, list[InputWarning]]:
    """How many scored pairs are not in ``known``, and a warning naming the first (ignored)."""
    rows = [i for i, p in enumerate(predictions.pairs) if p not in known]
    if not rows:
        return 0, []
    a, b = predictions.pairs[rows[0]]
    text = f"{len(rows)} scored pair(s) are not in {where} (first: {a},{b}); they are ignored"
    return len(rows), [InputWarning(predictions.path, int(predictions.lines[rows[0]]), text)]


def range_warnings(predictions: ScoredPairs, low: float, high: float) -> list[InputWarning]:
    """One warning counting scores outside [low, high] (RUSSE asked for sim in [0, 1])."""
    s = predictions.scores
    outside = np.flatnonzero((s < low) | (s > high))
    if not len(outside):
        return []
    i = int(outside[0])
    return [
        InputWarning(
            predictions.path,
            int(predictions.lines[i]),
            f"{len(outside)} score(s) outside [{low:g}, {high:g}] (first here: "
            f"{float(s[i])!r}); ranking metrics are unaffected",
        )
    ]


@dataclass
class PairBenchmark:
    """Word pairs with gold scores (graded) or labels 1/0 (related-pairs)."""

    name: str
    task: str
    gold: ScoredPairs
    description: str = ""
    data: dict[str, str] = field(default_factory=dict)
    score_range: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        if self.task == RELATED:
            bad = np.flatnonzero(~np.isin(self.gold.scores, (0.0, 1.0)))
            if len(bad):
                i = int(bad[0])
                raise InputError(
                    self.gold.path,
                    int(self.gold.lines[i]),
                    f"related/unrelated gold must be 1 or 0, got {float(self.gold.scores[i])!r}",
                )

    @property
    def main_metric(self) -> str:
        return MAIN_METRIC[self.task]

    def __len__(self) -> int:
        return len(self.gold)

    def compute_metrics(self, scores: np.ndarray) -> dict[str, float]:
        """Metrics of system ``scores`` given in gold order (no NaN)."""
        g = self.gold.scores
        if self.task == GRADED:
            return graded_metrics(g, scores)
        w1 = [a for a, _ in self.gold.pairs]
        w2 = [b for _, b in self.gold.pairs]
        return related_metrics(g, scores, np.asarray(w1), np.asarray(w2))

    def items(self, aligned: Alignment, missing: str) -> Items:
        """One row per gold pair: the score as it entered the metrics, and the gold's columns."""
        counted = aligned.covered | (missing == "zero")
        return {
            "word1": np.array([a for a, _ in self.gold.pairs], dtype=str),
            "word2": np.array([b for _, b in self.gold.pairs], dtype=str),
            "gold": np.asarray(self.gold.scores, dtype=float),
            "score": np.where(counted, aligned.scores, np.nan),
            "covered": aligned.covered.astype(np.int64),
            "counted": counted.astype(np.int64),
            **{
                k: np.array(v, dtype=str)
                for k, v in self.gold.columns.items()
                if k not in ("word1", "word2", "gold", "score", "covered", "counted")
            },
        }

    def evaluate(
        self,
        predictions: ScoredPairs,
        *,
        missing: str = "error",
        system: dict[str, Any] | None = None,
        extra_ok: frozenset | None = None,
    ) -> Result:
        """Score ``predictions`` against this benchmark (see the module docstring)."""
        with Timer() as timer:
            aligned = align_pairs(self.gold, predictions, missing, extra_ok=extra_ok)
            if missing == "skip":
                subset = self.subset(aligned.covered)
                metrics = subset.compute_metrics(aligned.scores[aligned.covered])
            else:
                metrics = self.compute_metrics(aligned.scores)
        warnings = [*aligned.warnings]
        if self.score_range is not None:
            warnings += range_warnings(predictions, *self.score_range)
        covered = int(aligned.covered.sum())
        return Result(
            benchmark=self.name,
            task=self.task,
            main_metric=self.main_metric,
            metrics=metrics,
            coverage={
                "gold": len(self),
                "scored": covered,
                "missing": len(self) - covered,
                "extra": aligned.extra,
            },
            system=system or {},
            data=dict(self.data),
            warnings=warning_texts(warnings),
            settings={"missing": missing},
            seconds=timer.seconds,
            items=self.items(aligned, missing),
        )

    def subset(self, mask: np.ndarray) -> PairBenchmark:
        """The benchmark restricted to the items where ``mask`` is true."""
        return PairBenchmark(
            self.name,
            self.task,
            self.gold.take(mask),
            self.description,
            self.data,
            self.score_range,
        )
