"""The task contract: what every task kind implements, and the one Suite type.

A :class:`Benchmark` is data plus a task kind. Every kind answers the same five questions:

- ``request()``: the items a measure must score — word pairs, text pairs or documents to link
  (a :class:`Request`, which knows which method of a measure to call);
- ``read_submission(path)``: a participant's file, read and validated (errors name file and
  line);
- ``align(submission)``: predictions put against the gold, one row per gold item
  (:class:`Aligned`: the rows, coverage counts, warnings, settings);
- the metric set, computed from those rows by :func:`simeval.tasks.items.task_metrics` — the
  same function the report's bootstraps call on resampled rows;
- ``write_submission(submission, out)``: the official file(s) for a submission.

``evaluate(submission)`` is written once, here: align, compute the metrics from the rows, and
make the :class:`~simeval.results.record.Result`. A measure's scores become a submission
through ``from_answers``, so evaluating a measure and scoring a file meet in one code path.

A :class:`Suite` groups member benchmarks and adds an aggregate computed from their rows
(``sum`` of main scores as RUSSE ranked, ``sts`` for ALL/ALLnrm/Mean, ``mean`` of the members'
metrics, or none). Its submission is either one file for every member (``layout="one-file"``,
RUSSE's test.csv) or one file per member in a folder (``layout="folder"``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from simeval.errors import InputError, InputWarning
from simeval.results.items import Items
from simeval.results.record import CONSTANT, Result, Timer, warning_texts
from simeval.tasks.items import SUITE_KIND, concat_items, main_metric, task_metrics

Pairs = list[tuple[str, str]]


class Request(ABC):
    """What a task asks of a measure; ``answer`` calls the measure's matching method."""

    def words(self) -> set[str]:
        return set()

    def texts(self) -> set[str]:
        return set()

    @abstractmethod
    def answer(self, measure: Any, progress: Any = None) -> Any: ...


@dataclass
class WordPairs(Request):
    """Word pairs to score (``measure.score_words``)."""

    pairs: Pairs

    def strings(self) -> set[str]:
        return {x for p in self.pairs for x in p}

    def words(self) -> set[str]:
        return self.strings()

    def answer(self, measure: Any, progress: Any = None) -> np.ndarray:
        return np.asarray(measure.score_words(self.pairs), dtype=float)


class TextPairs(WordPairs):
    """Sentence or text pairs to score (``measure.score_texts``)."""

    def words(self) -> set[str]:
        return set()

    def texts(self) -> set[str]:
        return self.strings()

    def answer(self, measure: Any, progress: Any = None) -> np.ndarray:
        return np.asarray(measure.score_texts(self.pairs), dtype=float)


@dataclass
class Documents(Request):
    """Query documents to link to candidates (``measure.rank``): the top ``k`` per query."""

    data: Any  # measures.search.LinkingInput
    k: int

    def answer(self, measure: Any, progress: Any = None) -> Any:
        return measure.rank(self.data, self.k, progress)


@dataclass
class Aligned:
    """A submission against the gold: per-item rows and what happened on the way."""

    items: Items
    coverage: dict[str, int]
    warnings: list[InputWarning] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    breakdown: dict[str, dict[str, float]] = field(default_factory=dict)


def sha256_of(paths: Iterable[str | Path]) -> dict[str, str]:
    """``{path: sha256}`` of files read (a record keeps them, as catalog files' digests)."""
    from simeval.data.textio import sha256_file

    out = {}
    for p in paths:
        if not Path(p).is_file():
            raise InputError(p, None, "file not found")
        out[str(p)] = sha256_file(p)
    return out


class Benchmark(ABC):
    """One benchmark: a name, a task kind, the gold and what was read to get it."""

    name: str
    kind: str
    description: str
    data: dict[str, str]
    members: list[Benchmark] = []  # noqa: RUF012  (a benchmark has none; a suite overrides)
    submission_name = "{name}.txt"  # a member's file inside a suite's submission folder

    @property
    def main_metric(self) -> str:
        return main_metric(self.kind)

    def gold_keys(self) -> list[Any]:
        """The items a one-file suite's submission is matched on (pairs)."""
        raise TypeError(f"{self.name}: a {self.kind} benchmark cannot share a suite file")

    def requests(self, scored_only: bool = False) -> list[Request]:
        """What :meth:`submit` will ask of a measure (``scored_only``: as it asks when
        evaluating), so a measure can load it all beforehand."""
        return [self.request()]

    def submit(self, measure: Any, progress: Any = None, scored_only: bool = False) -> Any:
        """The measure's answers to ``request()`` as a submission of this task.
        ``scored_only``: the submission is only evaluated, never written, so a kind may skip
        items its gold does not score (STS)."""
        request = self.request()
        return self.from_answers(request, request.answer(measure, progress), measure)

    @abstractmethod
    def request(self) -> Request: ...

    @abstractmethod
    def from_answers(self, request: Any, answers: Any, measure: Any = None) -> Any:
        """A measure's answers to ``request`` as a submission of this task."""

    @abstractmethod
    def read_submission(self, path: Path, **options: Any) -> Any: ...

    @abstractmethod
    def align(self, submission: Any, **options: Any) -> Aligned: ...

    @abstractmethod
    def write_submission(self, submission: Any, out: Path) -> list[Path]: ...

    def submission_file(self, folder: Path) -> Path:
        return folder / self.submission_name.format(**vars(self))

    def evaluate(
        self, submission: Any, *, system: dict[str, Any] | None = None, **options: Any
    ) -> list[Result]:
        """Score ``submission``: align it, compute the kind's metrics from the rows."""
        with Timer() as timer:
            aligned = self.align(submission, **options)
            metrics = task_metrics(self.kind, aligned.items)
        return [
            Result(
                benchmark=self.name,
                task=self.kind,
                main_metric=self.main_metric,
                metrics=metrics,
                coverage=aligned.coverage,
                system=dict(system or {}),
                data=dict(self.data),
                warnings=warning_texts(aligned.warnings),
                settings=aligned.settings,
                seconds=timer.seconds,
                items=aligned.items,
                breakdown=aligned.breakdown,
                flags=flags_of(aligned.items),
            )
        ]


