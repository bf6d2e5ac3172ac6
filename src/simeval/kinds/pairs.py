"""What the two kinds over word pairs share (:mod:`.graded`, :mod:`.related`): the benchmark.

Predictions are aligned with the gold by the exact ordered pair ``(word1, word2)``. A gold pair
the system did not score is *missing*; what happens to it is the ``missing`` policy:

- ``"zero"``: score it 0 — the RUSSE 2015 scorer's rule (``evaluate_test.py``), so the official
  numbers are reproduced; the count is reported;
- ``"skip"``: leave it out and evaluate the covered pairs only;
- ``"error"``: refuse the submission, naming the first missing pair.

A gold file that gives one pair twice with different scores (a translation that merged two
pairs) is read by the ``duplicates`` policy: ``"error"`` refuses it, naming both lines (the
default for a user's file); ``"each"`` keeps every row an item, as published, the submission's
one score for the pair standing for both (the default of the catalogued files whose published
figures count both rows: WordSim-353, RUSSE's rt/ae/ae2 train files); ``"mean"`` makes the pair
one item with the mean of its rows' gold; ``"first"`` one item with the first row's gold.

Pairs scored but not in the gold are *extra*: ignored, counted and reported. In a one-file
suite (RUSSE's test.csv) a pair of another member is not extra (``suite_known``).

Submission: a pair file (csv, tsv or space separated, header optional; the score column is
``sim``/``score`` or the third, or the one named by ``column``), as ``score pairs`` reads it.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simeval.data.catalog import catalogued
from simeval.data.pair_files import (
    ColumnError,
    ScoredPairs,
    read_pair_keys,
    read_scored_pairs,
    write_pairs,
)
from simeval.data.textio import shown
from simeval.errors import InputError, InputWarning, option_hint
from simeval.kinds.base import (
    Aligned,
    Benchmark,
    Files,
    TaskKind,
    View,
    answer_scores,
    sha256_of,
)
from simeval.kinds.handout import LeakView, Ordered, order, pair_key
from simeval.kinds.predictions import pair_submission
from simeval.measures.base import WordPairs
from simeval.results.items import Items

MISSING_POLICIES = ("zero", "skip", "error")
# what a gold file's pair given again with another score becomes (module docstring)
DUPLICATE_POLICIES = ("error", "each", "mean", "first")
CONFLICT = "given twice with different scores"  # the reader's refusal of such a pair


def extra_pairs(
    predictions: ScoredPairs, known: set | frozenset, where: str
) -> tuple[int, list[InputWarning]]:
    """How many scored pairs are not in ``known`` (those the reader already left out
    included), and a warning naming the first (they are ignored)."""
    rows = [i for i, p in enumerate(predictions.pairs) if p not in known]
    firsts = [(int(predictions.lines[i]), predictions.pairs[i]) for i in rows[:1]]
    if predictions.first_extra is not None:
        firsts.append((predictions.first_extra[1], predictions.first_extra[0]))
    n = len(rows) + predictions.extra
    if not n:
        return 0, []
    line, (a, b) = min(firsts)
    text = f"{n} scored pair(s) are not in {where} (first: {shown(a)},{shown(b)}); they are ignored"
    return n, [InputWarning(predictions.path, line, text)]


def range_warnings(predictions: ScoredPairs, low: float, high: float) -> list[InputWarning]:
    """One warning counting scores outside [low, high] (RUSSE asked for sim in [0, 1])."""
    s = predictions.scores
    eps = 1e-6 * max(1.0, high - low)  # float32 cosines reach 1.0000001: rounding, not outside
    outside = np.flatnonzero((s < low - eps) | (s > high + eps))
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


def as_scored_pairs(pairs: list[tuple[str, str]], scores: Any) -> ScoredPairs:
    """A measure's scores, one per pair in order, as a submission (NaN = not scored)."""
    lines = np.arange(1, len(pairs) + 1)
    return ScoredPairs(None, list(pairs), answer_scores(pairs, scores), lines)


