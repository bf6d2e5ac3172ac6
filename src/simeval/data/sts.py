"""SemEval STS files: input, gold standard and system output (read and write).

- input: one pair a line, two tab-separated sentences (later years add source columns, ignored);
- gold: one score a line, the first tab field; an empty line means the pair is unscored and is
  skipped in evaluation (as in STS 2013 onwards);
- system output: one score a line, optionally a tab and a confidence in 1..100.

The official 2012 script read the two files side by side without checking their lengths, so a
short output file was silently misaligned. Here a different number of lines is an error.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simeval.data.textio import iter_lines, parse_float
from simeval.errors import InputError, InputWarning


@dataclass
class STSOutput:
    """A system's scores, and its confidences when every line gives one."""

    path: str | None
    scores: np.ndarray
    confidences: np.ndarray | None
    warnings: list[InputWarning] = field(default_factory=list)


def read_sts_input(path: str | Path) -> list[tuple[str, str]]:
    """Sentence pairs, one per line."""
    pairs = []
    for number, text in iter_lines(path):
        fields = text.split("\t")
        if len(fields) < 2:
            raise InputError(path, number, "expected two tab-separated sentences, found no tab")
        pairs.append((fields[0], fields[1]))
    if not pairs:
        raise InputError(path, None, "empty file, expected sentence pairs")
    return pairs


def read_sts_gold(path: str | Path) -> np.ndarray:
    """Gold scores, NaN for an empty line (an unscored pair)."""
    values = []
    for number, text in iter_lines(path):
        first = text.split("\t")[0].strip()
        values.append(math.nan if first == "" else parse_float(first, path, number, "gold score"))
    if not values:
        raise InputError(path, None, "empty file, expected one gold score a line")
    return np.asarray(values, dtype=float)


def read_sts_output(path: str | Path, expected_lines: int | None = None) -> STSOutput:
    """System scores (and confidences, used only when every line has one)."""
    scores: list[float] = []
    confidences: list[float] = []
    missing_confidence = False
    for number, text in iter_lines(path):
        fields = text.split("\t")
        if fields[0].strip() == "":
            raise InputError(path, number, "expected a score, the line is empty")
        scores.append(parse_float(fields[0].strip(), path, number, "score"))
        if len(fields) > 1 and fields[1].strip():
            conf = parse_float(fields[1].strip(), path, number, "confidence")
            if not 0 <= conf <= 100:
                raise InputError(path, number, f"confidence: expected 0..100, got {fields[1]!r}")
            confidences.append(conf)
        else:
            missing_confidence = True
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
    Path(path).write_text(text, encoding="utf-8")
