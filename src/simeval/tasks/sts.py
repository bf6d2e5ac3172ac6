"""The STS task kind: sentence pairs aligned by line, Pearson per dataset (SemEval 2012-2016).

A system output must have exactly one line per input pair (the 2012 Perl script silently
misaligned shorter files; here it is an error naming the file). Gold lines left empty mark
unscored pairs: their system scores are read but not evaluated. A suite of STS datasets adds
ALL, ALLnrm and Mean (``suite-sts``, :mod:`simeval.tasks.items`).

Submission: ``STS.output.<dataset>.txt``, one score a line, optionally a tab and a confidence.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simeval.data.sts import STSOutput, read_sts_output, write_sts_output
from simeval.errors import InputError, InputWarning
from simeval.tasks.base import Aligned, Benchmark, TextPairs
from simeval.tasks.items import STS


@dataclass
class STSBenchmark(Benchmark):
    """One STS dataset: sentence pairs and gold scores (NaN = unscored)."""

    name: str
    dataset: str
    pairs: list[tuple[str, str]]
    gold: np.ndarray
    description: str = ""
    data: dict[str, str] = field(default_factory=dict)
    columns: dict[str, list[str]] = field(default_factory=dict)  # per pair (STS-B's genre)
    kind = STS
    submission_name = "STS.output.{dataset}.txt"

    @property
    def scored(self) -> np.ndarray:
        return ~np.isnan(self.gold)

    def request(self) -> TextPairs:
        return TextPairs(self.pairs)

    def requests(self, scored_only: bool = False) -> list[TextPairs]:
        if not scored_only or self.scored.all():
            return [self.request()]
        return [TextPairs([p for p, keep in zip(self.pairs, self.scored, strict=True) if keep])]

    def submit(self, measure: Any, progress: Any = None, scored_only: bool = False) -> STSOutput:
        """The measure's scores for every line; with ``scored_only`` (evaluation) only the
        pairs the gold scores are sent to the measure, the rest get 0 and are never read (2016
        scores 1,186 of 9,183 pairs)."""
        if not scored_only or self.scored.all():
            return super().submit(measure, progress)
        (request,) = self.requests(scored_only)
        answers = np.zeros(len(self.pairs))
        answers[self.scored] = request.answer(measure, progress)
        return self.from_answers(request, answers, measure)

    def from_answers(
        self, request: TextPairs, answers: np.ndarray, measure: Any = None
    ) -> STSOutput:
        """Every line needs a score: a pair the measure cannot score gets 0, with a warning."""
        unscored = int(np.isnan(answers).sum())
        warnings = []
        if unscored:
            text = f"{unscored} sentence pairs could not be scored; scored 0"
            warnings.append(InputWarning(None, None, text))
        return STSOutput(None, np.nan_to_num(answers, nan=0.0), None, warnings)

    def read_submission(self, path: Path, *, blanks: str = "gold", **_: Any) -> STSOutput:
        """The output file. ``blanks="gold"`` (the official rule): a blank line only where the
        gold is empty. ``blanks="any"`` (the server's hidden phases, :mod:`simeval.serve.hidden`,
        so that no answer tells which lines the gold scores): a blank line anywhere, scored 0
        with confidence 0 where the gold has a score, and counted as missing."""
        if blanks == "gold":
            return read_sts_output(path, len(self.gold), ~self.scored)
        if blanks != "any":
            raise ValueError(f"blanks must be 'gold' or 'any', not {blanks!r}")
        out = read_sts_output(path, len(self.gold), np.ones(len(self.gold), dtype=bool))
        blank = np.isnan(out.scores)  # a line that does not parse is an error, never NaN
        warnings = []
        lost = int((blank & self.scored).sum())
        if lost:
            text = f"{lost} of {int(self.scored.sum())} gold-scored lines are blank; scored 0"
            warnings.append(InputWarning(out.path, None, text))
        confidences = out.confidences
        if confidences is not None:
            confidences = np.where(blank, 0.0, confidences)
        return STSOutput(out.path, np.where(blank, 0.0, out.scores), confidences, warnings, blank)

    def write_submission(self, submission: STSOutput, out: Path) -> list[Path]:
        out.parent.mkdir(parents=True, exist_ok=True)
        write_sts_output(out, submission.scores, submission.confidences)
        return [out]

    def align(self, submission: STSOutput, **_: Any) -> Aligned:
        """One row per gold-scored line (lines with an empty gold are not evaluated)."""
        if len(submission.scores) != len(self.gold):
            raise InputError(
                submission.path,
                None,
                f"{len(submission.scores)} lines, but {self.name} has "
                f"{len(self.gold)} sentence pairs: expected one score per line for each pair",
            )
        m = self.scored
        n = int(m.sum())
        ones = np.ones(n, dtype=np.int64)
        covered = ones if submission.blank is None else (~submission.blank[m]).astype(np.int64)
        items = {
            "item": np.flatnonzero(m) + 1,
            "gold": self.gold[m],
            "score": np.asarray(submission.scores, dtype=float)[m],
            "covered": covered,
            "counted": ones,
        }
        for name, values in self.columns.items():
            items[name] = np.asarray(values, dtype=object)[m]
        if submission.confidences is not None:
            items["confidence"] = np.asarray(submission.confidences, dtype=float)[m]
        scored = int(covered.sum())
        return Aligned(
            items,
            {"gold": n, "scored": scored, "missing": n - scored, "extra": 0},
            warnings=list(submission.warnings),
        )