@dataclass
class PairBenchmark(Benchmark):
    """Word pairs with gold scores (graded) or labels 1/0 (related-pairs)."""

    name: str
    kind: str
    gold: ScoredPairs
    description: str = ""
    data: dict[str, str] = field(default_factory=dict)
    score_range: tuple[float, float] | None = None
    missing: str = "error"  # the default policy of this benchmark (RUSSE: zero)
    template: ScoredPairs | None = None  # the official file to fill in, when there is one
    duplicates: str = "error"  # how the gold's repeated pairs were read (DUPLICATE_POLICIES)
    submission_name = "{name}.csv"

    def __post_init__(self) -> None:
        if self.task_kind.binary_gold:
            bad = np.flatnonzero(~np.isin(self.gold.scores, (0.0, 1.0)))
            if len(bad):
                i = int(bad[0])
                raise InputError(
                    self.gold.path,
                    int(self.gold.lines[i]),
                    f"related/unrelated gold must be 1 or 0, got {float(self.gold.scores[i])!r}",
                )

    @property
    def task(self) -> str:  # the name records and older callers use
        return self.kind

    def __len__(self) -> int:
        return len(self.gold)

    def gold_keys(self) -> list[tuple[str, str]]:
        return self.gold.pairs

    def request(self) -> WordPairs:
        return WordPairs(list(dict.fromkeys(self.gold.pairs)))

    def from_answers(
        self, request: WordPairs, answers: np.ndarray, measure: Any = None
    ) -> ScoredPairs:
        return as_scored_pairs(request.pairs, answers)

    def read_submission(
        self,
        path: Path,
        *,
        column: str | None = None,
        only: frozenset | None = None,
        **_: Any,
    ) -> ScoredPairs:
        """The submission's pairs that are this benchmark's (or ``only``'s: a suite's), read
        as a stream; the others are counted as extra without being held."""
        return read_scored_pairs(path, column, only=only or frozenset(self.gold.pairs))

    def write_submission(self, submission: ScoredPairs, out: Path) -> list[Path]:
        """The pairs with their scores (empty where not scored): in the official template's
        order and with its columns when there is one (RUSSE's test.csv), else word1,word2,sim."""
        pairs, scores = submission.pairs, submission.scores
        if self.template is not None:
            by_pair = dict(zip(pairs, scores, strict=True))
            pairs = self.template.pairs
            scores = np.array([by_pair.get(p, np.nan) for p in pairs])
        out.parent.mkdir(parents=True, exist_ok=True)
        write_pairs(out, pairs, scores)
        return [out]

    def align(
        self,
        submission: ScoredPairs,
        *,
        missing: str | None = None,
        suite_known: frozenset | None = None,
        **_: Any,
    ) -> Aligned:
        """System scores in gold order with the ``missing`` policy applied (module docstring)."""
        missing = missing or self.missing
        if missing not in MISSING_POLICIES:
            raise InputError(
                None,
                None,
                f"--missing must be one of {', '.join(MISSING_POLICIES)}, not {missing!r}",
            )
        gold = self.gold
        index = submission.lookup()
        rows = np.fromiter((index.get(p, -1) for p in gold.pairs), dtype=np.int64, count=len(gold))
        found = rows >= 0
        if (len(submission) or submission.extra) and not found.any():
            known = suite_known or set(gold.pairs)
            if not any(p in known for p in submission.pairs):
                a, b = (submission.first_extra or (submission.pairs[0], 0))[0]
                raise InputError(
                    submission.path,
                    None,
                    f"none of its {len(submission) + submission.extra} pairs is in "
                    f"{self.name if suite_known is None else 'the suite'} (first: "
                    f"{shown(a)},{shown(b)}): a submission for another benchmark?",
                )
        if submission.path is not None and len(submission) and np.isnan(submission.scores).all():
            raise InputError(
                submission.path, None, "no pair has a score (every score field is empty)"
            )
        scores = np.where(found, submission.scores[np.where(found, rows, 0)], np.nan)
        covered = ~np.isnan(scores)
        warnings: list[InputWarning] = [] if suite_known is not None else [*submission.warnings]
        n_missing = int((~covered).sum())
        if n_missing:
            first = gold.pairs[int(np.flatnonzero(~covered)[0])]
            text = (
                f"{n_missing} of {len(gold)} gold pairs have no score "
                f"(first: {shown(first[0])},{shown(first[1])})"
            )
            if missing == "error":
                how = option_hint("missing", "zero", "skip")
                raise InputError(submission.path, None, f"{text}; use {how} to score anyway")
            if missing == "skip":
                action = "skipped"
            elif self.missing == "zero":  # the benchmark's own rule: RUSSE's
                action = "scored 0 as the official RUSSE scorer does"
            else:
                how = option_hint("missing", "skip", "error")
                action = f"scored 0 (missing: zero; {how} to change it)"
            warnings.append(InputWarning(submission.path, None, f"{text}; {action}"))
        n_extra, extra_warnings = extra_pairs(
            submission, set(gold.pairs) | (suite_known or frozenset()), "the gold"
        )
        if suite_known is None:
            warnings += extra_warnings
        if self.score_range is not None:
            warnings += range_warnings(submission, *self.score_range)
        if suite_known is None:
            warnings += self.accuracy_warnings()
        counted = covered | (missing == "zero")
        n_covered = int(covered.sum())
        return Aligned(
            items=self.items(
                np.where(counted, np.nan_to_num(scores, nan=0.0), np.nan), covered, counted
            ),
            coverage={
                "gold": len(gold),
                "scored": n_covered,
                "missing": len(gold) - n_covered,
                "extra": n_extra,
            },
            warnings=warnings,
            settings={"missing": missing, "duplicates": self.duplicates},
        )

    def accuracy_warnings(self) -> list[InputWarning]:
        """Related pairs whose word1s mostly have one pair: RUSSE's accuracy labels the top
        half of each word1's pairs related, so a word1's only pair is always called unrelated
        and accuracy is merely the share of unrelated pairs."""
        if not self.task_kind.binary_gold:
            return []
        counts = Counter(a for a, _ in self.gold.pairs)
        alone = sum(1 for n in counts.values() if n == 1)
        if alone * 2 < len(counts):
            return []
        return [
            InputWarning(
                self.gold.path,
                None,
                f"{alone} of {len(counts)} word1s have a single pair: RUSSE's accuracy labels "
                "the top half of each word1's pairs related, so a single pair is always "
                "labelled unrelated and accuracy only counts unrelated pairs here; read AP or "
                "ROC AUC (accuracy needs every word1 with related and unrelated partners, as "
                "RUSSE's RT and AE have)",
            )
        ]

    def items(self, score: np.ndarray, covered: np.ndarray, counted: np.ndarray) -> Items:
        """One row per gold pair: the score as it entered the metrics, and the gold's columns."""
        return {
            "word1": np.array([a for a, _ in self.gold.pairs], dtype=str),
            "word2": np.array([b for _, b in self.gold.pairs], dtype=str),
            "gold": np.asarray(self.gold.scores, dtype=float),
            "score": score,
            "covered": covered.astype(np.int64),
            "counted": counted.astype(np.int64),
            **{
                k: np.array(v, dtype=str)
                for k, v in self.gold.columns.items()
                if k not in ("word1", "word2", "gold", "score", "covered", "counted")
            },
        }

    def suite_coverage(
        self, submission: ScoredPairs, known: frozenset
    ) -> tuple[dict[str, int], list[InputWarning]]:
        """Coverage of a one-file suite's distinct pairs, and the file's warnings."""
        index = submission.lookup()
        scores = submission.scores.tolist()  # Python floats: math.isnan is 10x np.isnan here
        unscored = sum(1 for p in known if p not in index or math.isnan(scores[index[p]]))
        where = Path(self.template.path).name if self.template is not None else "the suite"
        n_extra, extra = extra_pairs(submission, known, where)
        coverage = {
            "gold": len(known),
            "scored": len(known) - unscored,
            "missing": unscored,
            "extra": n_extra,
        }
        return coverage, [*submission.warnings, *extra]


