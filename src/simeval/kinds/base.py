"""The task contract: the :class:`TaskKind` every kind is, the benchmarks it reads, one Suite.

A **task kind** (graded pairs, related/unrelated pairs, STS, document linking, and the suite
kinds named by their aggregate) is one :class:`TaskKind` object in its own module of
:mod:`simeval.kinds`, registered in the one ``KINDS`` map there. It answers, for every
benchmark of the kind and for every record that names it:

- reading the gold: ``entry`` (a registry file's ``[benchmark.NAME]`` table) and ``load``
  (an entry and its files -> a :class:`Benchmark`);
- the per-item rows' columns and how they resample (``cluster``, ``outputs``);
- the metric set over those rows (``metrics``) and the same set over many resamples at once
  (``resampled``), both read from the metrics declared for the kind
  (:mod:`simeval.metrics.catalog`), the main score (``main_metric``) and its ranking
  direction (``higher_is_better``, the main metric's declared one);
- what the report and the trainers need to know of it (``plot``, ``binary_gold``,
  ``text_pairs``, ``gold_range``); how its metrics are compared and which intervals they get
  is their declarations' (:class:`simeval.metrics.declared.Metric`).

A :class:`Benchmark` is data plus a task kind. Every benchmark answers the same five questions:

- ``request()``: the items a measure must score — word pairs, text pairs or documents to link
  (a :class:`~simeval.measures.base.Request`, which knows which method of a measure to call);
- ``read_submission(path)``: a participant's file, read and validated (errors name file and
  line);
- ``align(submission)``: predictions put against the gold, one row per gold item
  (:class:`Aligned`: the rows, coverage counts, warnings, settings);
- the metric set, computed from those rows by :func:`simeval.kinds.scoring.score_rows`
  (through :class:`~simeval.kinds.rows.ItemMetrics`, which the report's bootstraps call on
  resampled rows);
- ``write_submission(submission, out)``: the official file(s) for a submission.

``evaluate(submission)`` is written once, here: align, compute the metrics from the rows, and
make the :class:`~simeval.results.record.Result`. A measure's scores become a submission
through ``from_answers``, so evaluating a measure and scoring a file meet in one code path.

A :class:`Suite` groups member benchmarks and adds an aggregate computed from their rows
(``sum`` of main scores as RUSSE ranked, ``sts`` for ALL/ALLnrm/Mean, ``mean`` of the members'
metrics, or none: each aggregate is a suite kind). Its submission is either one file for every
member (``layout="one-file"``, RUSSE's test.csv) or one file per member in a folder
(``layout="folder"``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from simeval.errors import InputError, InputWarning
from simeval.kinds.handout import LeakView, Restored
from simeval.kinds.layouts import LAYOUTS, Layout
from simeval.measures.base import Request, numbers_per_pair
from simeval.metrics import catalog
from simeval.metrics.declared import Metric, Replicates, Sorted, point_values, resampled_values
from simeval.results.items import Items
from simeval.results.record import CONSTANT, Result, Timer, warning_texts

Columns = Mapping[str, np.ndarray]  # a result's rows as the metrics read them
Batch = dict[str, np.ndarray]  # a metric's values over many resamples
Files = Callable[[str], tuple[Path, str]]  # a file of a registry entry -> (local path, sha256)

Pairs = list[tuple[str, str]]


@dataclass(frozen=True)
class View:
    """A named way to split a benchmark's items for the report (:mod:`simeval.report.subsets`).

    ``how``: ``column`` (by value), ``quartiles`` (of the sum of ``columns``), ``flag`` (a 1/0
    column against the rest), ``flags`` (one subset per 1/0 column; they may overlap).
    """

    name: str
    how: str
    columns: tuple[str, ...]


class TaskKind:
    """One task kind (module docstring): a name that records carry and the rules behind it.

    A kind is a class attribute set plus a few methods; every attribute has a default a new
    kind of scored items can keep. Its metrics are :class:`simeval.metrics.declared.Metric`
    declarations naming the kind: the built-in kinds' in :mod:`simeval.metrics.catalog`, a new
    kind's in its own module, as ``declares`` (registered in the catalog with the kind:
    :func:`simeval.kinds.register`). A kind with none declared writes ``metrics`` itself (and
    is then resampled replicate by replicate).
    """

    name: str = ""  # what records carry as ``task``
    aliases: tuple[str, ...] = ()  # names older records carry for it
    declares: tuple[Metric, ...] = ()  # metrics declared in the kind's own module
    toml: tuple[str, ...] = ()  # ``kind = ...`` of a registry file's ``[benchmark.NAME]``
    main: str | None = None  # the main metric
    suite: bool = False  # its rows are a suite's members' (strata ``benchmark``)
    columns: tuple[str, ...] = ()  # the item rows' columns (documentation)
    numeric: tuple[str, ...] = ("gold", "score", "confidence")  # read by the metrics, as floats
    codes: tuple[str, ...] = ()  # string columns read as integer codes (code-point order)
    cluster: str | None = None  # resample by this column's values, not row by row
    outputs: tuple[str, ...] = ("score",)  # a system's per-item outputs (randomization swaps)
    # for the report and the trainers
    plot: str | None = None  # "scatter" (gold vs system) or "pr" (precision-recall)
    plot_members: bool = True  # plotted also as a suite member (STS: the suite plots them)
    binary_gold: bool = False  # gold is 1/0 (related or not)
    text_pairs: bool = False  # items are sentence pairs, not word pairs
    gold_range: tuple[float, float] | None = None  # the gold's fixed scale (STS: 0-5)

    def __repr__(self) -> str:
        return f"<task kind {self.name}>"

    def main_metric(self, items: Columns | None = None) -> str:
        """The main metric (a kind whose main depends on its rows looks at ``items``)."""
        if self.main is None:
            raise ValueError(f"task kind {self.name} names no main metric")
        return self.main

    @property
    def higher_is_better(self) -> bool:
        """The ranking direction of the main metric, as declared."""
        return catalog.higher_is_better(self.main_metric(), self.name)

    def declared(self, columns: Collection[str], main_only: bool) -> list[Metric]:
        """The metrics declared for this kind that the rows' ``columns`` allow, in record
        order (``main_only``: the main one alone)."""
        found = [m for m in catalog.of_kind(self.name) if m.applies(columns)]
        return [m for m in found if m.name == self.main_metric()] if main_only else found

    def metrics(self, c: Columns, main_only: bool) -> dict[str, float]:
        """Every metric over the rows ``c`` (``main_only``: the main one, cheaper)."""
        found = self.declared(c, main_only)
        if not found:
            raise NotImplementedError(f"{self.name}: no metrics declared for this kind")
        return point_values(found, c)

    def resampled(self, p: Sorted, w: np.ndarray, main_only: bool) -> Batch | None:
        """The metrics of many resamples at once (``p``: the rows' :class:`Sorted`, ``w``:
        (B, n) row multiplicities); None: no metrics declared, resample replicate by
        replicate."""
        found = self.declared(p.c, main_only)
        return resampled_values(found, Replicates(p, w)) if found else None

    def resample(self, p: Any, w: np.ndarray, main_only: bool) -> Batch:
        """:meth:`resampled`, or the metrics of each row of ``w`` one at a time."""
        found = self.resampled(p, w, main_only)
        if found is not None:
            return found
        index = np.arange(w.shape[1])
        per = [
            self.metrics(
                {k: v[np.repeat(index, counts)] for k, v in p.c.items()},
                main_only,
            )
            for counts in np.asarray(w, dtype=np.int64)
        ]
        return {k: np.array([x[k] for x in per]) for k in per[0]} if per else {}

    def swapped(
        self, c: Columns, a: np.ndarray, b: np.ndarray, swap: np.ndarray, main_only: bool
    ) -> tuple[Batch, Batch] | None:
        """Approximate randomization's rounds at once (:meth:`ItemMetrics.swapped`), or None."""
        return None

    # -- reading the gold ---------------------------------------------------------------------

    def entry(
        self, source: Path, name: str, spec: dict[str, Any], rel: Callable[[str], str]
    ) -> Any:
        """A registry file's ``[benchmark.NAME]`` table of this kind as an entry. ``spec``: the
        table without ``kind``; pop every key used (``description`` included): a key left is
        refused. ``rel(key)``: pops a path, made relative to the file (required). The entry
        has ``name``, ``kind`` (this kind's name) and ``description``."""
        raise InputError(source, None, f"benchmark {name}: a {self.name} cannot be declared here")

    def built_entry(
        self, name: str, builder: str, options: tuple[tuple[str, Any], ...], description: str
    ) -> Any:
        """The entry of a benchmark a dataset builder makes (a registry table with
        ``builder = ...`` and its ``options``), or None: this kind has no builder."""
        return None

    def load(self, entry: Any, files: Files, build: Any = None) -> Any:
        """The benchmark of ``entry`` (``files``: a file's local path and sha256)."""
        raise TypeError(f"{self.name}: no loader")

    def entry_files(self, entry: Any) -> list[str]:
        """The files ``entry`` reads (catalog paths for catalog entries)."""
        return []

    # -- predictions given in memory (simeval.score(target, predictions)) ---------------------

    def as_submission(self, target: Any, predictions: Any) -> Any:
        """``predictions`` held in memory as the submission of ``target`` (a benchmark of this
        kind), aligned by key or, for a flat sequence, by position
        (:mod:`simeval.api.predictions`). This default reads none."""
        raise InputError(
            None, None, f"{target.name}: in-memory predictions for {self.name!r} are not read"
        )

    # -- what a shared-task server asks of a kind (simeval.serve) -----------------------------
    # ``target``: a benchmark of this kind, or a one-file suite whose members are of this kind

    def input_file(self, target: Any, secret: str | None = None) -> tuple[str, bytes] | None:
        """What participants score for ``target``, without the gold: ``(file name, bytes)``;
        None when there is nothing to download. ``secret``: a campaign's, which draws the
        items' order and ids (:mod:`simeval.kinds.handout`); None: as published."""
        return None

    def restore(
        self, target: Any, path: Path, secret: str | None, scratch: Path, blanks: bool = False
    ) -> Restored:
        """An upload made from the input file that ``secret`` drew, put back in the gold's
        order and ids (a file written under ``scratch`` when anything moves). ``blanks``: a
        blank STS line may stand anywhere (a hidden phase). Raise :class:`InputError` for a
        file that names the published ids instead of the handed-out ones. This default:
        the file as it is (items read by their own keys)."""
        return Restored(path)

    def leak_view(self, target: Any, secret: str | None) -> LeakView:
        """What the leak audit examines of ``target``'s input as handed out with ``secret``
        (:mod:`simeval.kinds.handout`). This default: nothing."""
        return LeakView()

    def public_check(self, target: Any, path: Path) -> list[InputWarning]:
        """Refuse the submission at ``path`` (an :class:`InputError`) only for what
        ``target``'s input file shows, with a message that depends on the file and that input
        alone; else the warnings those two alone give. The rule of a hidden phase
        (:mod:`simeval.serve.service.hidden`): nothing of the gold may refuse a file or show in
        a message. This default refuses nothing."""
        return []


