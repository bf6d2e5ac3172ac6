"""Word analogy (the Google analogy set of word2vec): ``a : b :: c : ?``, scored by accuracy
as gensim's ``KeyedVectors.evaluate_word_analogies`` scores it.

Gold: a questions file, ``: SECTION`` lines starting each section and one question a line,
``a b c d`` (a is to b as c is to d); blank lines are passed over. A registry file declares a
benchmark as ``kind = "analogy"`` with ``gold`` (the questions), and optionally
``restrict_vocab`` (the candidates are a measure's first N words; 300,000 as gensim) and
``case_insensitive`` (true as gensim: words are compared upper-cased).

A measure answers through :class:`AnalogyQuestions` (its
``answer_analogies``: word vectors, 3CosAdd or 3CosMul, :mod:`simeval.measures.analogy`); a
question with a word outside its first ``restrict_vocab`` words, the expected answer
included, gets no answer, as gensim skips it.

Submission: the questions file without the answers, each question line followed by the
system's answer: ``a b c answer`` (``a b c`` alone: not answered), in the questions' order,
``: SECTION`` lines optional. The Google set holds 190 questions twice (in two sections), so
lines are matched by position, each checked against its question's ``a b c``.

Rows: one per question: ``qid`` (its number), ``section``, ``a``, ``b``, ``c``, ``expected``,
``predicted`` (empty: no answer), ``right`` (1/0: the answer is the expected word),
``covered`` (answered), ``counted`` (1).
Metrics (declared here, :data:`METRICS`): ``accuracy`` over the answered
questions (main; gensim's "Total accuracy"), and the counts ``questions``, ``answered``,
``correct``, ``skipped``; the record's breakdown gives them per section. Unanswered
questions are left out of the accuracy whatever ``missing`` says (gensim's
``dummy4unknown=False``), and counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simeval.data.textio import iter_lines, shown
from simeval.errors import InputError, InputWarning
from simeval.kinds.base import Aligned, Benchmark, Files, TaskKind, View
from simeval.measures.base import Request
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

METRIC_COLUMNS = ("right", "covered")  # the rows' numbers the metrics read
RESTRICT_VOCAB = 300_000  # gensim's default cut of the candidates


@dataclass
class AnalogyQuestions(Request):
    """Analogy questions for a measure with word vectors (``measure.answer_analogies``). The
    expected answer is given too, only so that a question whose answer is outside the
    measure's vocabulary is skipped as gensim skips it; it never enters the search."""

    questions: list[tuple[str, str, str, str]]
    restrict_vocab: int = RESTRICT_VOCAB
    case_insensitive: bool = True

    def answer(self, measure: Any, progress: Any = None) -> list[str | None]:
        solve = getattr(measure, "answer_analogies", None)
        if solve is None:
            name = getattr(measure, "spec", None) or getattr(measure, "name", "this measure")
            raise InputError(
                None, None, f"measure {name} cannot answer analogy questions: they need word "
                "vectors (vectors:path=FILE, analogy=3cosadd or 3cosmul)",
            )  # fmt: skip
        return solve(
            self.questions,
            restrict_vocab=self.restrict_vocab,
            case_insensitive=self.case_insensitive,
            progress=progress,
        )


# -- the metrics (declared here, registered in the catalog with the kind) ---------------------


def _answered_accuracy(c: Columns) -> float:
    answered = float(c["covered"].sum())
    return float(c["right"].sum()) / answered if answered else float("nan")


def _answered_accuracy_w(r: Replicates) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return r.w @ r.c["right"] / (r.w @ r.c["covered"])


def _questions(c: Columns) -> float:
    return float(len(c["covered"]))


def _questions_w(r: Replicates) -> np.ndarray:
    return r.total


def _count_of(column: str, value: float) -> tuple[Any, Any]:
    """The point and resampled functions of the number of rows whose ``column`` is ``value``."""

    def point(c: Columns) -> float:
        return float((c[column] == value).sum())

    def resampled(r: Replicates) -> np.ndarray:
        return r.w @ (r.c[column] == value).astype(float)

    return point, resampled