# -- reading the gold: registry entries and pair files ----------------------------------------


@dataclass(frozen=True)
class Subset:
    """A split of a full gold file: the rows whose pair ``split`` lists. With ``via``, a file
    aligned row by row with the gold is matched instead (MEN's splits are given in its lemma
    form, ``bakery-n``; row i of the lemma file is row i of the natural-form gold)."""

    split: str
    via: str | None = None


@dataclass(frozen=True)
class PairEntry:
    name: str
    kind: str  # a pair kind's name: graded-pairs or related-pairs
    gold: str  # a catalog path, or a file path (user entries)
    description: str
    column: str | None = None
    score_range: tuple[float, float] | None = None
    exclude: str | None = None  # pairs of this gold file are removed (rt-train = rt - rt-test)
    # (column, gold file): a 1/0 column marking the pairs that file also holds
    marks: tuple[tuple[str, str], ...] = ()
    missing: str = "error"  # what an unscored pair gets by default
    duplicates: str | None = None  # the gold's repeated pairs (None: the file's default)
    views: tuple[View, ...] = ()
    source: str = ""  # the catalog entry: licence, citation (``simeval data info SOURCE``)
    split: str = "test"  # test, train, dev, or full (no official split)
    subset: Subset | None = None  # the rows of ``gold`` this split keeps


