"""The STS task kind: sentence pairs aligned by line, Pearson per dataset (SemEval 2012-2016).

Rows: ``item`` (1-based line), ``gold, score, covered, counted`` (and ``confidence``, and the
gold's columns such as STS-B's genre). Metrics: Pearson's r (the STS scorers' correlation.pl;
main), Spearman's ρ (the STS Benchmark's second figure, MTEB's main one), and the
confidence-weighted r when the output gave confidences (declared in
:mod:`simeval.metrics.catalog`). A registry file declares one as
``kind = "sts"`` (``input``, ``gold``, optionally ``dataset``).

A system output must have exactly one line per input pair (the 2012 Perl script silently
misaligned shorter files; here it is an error naming the file). Gold lines left empty mark
unscored pairs: their system scores are read but not evaluated. A suite of STS datasets adds
ALL, ALLnrm and Mean (``suite-sts``, :mod:`.suites`).

Submission: ``STS.output.<dataset>.txt``, one score a line, optionally a tab and a confidence.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simeval.data.sts import (
    STSOutput,
    read_sts_gold,
    read_sts_input,
    read_sts_output,
    read_stsb,
    write_sts_output,
)
from simeval.data.textio import iter_lines, shown
from simeval.errors import InputError, InputWarning
from simeval.kinds.base import (
    Aligned,
    Benchmark,
    Files,
    Suite,
    TaskKind,
    View,
    answer_scores,
    sha256_of,
)
from simeval.kinds.handout import LeakView, Ordered, Restored, order
from simeval.kinds.predictions import sts_submission
from simeval.measures.base import TextPairs


class STSKind(TaskKind):
    name = "sts"
    toml = ("sts",)
    main = "pearson"
    columns = ("item", "gold", "score", "covered", "counted")
    plot = "scatter"
    plot_members = False  # a suite of STS sets plots them
    text_pairs = True
    gold_range = (0.0, 5.0)

    def entry(self, source: Path, name: str, spec: dict[str, Any], rel: Any) -> STSEntry:
        dataset = str(spec.pop("dataset", name))
        description = str(spec.pop("description", ""))
        return STSEntry(name, dataset, rel("input"), rel("gold"), description)

    def load(self, entry: STSEntry, files: Files, build: Any = None) -> STSBenchmark:
        return load_sts(entry, files)

    def entry_files(self, entry: STSEntry) -> list[str]:
        return list(dict.fromkeys([entry.input, entry.gold]))

    # -- the shared-task server's questions (TaskKind) ----------------------------------------

    def as_submission(self, target: Any, predictions: Any) -> Any:
        return sts_submission(target, predictions)

    def input_file(self, target: Any, secret: str | None = None) -> tuple[str, bytes] | None:
        """The sentence pairs tab-separated, as in the STS.input files; with a campaign's
        ``secret``, in the order it draws (:mod:`simeval.kinds.handout`)."""
        (request,) = target.requests()
        pairs = request.pairs
        text = "".join(f"{pairs[i][0]}\t{pairs[i][1]}\n" for i in _places(target, secret))
        official = target.submission_file(Path()).name  # STS.output.MSRvid.txt
        if official.startswith("STS.output."):
            return official.replace("output", "input", 1), text.encode()
        return f"STS.input.{target.name}.txt", text.encode()

    def restore(
        self, target: Any, path: Path, secret: str | None, scratch: Path, blanks: bool = False
    ) -> Restored:
        """The output's lines put back in the gold's order. The file is first read in the
        order handed out, so that an error names the participant's own line (a blank line is
        refused where the gold, moved along, has a score, unless ``blanks``)."""
        if secret is None:
            return Restored(path)
        places = _places(target, secret)
        n = len(places)
        unscored = np.ones(n, dtype=bool) if blanks else (~target.scored)[places]
        read_sts_output(path, n, unscored)
        handed = [text for _, text in iter_lines(path)][:n]
        lines = [""] * n
        for k, i in enumerate(places):
            lines[i] = handed[k]
        out = scratch / "restored" / Path(path).name
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("".join(f"{x}\n" for x in lines), encoding="utf-8")
        return Restored(out, {i + 1: k + 1 for k, i in enumerate(places)}, origin=path)

    def leak_view(self, target: Any, secret: str | None) -> LeakView:
        """The gold line by line in the handed-out order, and sentence pairs given on two
        lines with different gold."""
        gold = target.gold.tolist()
        places = _places(target, secret)
        view = LeakView([Ordered(target.name, list(range(len(places))), [gold[i] for i in places])])
        seen: dict[tuple[str, str], list[float]] = {}
        for pair, g in zip(target.pairs, gold, strict=True):
            if g == g:
                seen.setdefault(pair, []).append(g)
        for (a, b), values in seen.items():
            if len(set(values)) > 1:
                view.repeats.append((target.name, f"{shown(a)} / {shown(b)}", values))
        return view

    def public_check(self, target: Any, path: Path) -> list[InputWarning]:
        """One line per input pair, each blank or a number with an optional confidence in
        0..100; not every line blank. Warns how many lines are blank."""
        n = len(target.pairs)  # the input file's lines
        out = read_sts_output(path, n, np.ones(n, dtype=bool))
        blank = int(np.isnan(out.scores).sum())
        if blank == n:
            raise InputError(
                out.path, None, f"every line is blank: none of the {n} pairs has a score"
            )
        if not blank:
            return []
        text = (
            f"{blank} of {n} lines are blank: those pairs have no score (a blank line where "
            "the gold has a score is scored 0)"
        )
        return [InputWarning(out.path, None, text)]


STS = STSKind()


def _places(target: Any, secret: str | None) -> list[int]:
    """Which gold line goes to each line of the handed-out input (:mod:`.handout`): the key
    of line ``i`` (from 1) is the benchmark's name and ``i``, as the split's."""
    return order(secret, [f"{target.name}\t{i}" for i in range(1, len(target.pairs) + 1)])


FORMATS = ("sts", "stsb")  # an entry's files: input + gold, or one STS Benchmark file


@dataclass(frozen=True)
class STSEntry:
    """An STS dataset: ``input`` and ``gold`` files, or (``format="stsb"``) one STS Benchmark
    file holding both (``input`` = ``gold``)."""

    name: str
    dataset: str
    input: str
    gold: str
    description: str
    source: str = ""
    kind: str = STS.name
    format: str = "sts"  # one of FORMATS
    views: tuple[View, ...] = ()
    split: str = "test"


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
    kind = STS.name
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
        return self.from_answers(self.request(), answers, measure)  # answers: every line

    def from_answers(
        self, request: TextPairs, answers: np.ndarray, measure: Any = None
    ) -> STSOutput:
        """Every line needs a score: a pair the measure cannot score gets 0, with a warning."""
        answers = answer_scores(request.pairs, answers)
        unscored = int(np.isnan(answers).sum())
        warnings = []
        if unscored:
            text = f"{unscored} sentence pairs could not be scored; scored 0"
            warnings.append(InputWarning(None, None, text))
        return STSOutput(None, np.nan_to_num(answers, nan=0.0), None, warnings)

    def read_submission(self, path: Path, *, blanks: str = "gold", **_: Any) -> STSOutput:
        """The output file. ``blanks="gold"`` (the official rule): a blank line only where the
        gold is empty. ``blanks="any"`` (the server's hidden phases,
        :mod:`simeval.serve.service.hidden`, so that no answer tells which lines the gold
        scores): a blank line anywhere, scored 0 with confidence 0 where the gold has a score,
        and counted as missing."""
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
            warnings=[*submission.warnings, *self.scale_warnings()],
        )

    def scale_warnings(self) -> list[InputWarning]:
        """A warning when gold scores fall outside STS's 0..5 scale (no published STS gold
        does): the file is likely not an STS gold, or its scale is not STS's. The gold file is
        the last of ``data`` (input, then gold)."""
        low, high = STS.gold_range
        outside = np.flatnonzero((self.gold < low) | (self.gold > high))
        if not len(outside):
            return []
        text = (
            f"{len(outside)} gold scores outside STS's {low:g}..{high:g} scale (first: pair "
            f"{int(outside[0]) + 1}, {self.gold[outside[0]]:g}); is this an STS gold file?"
        )
        return [InputWarning(next(reversed(self.data), None), None, text)]


def load_sts(entry: STSEntry, files: Files) -> STSBenchmark:
    if entry.format == "stsb":
        path, digest = files(entry.gold)
        table = read_stsb(path)
        return STSBenchmark(
            entry.name,
            entry.dataset,
            table.pairs,
            table.gold,
            entry.description,
            {entry.gold: digest},
            table.columns,
        )
    (inp, d_in), (gs, d_gs) = files(entry.input), files(entry.gold)
    pairs, gold = read_sts_input(inp), read_sts_gold(gs)
    if len(pairs) != len(gold):
        raise InputError(gs, None, f"{len(gold)} gold lines for {len(pairs)} pairs in {inp}")
    data = {entry.input: d_in, entry.gold: d_gs}
    return STSBenchmark(entry.name, entry.dataset, pairs, gold, entry.description, data)


def same_name_key(name: str) -> str:
    """The key under which two dataset names are the same: NFKC-normalised and case-folded
    (``MSRpar`` and ``msrpar``, a composed and a decomposed ``é``, ``ﬁ`` and ``fi``)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


