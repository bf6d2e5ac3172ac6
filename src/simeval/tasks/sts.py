"""The STS task kind: sentence pairs aligned by line, Pearson per dataset, ALL/ALLnrm/Mean.

A system output must have exactly one line per input pair (the 2012 Perl script silently
misaligned shorter files; here it is an error naming the file). Gold lines left empty mark
unscored pairs: their system scores are read but not evaluated.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from simeval.data.sts import STSOutput
from simeval.errors import InputError
from simeval.metrics import pearson, sts_all, sts_allnrm, sts_mean, weighted_pearson
from simeval.results.record import Result, Timer
from simeval.tasks.items import STS, STS_SUITE, Items, concat_items


@dataclass
class STSBenchmark:
    """One STS dataset: sentence pairs and gold scores (NaN = unscored)."""

    name: str
    dataset: str
    pairs: list[tuple[str, str]]
    gold: np.ndarray
    description: str = ""
    data: dict[str, str] = field(default_factory=dict)

    @property
    def scored(self) -> np.ndarray:
        return ~np.isnan(self.gold)

    def check(self, output: STSOutput) -> None:
        if len(output.scores) != len(self.gold):
            raise InputError(
                output.path,
                None,
                f"{len(output.scores)} lines, but {self.name} has "
                f"{len(self.gold)} sentence pairs: expected one score per line for each pair",
            )

    def evaluate(self, output: STSOutput, *, system: dict[str, Any] | None = None) -> Result:
        """Pearson's r with the gold (and the confidence-weighted r when confidences are given)."""
        self.check(output)
        with Timer() as timer:
            m = self.scored
            metrics = {"pearson": pearson(output.scores[m], self.gold[m])}
            if output.confidences is not None:
                metrics["weighted_pearson"] = weighted_pearson(
                    output.scores[m], self.gold[m], output.confidences[m]
                )
        n = int(m.sum())
        return Result(
            benchmark=self.name,
            task=STS,
            main_metric="pearson",
            metrics=metrics,
            coverage={"gold": n, "scored": n, "missing": 0, "extra": 0},
            system=system or {},
            data=dict(self.data),
            seconds=timer.seconds,
            items=self.items(output),
        )

    def items(self, output: STSOutput) -> Items:
        """One row per gold-scored line (lines with an empty gold are not evaluated)."""
        m = self.scored
        ones = np.ones(int(m.sum()), dtype=np.int64)
        return {
            "item": np.flatnonzero(m) + 1,
            "gold": self.gold[m],
            "score": np.asarray(output.scores, dtype=float)[m],
            "covered": ones,
            "counted": ones,
        }


@dataclass
class STSSuite:
    """Datasets reported together, with the SemEval-2012 aggregates ALL, ALLnrm and Mean."""

    name: str
    benchmarks: list[STSBenchmark]
    description: str = ""

    def evaluate(
        self, outputs: Mapping[str, STSOutput], *, system: dict[str, Any] | None = None
    ) -> list[Result]:
        """One result per dataset, then one for the suite (ALL, ALLnrm, Mean).

        ``outputs`` maps dataset names (``MSRpar``) to system outputs; every dataset is needed.
        """
        absent = [b.dataset for b in self.benchmarks if b.dataset not in outputs]
        if absent:
            raise InputError(
                None,
                None,
                f"{self.name}: no system output for "
                f"{', '.join(absent)}; ALL, ALLnrm and Mean need every dataset",
            )
        results = [b.evaluate(outputs[b.dataset], system=system) for b in self.benchmarks]
        with Timer() as timer:
            golds = [b.gold[b.scored] for b in self.benchmarks]
            systems = [outputs[b.dataset].scores[b.scored] for b in self.benchmarks]
            metrics = {
                "all": sts_all(golds, systems),
                "allnrm": sts_allnrm(golds, systems),
                "mean": sts_mean([r.metrics["pearson"] for r in results], [len(g) for g in golds]),
            }
        n = sum(len(g) for g in golds)
        data: dict[str, str] = {}
        for b in self.benchmarks:
            data.update(b.data)
        results.append(
            Result(
                benchmark=self.name,
                task=STS_SUITE,
                main_metric="all",
                metrics=metrics,
                coverage={"gold": n, "scored": n, "missing": 0, "extra": 0},
                system=system or {},
                data=data,
                settings={"members": [b.name for b in self.benchmarks]},
                seconds=timer.seconds,
                items=concat_items([(r.benchmark, r.task, r.items) for r in results]),
            )
        )
        return results