class PairKind(TaskKind):
    """A kind over word pairs read from a pair file (graded or related/unrelated)."""

    columns = ("word1", "word2", "gold", "score", "covered", "counted")

    def entry(self, source: Path, name: str, spec: dict[str, Any], rel: Any) -> PairEntry:
        return PairEntry(
            name,
            self.name,
            rel("gold"),
            str(spec.pop("description", "")),
            column=spec.pop("column", None),
            missing=str(spec.pop("missing", "error")),
            duplicates=spec.pop("duplicates", None),
        )

    def load(self, entry: PairEntry, files: Files, build: Any = None) -> PairBenchmark:
        return load_pairs(entry, files)

    def entry_files(self, entry: PairEntry) -> list[str]:
        e = entry
        subset = [e.subset.split, *([e.subset.via] if e.subset.via else [])] if e.subset else []
        extra = [*([e.exclude] if e.exclude else []), *(m for _, m in e.marks), *subset]
        return [e.gold, *extra]

    # -- the shared-task server's questions (TaskKind) ----------------------------------------

    def as_submission(self, target: Any, predictions: Any) -> Any:
        return pair_submission(target, predictions)

    def input_file(self, target: Any, secret: str | None = None) -> tuple[str, bytes] | None:
        """A blank submission: the pairs, an empty score column (a one-file suite's every
        distinct pair once), in the official template's order when there is one, else the
        gold's; with a campaign's ``secret``, in the order it draws
        (:mod:`simeval.kinds.handout`). Uploads are read by their words, so any order scores
        alike."""
        import tempfile

        pairs = _handed_pairs(target, secret)
        with tempfile.TemporaryDirectory() as folder:
            out = Path(folder) / f"{target.name}.csv"
            write_pairs(out, pairs, np.full(len(pairs), np.nan))
            return out.name, out.read_bytes()

    def leak_view(self, target: Any, secret: str | None) -> LeakView:
        """Each member's gold in the handed-out order, and pairs whose gold differs between
        two rows that read as one pair (case-folded, either order)."""
        place = {pair_key(*p): k for k, p in enumerate(_handed_pairs(target, secret))}
        view = LeakView()
        for b in target.members or [target]:
            rows = list(zip(b.gold.pairs, b.gold.scores.tolist(), strict=True))
            seen: dict[str, list[float]] = {}
            for (w1, w2), score in rows:
                seen.setdefault(pair_key(w1, w2), []).append(score)
            known = [(place[k], v[0]) for k, v in seen.items() if k in place]
            view.ordered.append(Ordered(b.name, [k for k, _ in known], [g for _, g in known]))
            for k, values in seen.items():
                if len(set(values)) > 1:
                    view.repeats.append((b.name, k.replace("\t", ","), values))
        return view

    def public_check(self, target: Any, path: Path) -> list[InputWarning]:
        """The file reads as a pair file; some of its pairs are pairs of the input file, and
        some of those have a score; a benchmark that takes no missing pair
        (``missing="error"``: the word sets, whose input is their gold pairs) needs a score for
        every input pair. Warns, counting against the input file: the reader's warnings
        (repeated pairs), input pairs without a score, scored pairs not in the input file,
        scores outside the task's range."""
        first = target.members[0] if target.members else target
        known = input_pairs(target)
        only = frozenset(known)
        sub = read_scored_pairs(path, None, only=only)
        total = len(sub) + sub.extra
        if not len(sub):
            if not total:
                raise InputError(sub.path, None, "no pairs: expected word1 word2 score lines")
            a, b = (sub.first_extra or (("", ""), 0))[0]
            raise InputError(
                sub.path,
                None,
                f"none of its {total} pairs is in the input file (first: {shown(a)},{shown(b)}): "
                "a submission for another target?",
            )
        if np.isnan(sub.scores).all():
            raise InputError(sub.path, None, "no pair has a score (every score field is empty)")
        index = sub.lookup()
        scores = sub.scores.tolist()
        unscored = [p for p in known if p not in index or scores[index[p]] != scores[index[p]]]
        warnings = list(sub.warnings)
        if unscored:
            a, b = unscored[0]
            text = (
                f"{len(unscored)} of {len(known)} input pairs have no score "
                f"(first: {shown(a)},{shown(b)})"
            )
            if first.missing == "error":
                raise InputError(
                    sub.path, None, f"{text}: {target.name} needs a score for every pair"
                )
            how = "counts as 0" if first.missing == "zero" else "is left out"
            warnings.append(
                InputWarning(sub.path, None, f"{text}; a gold pair without a score {how}")
            )
        warnings += extra_pairs(sub, only, "the input file")[1]
        if first.score_range is not None:
            warnings += range_warnings(sub, *first.score_range)
        return warnings