_GENSIM = "gensim 4.4.0 KeyedVectors.evaluate_word_analogies (len of its correct/incorrect lists)"
_REFERENCE = (
    "gensim's evaluate_word_analogies answers from vectors, not from rows: "
    "tests/kinds/test_analogy.py compares every figure with it on two vector sets"
)
_KIND = "analogy"
METRICS = (
    Metric(
        "accuracy", (_KIND,), _answered_accuracy, _answered_accuracy_w,
        description="share of the answered questions whose answer is the expected word "
        "(upper-cased when the benchmark folds case); unanswered ones are left out",
        scorer="gensim 4.4.0 KeyedVectors.evaluate_word_analogies (its Total accuracy)",
        bounds=UNIT, family=SHARE, paired_test=RANDOMIZATION, no_reference=_REFERENCE,
    ),
    Metric(
        "questions", (_KIND,), _questions, _questions_w, family=COUNT,
        description="questions asked", scorer=_GENSIM, bounds=TALLY,
        paired_test=RANDOMIZATION, no_reference=_REFERENCE,
    ),
    *(
        Metric(
            name, (_KIND,), *_count_of(column, value), family=COUNT, description=text,
            scorer=_GENSIM, bounds=TALLY, paired_test=RANDOMIZATION, no_reference=_REFERENCE,
        )
        for name, column, value, text in (
            ("answered", "covered", 1.0, "questions answered (every word known to the system)"),
            ("correct", "right", 1.0, "questions answered with the expected word"),
            ("skipped", "covered", 0.0, "questions not answered (a word unknown to the system)"),
        )
    ),
)  # fmt: skip


@dataclass(frozen=True)
class Question:
    """One question of a questions file: its section and line, and ``a : b :: c : d``."""

    section: str
    a: str
    b: str
    c: str
    d: str
    line: int


def read_questions(path: Path) -> list[Question]:
    """The questions of a questions file (module docstring), refused with the file and line
    of a line that is neither a section nor four words, or a question before any section."""
    out: list[Question] = []
    section: str | None = None
    for number, text in iter_lines(path):
        if text.startswith(": "):
            section = text.lstrip(": ").strip()  # gensim's reading of a section line
            continue
        words = text.split()
        if not words:
            continue
        if len(words) != 4:
            raise InputError(
                path, number, f"expected ': SECTION' or four words 'a b c d', got {len(words)} "
                "field(s)",
            )  # fmt: skip
        if section is None:
            raise InputError(path, number, "a question before any ': SECTION' line")
        out.append(Question(section, *words, number))
    if not out:
        raise InputError(path, None, "no questions: expected ': SECTION' and 'a b c d' lines")
    return out


@dataclass
class AnalogyAnswers:
    """A system's answer to each question, in the questions' order (None: not answered)."""

    answers: list[str | None]
    path: Path | None = None