COVERAGE = ("gold", "scored", "missing", "extra")


def flags_of(items: Items) -> list[str]:
    """``["constant"]`` when the system gave every counted item the same score."""
    if "score" not in items:
        return []
    counted = np.asarray(items.get("counted", np.ones(len(items["score"]))), dtype=bool)
    scores = np.asarray(items["score"], dtype=float)[counted]
    return [CONSTANT] if len(scores) > 1 and np.all(scores == scores[0]) else []


@dataclass
class Suite:
    """Member benchmarks reported together, with an optional aggregate (module docstring)."""

    name: str
    members: list[Any]  # Benchmark
    aggregate: str | None = None  # "sum", "sts", "mean" or None (a group: members only)
    layout: str = "folder"  # "one-file" (one submission for all members) or "folder"
    description: str = ""

    @property
    def kind(self) -> str | None:
        return SUITE_KIND.get(self.aggregate or "")

    @property
    def data(self) -> dict[str, str]:
        return {k: v for b in self.members for k, v in b.data.items()}

    @cached_property
    def _known(self) -> frozenset:
        """A one-file suite's distinct items (a pair of another member is not extra); read and
        evaluate both need it."""
        return frozenset(p for m in self.members for p in m.gold_keys())

    def requests(self, scored_only: bool = False) -> list[Request]:
        if self.layout == "one-file":  # every distinct pair once, in the official file's order
            template = getattr(self.members[0], "template", None)
            keys = template.pairs if template is not None else []
            pairs = dict.fromkeys([*keys, *(p for m in self.members for p in m.request().pairs)])
            return [type(self.members[0].request())(list(pairs))]
        return [r for m in self.members for r in m.requests(scored_only)]

    def submit(self, measure: Any, progress: Any = None, scored_only: bool = False) -> Any:
        """The measure's answers as this suite's submission (one, or one per member)."""
        if self.layout == "one-file":
            (request,) = self.requests()
            answers = request.answer(measure, progress)
            return self.members[0].from_answers(request, answers, measure)
        return {m.name: m.submit(measure, progress, scored_only) for m in self.members}

    def read_submission(self, path: Path, **options: Any) -> Any:
        """One file for every member, or a folder with each member's file."""
        if self.layout == "one-file":
            return self.members[0].read_submission(path, only=self._known, **options)
        if not path.is_dir():
            names = ", ".join(m.submission_file(Path()).name for m in self.members)
            raise InputError(path, None, f"expected a folder holding {names}")
        out = {}
        for m in self.members:
            f = m.submission_file(path)
            if not f.is_file():
                names = ", ".join(x.submission_file(Path()).name for x in self.members)
                raise InputError(f, None, f"missing: {self.name} needs every file ({names})")
            out[m.name] = m.read_submission(f, **options)
        return out

    def write_submission(self, submission: Any, out: Path) -> list[Path]:
        """The official file (one-file) or a folder with each member's file."""
        if self.layout == "one-file":
            return self.members[0].write_submission(submission, out)
        out.mkdir(parents=True, exist_ok=True)
        return [
            p
            for m in self.members
            for p in m.write_submission(submission[m.name], m.submission_file(out))
        ]

    def evaluate(
        self, submission: Any, *, system: dict[str, Any] | None = None, **options: Any
    ) -> list[Result]:
        """A result per member, then the suite's (its aggregate over the members' rows)."""
        with Timer() as timer:
            if self.layout == "one-file":
                known = self._known
                parts = {m.name: submission for m in self.members}
                options = {**options, "suite_known": known}
            else:
                absent = [m.name for m in self.members if m.name not in submission]
                if absent:
                    raise InputError(
                        None, None, f"{self.name}: no submission for {', '.join(absent)}"
                    )
                parts = submission
            results = [
                r for m in self.members for r in m.evaluate(parts[m.name], system=system, **options)
            ]
            if self.kind is None:
                return results
            items = concat_items([(r.benchmark, r.task, r.items) for r in results])
            metrics = task_metrics(self.kind, items)
        if self.layout == "one-file":
            coverage, found = self.members[0].suite_coverage(submission, known)
            warnings = warning_texts(found)
        else:
            coverage = {k: sum(r.coverage.get(k, 0) for r in results) for k in COVERAGE}
            warnings = list(dict.fromkeys(w for r in results for w in r.warnings))
        settings = {k: v for k, v in results[0].settings.items() if k == "missing"}
        results.append(
            Result(
                benchmark=self.name,
                task=self.kind,
                main_metric=main_metric(self.kind, items),
                metrics=metrics,
                coverage=coverage,
                system=dict(system or {}),
                data=self.data,
                warnings=warnings,
                settings={**settings, "members": [m.name for m in self.members]},
                seconds=timer.seconds,
                items=items,
                breakdown=(
                    {r.benchmark: dict(r.metrics) for r in results}
                    if self.aggregate == "mean"
                    else {}
                ),
            )
        )
        return results