def _handed_pairs(target: Any, secret: str | None) -> list[tuple[str, str]]:
    """The pairs of ``target``'s input file in the order handed out (:meth:`input_file`)."""
    (request,) = target.requests()
    first = target.members[0] if target.members else target
    pairs = list(first.template.pairs) if first.template is not None else list(request.pairs)
    return [pairs[i] for i in order(secret, [pair_key(*p) for p in pairs])]


_inputs: dict[int, tuple[Any, list[tuple[str, str]]]] = {}
_inputs_lock = threading.Lock()


def input_pairs(target: Any) -> list[tuple[str, str]]:
    """The distinct pairs of ``target``'s input file (:meth:`PairKind.input_file`), read back
    from the file as a participant reads it; kept per loaded target."""
    import tempfile

    with _inputs_lock:
        found = _inputs.get(id(target))
        if found is not None and found[0] is target:
            return found[1]
    first = target.members[0] if target.members else target
    made = first.task_kind.input_file(target)
    if made is None:  # pragma: no cover  (every pair target has one)
        raise InputError(None, None, f"{target.name} has no input file")
    name, data = made
    with tempfile.TemporaryDirectory() as folder:
        file = Path(folder) / name
        file.write_bytes(data)
        pairs = read_scored_pairs(file).pairs
    with _inputs_lock:
        _inputs[id(target)] = (target, pairs)
    return pairs


def load_pairs(entry: PairEntry, files: Files) -> PairBenchmark:
    path, digest = files(entry.gold)
    data = {entry.gold: digest}
    gold, duplicates = read_gold(path, digest, entry.column, entry.duplicates)
    if entry.exclude:
        excluded, data[entry.exclude] = files(entry.exclude)
        removed = set(read_scored_pairs(excluded, keep_duplicates=True).pairs)
        gold = gold.take(np.array([p not in removed for p in gold.pairs], dtype=bool))
    for column, marker in entry.marks:
        marked_path, data[marker] = files(marker)
        marked = set(read_scored_pairs(marked_path, keep_duplicates=True).pairs)
        gold.columns[column] = ["1" if p in marked else "0" for p in gold.pairs]
    if entry.subset:
        gold = _subset(gold, entry.subset, files, data)
    return PairBenchmark(
        entry.name,
        entry.kind,
        gold,
        entry.description,
        data,
        entry.score_range,
        entry.missing,
        duplicates=duplicates,
    )


def _subset(gold: ScoredPairs, subset: Subset, files: Files, data: dict) -> ScoredPairs:
    """The rows of ``gold`` whose pair (or whose ``via`` row's pair) the split file lists."""
    split_path, data[subset.split] = files(subset.split)
    keys = read_pair_keys(split_path)
    pairs = gold.pairs
    if subset.via:
        via_path, data[subset.via] = files(subset.via)
        pairs = read_scored_pairs(via_path, keep_duplicates=True).pairs
        if len(pairs) != len(gold.pairs):
            raise InputError(
                via_path, None, f"{len(pairs)} pairs, but {gold.path} has {len(gold.pairs)}"
            )
    return gold.take(np.array([p in keys for p in pairs], dtype=bool))