class AnalogyKind(TaskKind):
    name = _KIND
    declares = METRICS
    toml = ("analogy",)
    main = "accuracy"
    columns = ("qid", "section", "a", "b", "c", "expected", "predicted", *METRIC_COLUMNS, "counted")
    numeric = METRIC_COLUMNS
    # per-question outputs, not scores: the report pairs two systems' rows by ``qid``
    outputs = METRIC_COLUMNS

    def entry(self, source: Path, name: str, spec: dict[str, Any], rel: Any) -> AnalogyEntry:
        restrict = spec.pop("restrict_vocab", RESTRICT_VOCAB)
        if isinstance(restrict, bool) or not isinstance(restrict, int) or restrict < 1:
            raise InputError(
                source, None, f"benchmark {name}: 'restrict_vocab' must be a whole number of "
                f"words, at least 1, not {restrict!r}",
            )  # fmt: skip
        folded = spec.pop("case_insensitive", True)
        if not isinstance(folded, bool):
            raise InputError(
                source, None, f"benchmark {name}: 'case_insensitive' must be true or false"
            )
        description = str(spec.pop("description", ""))
        return AnalogyEntry(name, rel("gold"), description, restrict, folded)

    def load(self, entry: AnalogyEntry, files: Files, build: Any = None) -> AnalogyBenchmark:
        path, digest = files(entry.gold)
        return AnalogyBenchmark(
            entry.name,
            read_questions(path),
            entry.description,
            {str(path): digest},
            entry.restrict_vocab,
            entry.case_insensitive,
        )

    def entry_files(self, entry: AnalogyEntry) -> list[str]:
        return [entry.gold]

    def as_submission(self, target: Any, predictions: Any) -> AnalogyAnswers:
        """One answer per question in the questions' order: a word, or None (not answered)."""
        if isinstance(predictions, str | bytes) or not hasattr(predictions, "__len__"):
            raise InputError(
                None, None, f"{target.name}: expected a list of answers (a word or None) "
                f"for its {len(target)} questions, got {type(predictions).__name__}",
            )  # fmt: skip
        return target.from_answers(target.request(), list(predictions))

    # -- the shared-task server's questions (TaskKind) ----------------------------------------

    def input_file(self, target: Any, secret: str | None = None) -> tuple[str, bytes] | None:
        """The questions without their answers (``: SECTION`` and ``a b c`` lines), as
        published whatever the ``secret``: an answer is matched to its question by position,
        and a question's own words say which it is, so no drawn order would hide anything."""
        return f"{target.name}-questions.txt", target.questions_text().encode("utf-8")

    def public_check(self, target: Any, path: Path) -> list[InputWarning]:
        """The file reads as answers to the input's questions (the reader compares each line
        with its question's ``a b c``, never with the answers)."""
        target.read_submission(path)
        return []


ANALOGY = AnalogyKind()


@dataclass(frozen=True)
class AnalogyEntry:
    """An analogy benchmark as a registry file declares it."""

    name: str
    gold: str  # the questions file: a catalog path, or a file path (user entries)
    description: str = ""
    restrict_vocab: int = RESTRICT_VOCAB
    case_insensitive: bool = True
    views: tuple[View, ...] = ()
    source: str = ""  # the catalog's data set (``simeval data info SOURCE``)
    split: str = "test"
    kind: str = ANALOGY.name