class DatasetNames:
    """The dataset names of one STS target, each claimed once: a name that is empty, or the
    same as one claimed before under :func:`same_name_key`, is refused (two members of one
    name would pool one dataset twice in ALL, or read one gold for the other)."""

    def __init__(self) -> None:
        self.seen: dict[str, Path] = {}

    def claim(self, dataset: str, path: Path) -> None:
        if not dataset.strip():
            raise InputError(path, None, "the dataset name in this file name is empty")
        key = same_name_key(dataset)
        if key in self.seen:
            raise InputError(
                path,
                None,
                f"dataset {dataset!r} collides with {self.seen[key].name} (names that differ only "
                "in case or Unicode normalisation would be one benchmark); rename one of them",
            )
        self.seen[key] = path


def sts_gold_files(gold: list[Path]) -> Any:
    """STS gold files of any year (``STS.gs.<dataset>.txt``) without their inputs: one
    benchmark, or a suite ``sts`` with ALL, ALLnrm and Mean when there are several."""
    if not gold:
        raise InputError(None, None, "name at least one STS gold file")
    benches = []
    names = DatasetNames()
    for g in gold:
        dataset = g.name.removeprefix("STS.gs.").removesuffix(".txt")
        names.claim(dataset, g)
        benches.append(STSBenchmark(dataset, dataset, [], read_sts_gold(g), data=sha256_of([g])))
    return benches[0] if len(benches) == 1 else Suite("sts", benches, "sts")