@dataclass(frozen=True)
class KindEntry:
    """A registry entry a kind reads with no entry type of its own: its files (resolved paths)
    and options, as the registry file gave them."""

    name: str
    kind: str
    description: str = ""
    files: tuple[tuple[str, str], ...] = ()  # (key, path)
    options: tuple[tuple[str, Any], ...] = ()


class SuiteKind(TaskKind):
    """A suite's kind: its metrics are an aggregate over the members' rows."""

    suite = True
    aggregate: str = ""  # the registry's ``aggregate = ...``
    breakdown: bool = False  # the record keeps each member's metrics
    member_kinds: tuple[str, ...] = ()  # the kinds of member it combines (empty: any)

    def metrics(self, c: Columns, main_only: bool) -> dict[str, float]:  # pragma: no cover
        raise TypeError(f"{self.name}: a suite's metrics need its members (combine)")

    def combine(
        self, parts: list[Columns], kinds: list[TaskKind], names: list[str], main_only: bool
    ) -> dict[str, float]:
        """The metrics over the members' rows ``parts`` (their kinds and names)."""
        raise NotImplementedError

    def combine_resampled(
        self,
        whole: Any,
        members: list[tuple[np.ndarray, Any]],
        w: np.ndarray,
        kinds: list[TaskKind],
        names: list[str],
        main_only: bool,
    ) -> Batch:
        """:meth:`combine` over many resamples at once (``whole``, each member's (rows,
        :class:`~simeval.metrics.declared.Sorted`))."""
        raise NotImplementedError