def pair_kinds() -> dict[str, str]:
    """``--kind`` names of a pair file (``graded``, ``related``) -> the kinds' names."""
    from simeval.kinds import KINDS

    return {t: k.name for k in KINDS.values() if isinstance(k, PairKind) for t in k.toml}


def pair_file(
    path: Path,
    kind: str = "graded",
    gold_column: str | None = None,
    name: str | None = None,
    description: str = "",
    duplicates: str | None = None,
) -> PairBenchmark:
    """A gold pair file as a benchmark, its score column found as ``score pairs --gold`` does;
    ``duplicates``: the policy for a pair given twice with different scores (module
    docstring; None: ``"error"``, or ``"each"`` for a catalogued file)."""
    names = pair_kinds()
    if kind not in names:
        raise InputError(None, None, f"--kind must be {' or '.join(names)}, not {kind!r}")
    data = sha256_of([path])
    gold, policy = read_gold(path, data[str(path)], gold_column, duplicates)
    return PairBenchmark(name or str(path), names[kind], gold, description, data, duplicates=policy)


def read_gold(
    path: Path, digest: str, column: str | None, duplicates: str | None = None
) -> tuple[ScoredPairs, str]:
    """A gold pair file, and the ``duplicates`` policy it was read by (module docstring): every
    row an item (identical repeats warned of) unless ``"mean"`` or ``"first"`` make each pair
    one item. A pair given twice with different scores is refused (an error naming both lines
    and the option that chooses otherwise), except by an explicit policy and in the catalogued
    files whose published figures count both rows (WordSim-353's money/cash, 9.15 and 9.08;
    RUSSE's rt.csv, ae-train.csv and ae2-train.csv): their default is ``"each"``, the official
    scorers' reading."""
    policy = duplicates or ("each" if catalogued(digest) else "error")
    if policy not in DUPLICATE_POLICIES:
        raise InputError(
            None, None, f"duplicates must be {', '.join(DUPLICATE_POLICIES)}, not {policy!r}"
        )
    try:
        gold = read_scored_pairs(
            path,
            column,
            require_scores=True,
            keep_duplicates=True,
            keep_conflicts=policy != "error",
        )
    except InputError as exc:
        if CONFLICT not in exc.message or isinstance(exc, ColumnError):
            raise
        how = f"use {option_hint('duplicates', 'each', 'mean', 'first')} to score such pairs"
        joint = "\n  " if "\n" in exc.message else "; "
        raise InputError(exc.path, exc.line, f"{exc.message}{joint}{how}") from None
    return (_one_per_pair(gold, policy) if policy in ("mean", "first") else gold), policy


def _one_per_pair(gold: ScoredPairs, policy: str) -> ScoredPairs:
    """``gold`` with each pair once, at its first row: its gold the mean of its rows'
    (``"mean"``) or the first row's (``"first"``); the reader's warning of repeated rows says
    so instead."""
    rows: dict[tuple[str, str], list[int]] = {}
    for i, pair in enumerate(gold.pairs):
        rows.setdefault(pair, []).append(i)
    if len(rows) == len(gold.pairs):
        return gold
    firsts = np.zeros(len(gold.pairs), dtype=bool)
    firsts[[r[0] for r in rows.values()]] = True
    one = gold.take(firsts)
    if policy == "mean":
        one.scores = np.array([math.fsum(gold.scores[r]) / len(r) for r in rows.values()])
    repeated = sorted(int(gold.lines[i]) for r in rows.values() for i in r[1:])
    what = "the mean of its rows'" if policy == "mean" else "the first row's"
    one.warnings = [
        *(w for w in gold.warnings if "repeat an earlier pair" not in w.message),
        InputWarning(
            gold.path,
            repeated[0],
            f"{len(repeated)} line(s) repeat an earlier pair (first here); each pair is one "
            f"item, its gold {what} (duplicates: {policy})",
        ),
    ]
    return one
