"""SemEval STS files: input, gold standard and system output (read and write).

- input: one pair a line, two tab-separated sentences (later years add source columns, ignored);
- gold: one score a line, the first tab field; an empty line means the pair is unscored and is
  skipped in evaluation (as in STS 2013 onwards);
- system output: one score a line, optionally a tab (or spaces) and a confidence in 0..100;
  a blank line where the gold is empty (2015/2016 outputs leave unscored pairs blank).

The official 2012 script read the two files side by side without checking their lengths, so a
short output file was silently misaligned. Here a different number of lines is an error.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simeval.data.atomic import write_atomic
from simeval.data.textio import iter_lines, parse_float, shown
from simeval.errors import InputError, InputWarning, Problems


@dataclass
class STSOutput:
    """A system's scores, and its confidences when every line gives one; ``blank``: the lines
    left blank, when blank lines were allowed anywhere (their score is 0)."""

    path: str | None
    scores: np.ndarray
    confidences: np.ndarray | None
    warnings: list[InputWarning] = field(default_factory=list)
    blank: np.ndarray | None = None


def read_sts_input(path: str | Path, *, sentences: bool = False) -> list[tuple[str, str]]:
    """Sentence pairs, one per line. With ``sentences`` (a pool to sample pairs for
    annotation from) a sentence that is empty or only white space is an error: there is
    nothing to annotate (evaluation inputs are read as published)."""
    pairs = []
    problems = Problems(path)
    for number, text in iter_lines(path):
        fields = text.split("\t")
        if len(fields) < 2:
            raise InputError(path, number, "expected two tab-separated sentences, found no tab")
        if sentences:
            for which, sentence in enumerate(fields[:2], 1):
                if not sentence.strip():
                    problems.add(number, f"sentence {which} is empty: expected a sentence")
        pairs.append((fields[0], fields[1]))
    problems.check()
    if not pairs:
        raise InputError(path, None, "empty file, expected sentence pairs")
    return pairs


def read_sts_gold(path: str | Path) -> np.ndarray:
    """Gold scores, NaN for an empty line (an unscored pair); a gold with no scored pair at all
    is an error."""
    values = []
    problems = Problems(path)
    for number, text in iter_lines(path):
        first = text.split("\t")[0].strip()
        value = math.nan
        if first:
            try:
                value = parse_float(first, path, number, "gold score")
            except InputError as exc:
                problems.add(number, exc.message)
        values.append(value)
    problems.check()
    if not values:
        raise InputError(path, None, "empty file, expected one gold score a line")
    gold = np.asarray(values, dtype=float)
    if np.isnan(gold).all():
        raise InputError(path, None, "no scored pair: every gold line is empty")
    return gold


STSB_COLUMNS = ("genre", "file", "year", "id")


@dataclass
class STSBenchmarkFile:
    """An STS Benchmark split: sentence pairs, 0-5 gold, and each pair's genre, file, year, id."""

    pairs: list[tuple[str, str]]
    gold: np.ndarray
    columns: dict[str, list[str]]


def read_stsb(path: str | Path) -> STSBenchmarkFile:
    """``sts-train.csv``/``sts-dev.csv``/``sts-test.csv``: tab-separated genre, file, year, id,
    score, sentence1, sentence2. Some rows add source columns after the second sentence (they
    are ignored), and sentences hold quote marks, so fields are split at tabs and never
    unquoted (pandas' default CSV quoting would merge lines here)."""
    pairs: list[tuple[str, str]] = []
    gold: list[float] = []
    columns: dict[str, list[str]] = {c: [] for c in STSB_COLUMNS}
    problems = Problems(path)
    for number, text in iter_lines(path):
        fields = text.split("\t")
        if len(fields) < 7:
            problems.add(
                number,
                f"expected 7 tab-separated fields (genre file year id score sentence1 "
                f"sentence2), got {len(fields)}",
            )
            continue
        try:
            gold.append(parse_float(fields[4], path, number, "score"))
        except InputError as exc:
            problems.add(number, exc.message)
            continue
        pairs.append((fields[5], fields[6]))
        for c, v in zip(STSB_COLUMNS, fields[:4], strict=True):
            columns[c].append(v)
    problems.check()
    if not pairs:
        raise InputError(path, None, "empty file, expected STS Benchmark rows")
    return STSBenchmarkFile(pairs, np.asarray(gold, dtype=float), columns)


def read_sts_output(
    path: str | Path, expected_lines: int | None = None, unscored: np.ndarray | None = None
) -> STSOutput:
    """System scores (and confidences, used only when every scored line has one).

    A line holds a score, optionally followed by a confidence in 0..100 after a tab or spaces.
    As the 2015/2016 scorers allow, a blank line stands for a pair the gold leaves unscored
    (``unscored[i]`` true); anywhere else it is an error, as is a file of the wrong length (the
    2012 Perl script misaligned it silently).
    """
    scores: list[float] = []
    confidences: list[float] = []
    missing_confidence = False
    problems = Problems(path)
    blanks: list[int] = []  # blank lines not yet placed: trailing ones may be no pairs at all

    def place_blanks(keep: int) -> None:
        for number in blanks[:keep]:
            if unscored is None or number > len(unscored) or not unscored[number - 1]:
                problems.add(number, "expected a score, the line is empty")
            scores.append(math.nan)
            confidences.append(math.nan)
        blanks.clear()

    for number, text in iter_lines(path):
        fields = text.split("\t") if "\t" in text else text.split()
        if not fields or fields[0].strip() == "":
            blanks.append(number)
            continue
        place_blanks(len(blanks))
        try:
            scores.append(parse_float(fields[0], path, number, "score"))
        except InputError as exc:
            problems.add(number, exc.message)
            scores.append(math.nan)
        if len(fields) > 1 and fields[1].strip():
            try:
                conf = parse_float(fields[1], path, number, "confidence")
                if not 0 <= conf <= 100:
                    problems.add(number, f"confidence: expected 0..100, got {shown(fields[1])}")
                confidences.append(conf)
            except InputError as exc:
                problems.add(number, exc.message)
        else:
            missing_confidence = True
            confidences.append(math.nan)
    # blank lines at the end stand for pairs only up to the expected count
    wanted = len(blanks) if expected_lines is None else max(0, expected_lines - len(scores))
    place_blanks(min(wanted, len(blanks)))
    problems.check()
    if expected_lines is not None and len(scores) != expected_lines:
        raise InputError(
            path,
            len(scores) + (1 if len(scores) < expected_lines else 0),
            f"expected {expected_lines} lines (one per sentence pair), found {len(scores)}",
        )
    conf_array = None if missing_confidence or not confidences else np.asarray(confidences)
    return STSOutput(str(path), np.asarray(scores, dtype=float), conf_array)


def write_sts_output(
    path: str | Path, scores: np.ndarray, confidences: np.ndarray | None = None
) -> None:
    """Write one score a line (and a tab and a confidence when given)."""
    if confidences is None:
        text = "".join(f"{float(s)!r}\n" for s in scores)
    else:
        text = "".join(
            f"{float(s)!r}\t{float(c):g}\n" for s, c in zip(scores, confidences, strict=True)
        )
    write_atomic(path, text.encode("utf-8"))