def answer_scores(pairs: list[tuple[str, str]], answers: Any) -> np.ndarray:
    """A measure's answers to a request of ``pairs`` as one float per pair, in order.

    Raises:
        InputError: not one number per pair. A gold set may hold a pair twice (WordSim-353
            has (money, cash) twice) while ``request()`` asks for it once, so answers lined up
            with the gold's rows would shift every later score: they are refused, never
            matched by position.
    """
    return numbers_per_pair(
        answers,
        len(pairs),
        not_numbers="expected one number per pair, got {error}",
        wrong_count=f"{{got}} answers for the {len(pairs)} pairs of request(): give one score "
        "per request().pairs entry, in its order (a pair the gold holds twice is asked once)",
    )


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
    def task_kind(self) -> TaskKind:
        from simeval.kinds import kind

        return kind(self.kind)

    @property
    def main_metric(self) -> str:
        return self.task_kind.main_metric()

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
        from simeval.kinds.scoring import score_rows

        with Timer() as timer:
            aligned = self.align(submission, **options)
            metrics = score_rows(self.kind, aligned.items)
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
    def task_kind(self) -> SuiteKind | None:
        from simeval.kinds import suite_kind

        return suite_kind(self.aggregate) if self.aggregate else None

    @property
    def kind(self) -> str | None:
        return self.task_kind.name if self.task_kind is not None else None

    @property
    def data(self) -> dict[str, str]:
        return {k: v for b in self.members for k, v in b.data.items()}

    @cached_property
    def known(self) -> frozenset:
        """A one-file suite's distinct items (a pair of another member is not extra); read and
        evaluate both need it."""
        return frozenset(p for m in self.members for p in m.gold_keys())

    @cached_property
    def _layout(self) -> Layout:
        """The layout named by ``layout``, chosen once (:mod:`simeval.kinds.layouts`)."""
        found = LAYOUTS.get(self.layout)
        if found is None:
            raise ValueError(f"{self.name}: no suite layout {self.layout!r} ({', '.join(LAYOUTS)})")
        return found

    def requests(self, scored_only: bool = False) -> list[Request]:
        return self._layout.requests(self, scored_only)

    def submit(self, measure: Any, progress: Any = None, scored_only: bool = False) -> Any:
        """The measure's answers as this suite's submission (one, or one per member)."""
        return self._layout.submit(self, measure, progress, scored_only)

    def read_submission(self, path: Path, **options: Any) -> Any:
        """One file for every member, or a folder with each member's file."""
        return self._layout.read(self, path, **options)

    def write_submission(self, submission: Any, out: Path) -> list[Path]:
        """The official file (one-file) or a folder with each member's file."""
        return self._layout.write(self, submission, out)

    def evaluate(
        self, submission: Any, *, system: dict[str, Any] | None = None, **options: Any
    ) -> list[Result]:
        """A result per member, then the suite's (its aggregate over the members' rows)."""
        from simeval.kinds.rows import concat_items
        from simeval.kinds.scoring import score_rows

        kind = self.task_kind
        with Timer() as timer:
            parts, options = self._layout.parts(self, submission, options)
            results = [
                r for m in self.members for r in m.evaluate(parts[m.name], system=system, **options)
            ]
            if kind is None:
                return results
            items = concat_items([(r.benchmark, r.task, r.items) for r in results])
            metrics = score_rows(kind.name, items)
        coverage, warnings = self._layout.coverage(self, submission, results)
        settings = {k: v for k, v in results[0].settings.items() if k in ("missing", "duplicates")}
        results.append(
            Result(
                benchmark=self.name,
                task=kind.name,
                main_metric=kind.main_metric(items),
                metrics=metrics,
                coverage=coverage,
                system=dict(system or {}),
                data=self.data,
                warnings=warnings,
                settings={**settings, "members": [m.name for m in self.members]},
                seconds=timer.seconds,
                items=items,
                breakdown=(
                    {r.benchmark: dict(r.metrics) for r in results} if kind.breakdown else {}
                ),
            )
        )
        return results
