"""Bitext retrieval (the Tatoeba test of LASER, MTEB's ``BitextMining``): each sentence of one
language is matched with its translation among the sentences of another, and scored by
accuracy, the share of sentences whose nearest candidate is their translation (LASER reports
its complement, the error rate).

Gold: two files, one sentence a line; line i of ``source_text`` translates line i of
``target_text``. A registry file declares a benchmark as ``kind = "bitext"`` with those two
paths and ``lang``, the source language's code (for measures that read it: dictionaries,
lemmatisers).

A measure answers through the request linking documents already use
(:class:`~simeval.measures.base.Documents`): the target sentences are the documents, each
source sentence a query, and its first-ranked document its answer; equal scores go to the
earlier line, as ``numpy.argmax`` (MTEB) gives them.

Submission: one line per source sentence, in the source file's order: the number (1-based)
of the target line chosen for it, or nothing (not answered: counted wrong).
A shared-task campaign hands out ``<name>-inputs.zip`` with ``source.txt`` and ``target.txt``,
each in an order drawn from the campaign's secret (with the gold's order the answer to line
i would be line i); an upload names lines of those files and is read back through the same
draw.

Rows: one per source sentence: ``qid`` (its line), ``expected`` and ``predicted`` (target
lines; 0: none), ``right`` (1/0), ``covered`` (answered), ``counted`` (1). Metrics (declared
here): ``accuracy`` (main) over every sentence, and the count ``sentences``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simeval.data.documents import LinkingInput
from simeval.data.textio import iter_lines, parse_int, shown
from simeval.errors import InputError, InputWarning
from simeval.kinds.base import Aligned, Benchmark, Files, TaskKind, View
from simeval.kinds.handout import LeakView, Ordered, Restored, order
from simeval.measures.base import Documents
from simeval.metrics.declared import (
    COUNT,
    RANDOMIZATION,
    SHARE,
    TALLY,
    UNIT,
    Columns,
    Metric,
    Replicates,
)

METRIC_COLUMNS = ("right", "covered")
_KIND = "bitext"
_MTEB = "MTEB BitextMiningEvaluator accuracy (sklearn.metrics.accuracy_score of argmax cosine)"


def _accuracy(c: Columns) -> float:
    return float(c["right"].mean()) if len(c["right"]) else float("nan")


def _accuracy_w(r: Replicates) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return r.w @ r.c["right"] / r.total


def _sentences(c: Columns) -> float:
    return float(len(c["right"]))


def _sentences_w(r: Replicates) -> np.ndarray:
    return r.total


METRICS = (
    Metric(
        "accuracy", (_KIND,), _accuracy, _accuracy_w,
        description="share of the source sentences whose chosen target is their translation "
        "(1 − LASER's error rate); unanswered ones count wrong",
        scorer=_MTEB, bounds=UNIT, family=SHARE, paired_test=RANDOMIZATION,
        reference="sklearn.metrics.accuracy_score(numpy.ones(len(right)), right)",
    ),
    Metric(
        "sentences", (_KIND,), _sentences, _sentences_w, family=COUNT,
        description="source sentences", scorer=_MTEB, bounds=TALLY,
        paired_test=RANDOMIZATION, reference="len(right)",
    ),
)  # fmt: skip


def read_sentences(path: Path) -> list[str]:
    """One sentence a line (blank lines kept: they are sentences of the aligned file)."""
    return [text for _, text in iter_lines(path)]


@dataclass
class Choices:
    """A system's chosen target line (0-based; -1: none) for each source sentence."""

    chosen: np.ndarray
    path: Path | None = None