@dataclass
class AnalogyBenchmark(Benchmark):
    """Analogy questions with their expected answers."""

    name: str
    questions: list[Question] = field(repr=False)
    description: str = ""
    data: dict[str, str] = field(default_factory=dict)
    restrict_vocab: int = RESTRICT_VOCAB
    case_insensitive: bool = True
    kind = ANALOGY.name
    submission_name = "{name}.txt"

    def __len__(self) -> int:
        return len(self.questions)

    def fold(self, word: str) -> str:
        """A word as answers are compared: upper-cased when the benchmark folds case."""
        return word.upper() if self.case_insensitive else word

    def request(self) -> AnalogyQuestions:
        return AnalogyQuestions(
            [(q.a, q.b, q.c, q.d) for q in self.questions],
            self.restrict_vocab,
            self.case_insensitive,
        )

    def from_answers(
        self, request: AnalogyQuestions, answers: Any, measure: Any = None
    ) -> AnalogyAnswers:
        """A measure's answers, one word (or None) per question, as a submission."""
        found = list(answers)
        if len(found) != len(self.questions) or not all(
            a is None or isinstance(a, str) for a in found
        ):
            raise InputError(
                None, None, f"expected one answer (a word, or None) for each of the "
                f"{len(self.questions)} questions of {self.name}, got {len(found)} answers",
            )  # fmt: skip
        return AnalogyAnswers(found)

    def questions_text(self, answers: list[str | None] | None = None) -> str:
        """The questions as ``: SECTION`` and ``a b c`` lines, each followed by its answer
        when ``answers`` are given (the input file, and a submission)."""
        lines: list[str] = []
        section = None
        for k, q in enumerate(self.questions):
            if q.section != section:
                section = q.section
                lines.append(f": {section}")
            answer = answers[k] if answers is not None else None
            lines.append(f"{q.a} {q.b} {q.c}" + (f" {answer}" if answer else ""))
        return "".join(f"{x}\n" for x in lines)

    def read_submission(self, path: Path, **_: Any) -> AnalogyAnswers:
        """Answers as :meth:`write_submission` writes them (module docstring), refused with
        the line that is not ``a b c [answer]`` for its question, or when questions lack a
        line."""
        answers: list[str | None] = []
        n = len(self.questions)
        for number, text in iter_lines(path):
            words = text.split()
            if not words or text.startswith(": "):
                continue
            if len(answers) == n:
                raise InputError(path, number, f"more lines than the {n} questions of {self.name}")
            q = self.questions[len(answers)]
            if len(words) not in (3, 4) or words[:3] != [q.a, q.b, q.c]:
                raise InputError(
                    path, number, f"expected question {len(answers) + 1} of {self.name}, "
                    f"'{shown(q.a)} {shown(q.b)} {shown(q.c)}', then its answer (or nothing), "
                    f"got {shown(text)!r}",
                )  # fmt: skip
            answers.append(words[3] if len(words) == 4 else None)
        if len(answers) != n:
            raise InputError(
                path, None, f"{len(answers)} question lines, but {self.name} has {n}: every "
                "question needs its line, 'a b c answer' (or 'a b c' alone: not answered)",
            )  # fmt: skip
        return AnalogyAnswers(answers, Path(path))

    def write_submission(self, submission: AnalogyAnswers, out: Path) -> list[Path]:
        """The questions with the system's answers (module docstring)."""
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(self.questions_text(submission.answers), encoding="utf-8")
        return [out]

    def align(self, submission: AnalogyAnswers, **_: Any) -> Aligned:
        """One row per question: its answer, whether it was answered and right; the metrics
        per section as the breakdown (``missing`` does not apply: module docstring)."""
        qs = self.questions
        answered = np.array([a is not None for a in submission.answers])
        right = np.array(
            [
                a is not None and self.fold(a) == self.fold(q.d)
                for q, a in zip(qs, submission.answers, strict=True)
            ]
        )
        items = {
            "qid": np.array([str(k + 1) for k in range(len(qs))], dtype=str),
            "section": np.array([q.section for q in qs], dtype=str),
            "a": np.array([q.a for q in qs], dtype=str),
            "b": np.array([q.b for q in qs], dtype=str),
            "c": np.array([q.c for q in qs], dtype=str),
            "expected": np.array([q.d for q in qs], dtype=str),
            "predicted": np.array([a or "" for a in submission.answers], dtype=str),
            "right": right.astype(float),
            "covered": answered.astype(np.int64),
            "counted": np.ones(len(qs), dtype=np.int64),
        }
        n, k = len(qs), int(answered.sum())
        warnings = []
        if k < n:
            first = qs[int(np.flatnonzero(~answered)[0])]
            warnings.append(
                InputWarning(
                    submission.path,
                    None,
                    f"{n - k} of {n} questions have no answer (first: "
                    f"{shown(first.a)} {shown(first.b)} {shown(first.c)}); they are left out "
                    "of the accuracy and counted as skipped, as gensim's "
                    "evaluate_word_analogies skips questions with an unknown word",
                )
            )
        return Aligned(
            items,
            {"gold": n, "scored": k, "missing": n - k, "extra": 0},
            warnings,
            {"case_insensitive": self.case_insensitive},
            self.by_section(items),
        )

    def by_section(self, items: dict[str, np.ndarray]) -> dict[str, dict[str, float]]:
        """The kind's metrics over each section's rows, in the sections' order."""
        out: dict[str, dict[str, float]] = {}
        for section in dict.fromkeys(items["section"].tolist()):
            rows = items["section"] == section
            columns = {c: np.asarray(items[c][rows], dtype=float) for c in METRIC_COLUMNS}
            out[str(section)] = self.task_kind.metrics(columns, main_only=False)
        return out
