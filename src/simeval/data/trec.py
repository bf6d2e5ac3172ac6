"""TREC run and qrels files (read and write).

- run: ``qid Q0 docno rank score runid``, white-space separated. BUCC 2015's
  ``id1 X id2 Y score run.name`` is the same six fields. trec_eval ignores the second and the
  rank field and orders by score; so does simeval.
- qrels: ``qid iteration docno relevance``, relevance an integer (>= 1 means relevant).

Reading is vectorised for large runs (BUCC-size runs have ~750,000 lines); when a check fails the
offending line is looked up so the error names it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simeval.data.textio import parse_float, read_text
from simeval.errors import InputError


@dataclass
class Run:
    """A ranked run: one row per (query, document) with its score."""

    path: str | None
    qids: np.ndarray  # str
    docnos: np.ndarray  # str
    scores: np.ndarray  # float64
    lines: np.ndarray  # int64, 1-based line numbers
    name: str = ""


@dataclass
class Qrels:
    """Relevance judgements: one row per (query, document)."""

    path: str | None
    qids: np.ndarray
    docnos: np.ndarray
    relevance: np.ndarray  # int64
    lines: np.ndarray


# White space that str.split() honours beyond ASCII blanks; files holding any take the slow path.
_ODD_SPACE = re.compile(
    "[\x0b\x0c\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
)


def _fast_fields(text: str, width: int) -> tuple[list[str], np.ndarray] | None:
    """All fields (flat) and the line numbers of non-blank lines, when every non-blank line has
    exactly ``width`` fields; None otherwise (the caller then finds the bad line)."""
    if _ODD_SPACE.search(text):
        return None
    b = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    if not len(b):
        return None
    space = (b == 32) | (b == 9) | (b == 10) | (b == 13)
    starts = ~space
    starts[1:] &= space[:-1]
    start_pos = np.flatnonzero(starts)
    newlines = np.flatnonzero(b == 10)
    before = np.searchsorted(start_pos, newlines)
    per_line = np.diff(np.concatenate(([0], before, [len(start_pos)])))
    used = per_line > 0
    if not used.any() or (per_line[used] != width).any():
        return None
    return text.split(), np.flatnonzero(used).astype(np.int64) + 1


def _fields(path: str | Path, width: int, what: str) -> tuple[list[list[str]], np.ndarray]:
    """Columns (lists of strings) of a white-space separated file with ``width`` fields a line."""
    text = read_text(path)
    if "\x00" in text:
        raise InputError(
            path,
            text.count("\n", 0, text.index("\x00")) + 1,
            "contains NUL bytes: expected UTF-8 text",
        )
    fast = _fast_fields(text, width)
    if fast is not None:
        tokens, numbers = fast
        return [tokens[i::width] for i in range(width)], numbers
    rows = [line.split() for line in text.split("\n")]
    numbers = [i + 1 for i, r in enumerate(rows) if r]
    rows = [r for r in rows if r]
    for i, r in enumerate(rows):
        if len(r) != width:
            raise InputError(path, numbers[i], f"expected {width} fields ({what}), got {len(r)}")
    if not rows:
        raise InputError(path, None, f"empty file, expected lines of the form: {what}")
    return [list(c) for c in zip(*rows, strict=True)], np.asarray(numbers, dtype=np.int64)


def _first_duplicate(qids: Sequence[str], docnos: Sequence[str]) -> tuple[int, int] | None:
    """Indices (first, repeat) of the first repeated (qid, docno) pair, or None."""
    if len(set(zip(qids, docnos, strict=True))) == len(qids):
        return None
    seen: dict[tuple[str, str], int] = {}
    for i, key in enumerate(zip(qids, docnos, strict=True)):
        if key in seen:
            return seen[key], i
        seen[key] = i
    return None  # pragma: no cover


def read_run(path: str | Path) -> Run:
    """Read a six-field TREC run; scores must be finite numbers; no document twice per query."""
    cols, lines = _fields(path, 6, "qid Q0 docno rank score runid")
    qids = np.asarray(cols[0])
    docnos = np.asarray(cols[2])
    try:
        scores = np.asarray(cols[4], dtype=float)
    except ValueError:
        for i, s in enumerate(cols[4]):
            parse_float(s, path, int(lines[i]), "score (field 5)")
        raise  # pragma: no cover
    bad = np.flatnonzero(~np.isfinite(scores))
    if len(bad):
        i = int(bad[0])
        raise InputError(
            path, int(lines[i]), f"score (field 5): expected a finite number, got {cols[4][i]!r}"
        )
    dup = _first_duplicate(cols[0], cols[2])
    if dup is not None:
        a, b = dup
        raise InputError(
            path,
            int(lines[b]),
            f"document {docnos[b]} retrieved twice for query "
            f"{qids[b]} (first on line {lines[a]}); trec_eval refuses such runs",
        )
    return Run(str(path), qids, docnos, scores, lines, name=cols[5][0])


def read_qrels(path: str | Path) -> Qrels:
    """Read four-field TREC qrels; relevance must be an integer; no pair judged twice."""
    cols, lines = _fields(path, 4, "qid iteration docno relevance")
    try:
        rel = np.asarray(cols[3], dtype=np.int64)
    except (ValueError, OverflowError):
        for i, s in enumerate(cols[3]):
            try:
                int(s)
            except ValueError:
                raise InputError(
                    path, int(lines[i]), f"relevance (field 4): expected an integer, got {s!r}"
                ) from None
        raise  # pragma: no cover
    qids = np.asarray(cols[0])
    docnos = np.asarray(cols[2])
    dup = _first_duplicate(cols[0], cols[2])
    if dup is not None:
        a, b = dup
        raise InputError(
            path,
            int(lines[b]),
            f"document {docnos[b]} judged twice for query {qids[b]} (first on line {lines[a]})",
        )
    return Qrels(str(path), qids, docnos, rel, lines)


def write_run(
    path: str | Path,
    qids: Sequence[str],
    docnos: Sequence[str],
    scores: Sequence[float],
    run_name: str = "simeval",
    *,
    depth: int | None = None,
) -> None:
    """Write a run in TREC order (per query by score descending), ranks from 1, at most ``depth``
    documents per query (BUCC 2015 asked for at most 5)."""
    order = sorted(range(len(qids)), key=lambda i: (qids[i], -float(scores[i]), docnos[i]))
    out: list[str] = []
    rank = 0
    previous = None
    for i in order:
        rank = rank + 1 if qids[i] == previous else 1
        previous = qids[i]
        if depth is not None and rank > depth:
            continue
        out.append(f"{qids[i]} Q0 {docnos[i]} {rank} {float(scores[i])!r} {run_name}\n")
    Path(path).write_text("".join(out), encoding="utf-8")


def write_qrels(
    path: str | Path, qids: Sequence[str], docnos: Sequence[str], relevance: Sequence[int]
) -> None:
    """Write qrels, one judgement a line."""
    text = "".join(f"{q} 0 {d} {int(r)}\n" for q, d, r in zip(qids, docnos, relevance, strict=True))
    Path(path).write_text(text, encoding="utf-8")