class BitextKind(TaskKind):
    name = _KIND
    declares = METRICS
    toml = ("bitext",)
    main = "accuracy"
    columns = ("qid", "expected", "predicted", *METRIC_COLUMNS, "counted")
    numeric = METRIC_COLUMNS
    outputs = METRIC_COLUMNS  # per-sentence outputs: the report swaps them by ``qid``

    def entry(self, source: Path, name: str, spec: dict[str, Any], rel: Any) -> BitextEntry:
        lang = spec.pop("lang", "")
        if not isinstance(lang, str) or not lang:
            raise InputError(source, None, f"benchmark {name}: 'lang' must name the language")
        description = str(spec.pop("description", ""))
        return BitextEntry(name, rel("source_text"), rel("target_text"), lang, description)

    def load(self, entry: BitextEntry, files: Files, build: Any = None) -> BitextBenchmark:
        (src, src_sha), (tgt, tgt_sha) = files(entry.source_text), files(entry.target_text)
        sources, targets = read_sentences(src), read_sentences(tgt)
        if len(sources) != len(targets):
            raise InputError(
                tgt, None, f"benchmark {entry.name}: {len(targets)} lines, but its source "
                f"file {src} has {len(sources)}: line i of each must translate the other's",
            )  # fmt: skip
        return BitextBenchmark(
            entry.name, sources, targets, entry.lang, entry.description,
            {str(src): src_sha, str(tgt): tgt_sha},
        )  # fmt: skip

    def entry_files(self, entry: BitextEntry) -> list[str]:
        return [entry.source_text, entry.target_text]

    def as_submission(self, target: Any, predictions: Any) -> Choices:
        """One choice per source sentence, in order: the 0-based position of its target
        sentence (``numpy.argmax`` of a similarity row gives it), the target sentence itself,
        or None (not answered)."""
        if isinstance(predictions, str | bytes) or not hasattr(predictions, "__len__"):
            raise InputError(
                None, None, f"{target.name}: expected a list of choices for its "
                f"{len(target)} sentences, got {type(predictions).__name__}",
            )  # fmt: skip
        found = list(predictions)
        if len(found) != len(target):
            raise InputError(
                None, None, f"{target.name}: {len(found)} choices for {len(target)} sentences",
            )  # fmt: skip
        where = {t: i for i, t in reversed(list(enumerate(target.targets)))}
        chosen = np.full(len(found), -1, dtype=np.int64)
        for k, c in enumerate(found):
            if c is None:
                continue
            if isinstance(c, str):
                if c not in where:
                    raise InputError(
                        None, None, f"{target.name}: choice {k + 1} is not one of its target "
                        f"sentences: {shown(c)!r}",
                    )  # fmt: skip
                chosen[k] = where[c]
            elif (
                isinstance(c, int | np.integer)
                and not isinstance(c, bool)
                and (0 <= c < len(target))
            ):
                chosen[k] = int(c)
            else:
                raise InputError(
                    None, None, f"{target.name}: choice {k + 1} must be a target position "
                    f"(0 to {len(target) - 1}), a target sentence or None, not {c!r}",
                )  # fmt: skip
        return Choices(chosen)

    # -- the shared-task server -----------------------------------------------------------

    def input_file(self, target: Any, secret: str | None = None) -> tuple[str, bytes] | None:
        """``source.txt`` and ``target.txt`` in the orders ``secret`` draws (module
        docstring), zipped."""
        from simeval.data.zipped import pack

        src, tgt = target.orders(secret)
        lines = [
            "".join(f"{texts[i]}\n" for i in places).encode("utf-8")
            for texts, places in ((target.sources, src), (target.targets, tgt))
        ]
        return f"{target.name}-inputs.zip", pack(
            list(zip(("source.txt", "target.txt"), lines, strict=True))
        )

    def restore(
        self, target: Any, path: Path, secret: str | None, scratch: Path, blanks: bool = False
    ) -> Restored:
        """An upload naming lines of the handed-out ``target.txt`` for the handed-out
        ``source.txt``, written back as target lines of the gold for its source lines."""
        if secret is None:
            return Restored(path)
        src, tgt = target.orders(secret)
        handed = target.read_choices(path)  # errors name the participant's own lines
        chosen = np.full(len(src), -1, dtype=np.int64)
        for k, i in enumerate(src):
            chosen[i] = tgt[handed[k]] if handed[k] >= 0 else -1
        out = scratch / "restored" / Path(path).name
        target.write_submission(Choices(chosen), out)
        return Restored(out, {i + 1: k + 1 for k, i in enumerate(src)}, origin=path)

    def leak_view(self, target: Any, secret: str | None) -> LeakView:
        """Each handed-out source line beside the handed-out place of its translation."""
        src, tgt = target.orders(secret)
        place = np.argsort(tgt)  # a gold target line's place in target.txt
        gold = [float(place[i]) for i in src]
        return LeakView([Ordered(target.name, list(range(len(src))), gold)])

    def public_check(self, target: Any, path: Path) -> list[InputWarning]:
        """The file reads as one target line (or nothing) per source line."""
        target.read_choices(path)
        return []