def sts_folder(folder: Path, name: str | None = None) -> Any:
    """An STS folder: ``STS.input.<dataset>.txt`` with ``STS.gs.<dataset>.txt`` beside (any
    year's ``STS.<year>[.test].input.`` prefix too). One dataset is a benchmark; several make a
    suite with ALL, ALLnrm and Mean. Named by the path as given (two folders of the same name
    are two benchmarks)."""
    name = name or str(folder).rstrip("/")
    members = []
    names = DatasetNames()
    for inp in sorted(folder.glob("STS*.input.*.txt")):
        prefix, _, dataset = inp.name.partition(".input.")
        dataset = dataset.removesuffix(".txt")
        names.claim(dataset, inp)
        gs = folder / f"{prefix}.gs.{dataset}.txt"
        if not gs.is_file():
            raise InputError(gs, None, f"no gold file for {inp.name}")
        entry = STSEntry(
            f"{name}-{dataset.lower()}", dataset, str(inp), str(gs), f"STS {dataset} ({folder})"
        )
        members.append(load_sts(entry, lambda p: (Path(p), sha256_of([p])[p])))
    if not members:
        raise InputError(folder, None, "no STS.input.<dataset>.txt files in this folder")
    if len(members) == 1:
        return members[0]
    return Suite(name, members, "sts", description=f"STS datasets in {folder}")
