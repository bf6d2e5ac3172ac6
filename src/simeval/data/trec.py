"""TREC run and qrels files (read and write).

- run: ``qid Q0 docno rank score runid``, separated by ASCII white space (C's ``isspace``, as
  trec_eval reads them). BUCC 2015's
  ``id1 X id2 Y score run.name`` is the same six fields. trec_eval ignores the second and the
  rank field and orders by score; so does simeval.
- qrels: ``qid iteration docno relevance``, relevance an integer (>= 1 means relevant).

Reading is built for large runs (BUCC-size runs have ~750,000 lines): the file is split once as
bytes and ids stay UTF-8 byte strings; when a check fails the offending line is looked up so the
error names it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simeval.data.textio import read_bytes, refuse_nul
from simeval.errors import InputError
from simeval.metrics.keys import as_bytes, as_text, first_duplicate
from simeval.metrics.order import trec_order


@dataclass
class Run:
    """A ranked run: one row per (query, document) with its score. Ids are UTF-8 byte strings
    (numpy ``S`` arrays), which keeps 750,000-line runs cheap and compares as trec_eval does."""

    path: str | None
    qids: np.ndarray  # bytes
    docnos: np.ndarray  # bytes
    scores: np.ndarray  # float64
    lines: np.ndarray  # int64, 1-based line numbers
    name: str = ""


@dataclass
class Qrels:
    """Relevance judgements: one row per (query, document); ids as in :class:`Run`."""

    path: str | None
    qids: np.ndarray
    docnos: np.ndarray
    relevance: np.ndarray  # int64
    lines: np.ndarray


_MARK = b"\x00"  # stands for a line end among the fields; NUL bytes are refused in the files


def _fields(path: str | Path, width: int, what: str) -> tuple[list[list[bytes]], np.ndarray]:
    """Columns of a file with ``width`` fields a line, separated by ASCII white space (C's
    ``isspace``, as trec_eval reads them); blank lines are skipped."""
    data = read_bytes(path)
    refuse_nul(data, path)
    if not data.endswith(b"\n"):
        data += b"\n"
    # Fast path: split once, with a mark after every line; it holds when the marks fall
    # exactly after every ``width`` fields, i.e. every line has ``width`` fields.
    tokens = data.replace(b"\n", b" " + _MARK + b" ").split()
    n = len(tokens) // (width + 1)
    if len(tokens) == n * (width + 1) and tokens[width :: width + 1] == [_MARK] * n and n:
        return [tokens[k :: width + 1] for k in range(width)], np.arange(1, n + 1)
    rows = [line.split() for line in data.split(b"\n")]
    numbers = [i + 1 for i, r in enumerate(rows) if r]
    rows = [r for r in rows if r]
    for i, r in enumerate(rows):
        if len(r) != width:
            raise InputError(path, numbers[i], f"expected {width} fields ({what}), got {len(r)}")
    if not rows:
        raise InputError(path, None, f"empty file, expected lines of the form: {what}")
    return [list(c) for c in zip(*rows, strict=True)], np.asarray(numbers, dtype=np.int64)


def _text(field: bytes) -> str:
    return field.decode("utf-8", errors="replace")


def _numbers(
    column: list[bytes], kind: type, path: str | Path, lines: np.ndarray, what: str
) -> np.ndarray:
    """A column of numbers (``float`` or ``int``), or :class:`InputError` at the first bad one."""
    try:
        return np.fromiter(map(kind, column), dtype=np.float64 if kind is float else np.int64)
    except (ValueError, OverflowError):
        for i, field in enumerate(column):
            try:
                kind(field)
            except (ValueError, OverflowError):
                expected = "a number" if kind is float else "an integer"
                raise InputError(
                    path, int(lines[i]), f"{what}: expected {expected}, got {_text(field)!r}"
                ) from None
        raise  # pragma: no cover


def _refuse_duplicates(
    qids: np.ndarray, docnos: np.ndarray, lines: np.ndarray, path: str | Path, verb: str
) -> None:
    dup = first_duplicate(qids, docnos)
    if dup is not None:
        a, b = dup
        raise InputError(
            path,
            int(lines[b]),
            f"document {_text(docnos[b])} {verb} twice for query {_text(qids[b])} "
            f"(first on line {lines[a]})",
        )


def read_run(path: str | Path) -> Run:
    """Read a six-field TREC run; scores must be finite numbers; no document twice per query."""
    cols, lines = _fields(path, 6, "qid Q0 docno rank score runid")
    qids, docnos = np.array(cols[0]), np.array(cols[2])
    scores = _numbers(cols[4], float, path, lines, "score (field 5)")
    bad = np.flatnonzero(~np.isfinite(scores))
    if len(bad):
        i = int(bad[0])
        raise InputError(
            path,
            int(lines[i]),
            f"score (field 5): expected a finite number, got {_text(cols[4][i])!r}",
        )
    _refuse_duplicates(qids, docnos, lines, path, "retrieved")
    return Run(str(path), qids, docnos, scores, lines, name=_text(cols[5][0]))


def read_qrels(path: str | Path) -> Qrels:
    """Read four-field TREC qrels; relevance must be an integer; no pair judged twice."""
    cols, lines = _fields(path, 4, "qid iteration docno relevance")
    rel = _numbers(cols[3], int, path, lines, "relevance (field 4)")
    qids, docnos = np.array(cols[0]), np.array(cols[2])
    _refuse_duplicates(qids, docnos, lines, path, "judged")
    return Qrels(str(path), qids, docnos, rel, lines)


def write_run(
    path: str | Path,
    qids: Sequence[str] | np.ndarray,
    docnos: Sequence[str] | np.ndarray,
    scores: Sequence[float] | np.ndarray,
    run_name: str = "simeval",
    *,
    depth: int | None = None,
    bucc: bool = False,
) -> None:
    """Write a run in trec_eval's order (:mod:`simeval.metrics.order`: per query by score
    descending, ties by docno in descending byte order), ranks from 1, at most ``depth``
    documents per query (BUCC 2015 asked for at most 5). Scores are written so they read back
    exactly, so the file read again and cut at any depth k holds the k documents trec_eval
    ranks first. ``bucc`` writes BUCC 2015's six fields ``id1 X id2 Y score run.name`` instead
    of ``Q0`` and the rank (trec_eval reads both the same way)."""
    qb, db = as_bytes(qids), as_bytes(docnos)
    q, d = as_text(qb), as_text(db)
    values = np.asarray(scores, dtype=float)
    out: list[str] = []
    rank = 0
    previous = None
    for i in trec_order(qb, db, values).tolist():
        rank = rank + 1 if q[i] == previous else 1
        previous = q[i]
        if depth is not None and rank > depth:
            continue
        second, fourth = ("X", "Y") if bucc else ("Q0", rank)
        out.append(f"{q[i]} {second} {d[i]} {fourth} {float(values[i])!r} {run_name}\n")
    Path(path).write_text("".join(out), encoding="utf-8")


def write_qrels(
    path: str | Path, qids: Sequence[str], docnos: Sequence[str], relevance: Sequence[int]
) -> None:
    """Write qrels, one judgement a line."""
    text = "".join(f"{q} 0 {d} {int(r)}\n" for q, d, r in zip(qids, docnos, relevance, strict=True))
    Path(path).write_text(text, encoding="utf-8")