BITEXT = BitextKind()


@dataclass(frozen=True)
class BitextEntry:
    """A bitext benchmark as a registry file declares it."""

    name: str
    source_text: str
    target_text: str
    lang: str
    description: str = ""
    views: tuple[View, ...] = ()
    source: str = ""  # the catalog's data set (``simeval data info SOURCE``)
    split: str = "test"
    kind: str = BITEXT.name


@dataclass
class BitextBenchmark(Benchmark):
    """Aligned sentences: ``sources[i]`` translates ``targets[i]``."""

    name: str
    sources: list[str] = field(repr=False)
    targets: list[str] = field(repr=False)
    lang: str = ""
    description: str = ""
    data: dict[str, str] = field(default_factory=dict)
    kind = BITEXT.name
    submission_name = "{name}.txt"

    def __len__(self) -> int:
        return len(self.sources)

    def orders(self, secret: str | None) -> tuple[list[int], list[int]]:
        """The handed-out orders of the source and the target lines (the identity with no
        secret); a role prefix keeps the two draws apart."""
        n = len(self.sources)
        return (
            order(secret, [f"source\t{self.name}\t{i}" for i in range(n)]),
            order(secret, [f"target\t{self.name}\t{i}" for i in range(n)]),
        )

    def request(self) -> Documents:
        return Documents(LinkingInput(self.lang, self.sources, self.targets), 1)

    def from_answers(self, request: Documents, answers: Any, measure: Any = None) -> Choices:
        """The first-ranked target of each source (``TopK``; -1: none)."""
        index = np.asarray(answers.index, dtype=np.int64)
        if index.shape[0] != len(self.sources):
            raise InputError(
                None, None, f"{self.name}: a ranking of {index.shape[0]} sentences, expected "
                f"{len(self.sources)}",
            )  # fmt: skip
        first = index[:, 0] if index.shape[1] else np.full(len(self.sources), -1)
        return Choices(first.astype(np.int64))

    def read_choices(self, path: Path) -> np.ndarray:
        """A submission's chosen lines, 0-based (-1: none), refused with its file and line
        when a line is not a target line number or the lines are not one per sentence."""
        n = len(self.sources)
        chosen: list[int] = []
        for number, text in iter_lines(path):
            if len(chosen) == n:
                if text.strip():
                    raise InputError(path, number, f"more lines than the {n} sentences of "
                                     f"{self.name}")  # fmt: skip
                continue
            if not text.strip():
                chosen.append(-1)
                continue
            value = parse_int(text, path, number, "a target line number")
            if not 1 <= value <= n:
                raise InputError(
                    path, number, f"target line {shown(text)} is not one of the {n} lines "
                    f"(1 to {n})",
                )  # fmt: skip
            chosen.append(value - 1)
        if len(chosen) != n:
            raise InputError(
                path, None, f"{len(chosen)} lines, but {self.name} has {n} source sentences: "
                "one line each, the number of its target line (or nothing)",
            )  # fmt: skip
        return np.array(chosen, dtype=np.int64)

    def read_submission(self, path: Path, **_: Any) -> Choices:
        return Choices(self.read_choices(path), Path(path))

    def write_submission(self, submission: Choices, out: Path) -> list[Path]:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(
            "".join(f"{c + 1}\n" if c >= 0 else "\n" for c in submission.chosen.tolist()),
            encoding="utf-8",
        )
        return [out]

    def align(self, submission: Choices, **_: Any) -> Aligned:
        """One row per source sentence: its chosen line, and whether it is its translation."""
        n = len(self.sources)
        chosen = np.asarray(submission.chosen, dtype=np.int64)
        answered = chosen >= 0
        items = {
            "qid": np.array([str(i + 1) for i in range(n)], dtype=str),
            "expected": np.arange(1, n + 1, dtype=np.int64),
            "predicted": np.where(answered, chosen + 1, 0),
            "right": (chosen == np.arange(n)).astype(float),
            "covered": answered.astype(np.int64),
            "counted": np.ones(n, dtype=np.int64),
        }
        k = int(answered.sum())
        warnings = []
        if k < n:
            warnings.append(
                InputWarning(
                    submission.path,
                    None,
                    f"{n - k} of {n} sentences have no target line; they count wrong",
                )
            )
        return Aligned(items, {"gold": n, "scored": k, "missing": n - k, "extra": 0}, warnings)
