"""TREC run and qrels files (read and write).

- run: ``qid Q0 docno rank score runid``, separated by ASCII white space (C's ``isspace``, as
  trec_eval reads them). BUCC 2015's
  ``id1 X id2 Y score run.name`` is the same six fields. trec_eval ignores the second and the
  rank field and orders by score; so does simeval. trec_eval keeps a score as a C ``float``
  (its ``TEXT_RESULTS.sim``), so scores that differ only past float32's precision (0.1 and
  0.1 + 1e-12; 1e300 and 1e299, both beyond float32's range) tie in its order and go by
  docno: a run scored from a file keeps its scores the same way (:meth:`Run.as_trec_eval`).
- qrels: ``qid iteration docno relevance``, relevance an integer (>= 1 means relevant).

Reading is built for large runs (BUCC-size runs have ~750,000 lines): the file is read in blocks
of whole lines, each split at once as bytes, and ids stay UTF-8 byte strings; when a check fails
the offending line is looked up so the error names it. Memory follows the rows kept, not the
bytes read: a block is about ``BLOCK`` bytes, and a line longer than the line cap is refused as
soon as the cap is passed, however long the file (``benchmarks/trec_memory.py``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from simeval.data.atomic import write_atomic
from simeval.data.table import parse
from simeval.data.textio import (
    BOM,
    MAX_NUMBER,
    line_too_long,
    max_line,
    open_binary,
    parse_float,
    parse_int,
    refuse_bad_utf8,
    refuse_long_lines,
    refuse_long_number,
    refuse_nul,
)
from simeval.errors import InputError, Problems
from simeval.metrics.ranking.id_keys import as_bytes, as_text, first_duplicate
from simeval.metrics.ranking.order import trec_order


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
    # what the system that made the run found on the way (dictionary coverage, BLI precision)
    facts: dict | None = None

    def as_trec_eval(self) -> Run:
        """The run with its scores as trec_eval holds a run file's scores: C floats (float32,
        beyond its range ±inf), so that scores apart only past float32's precision tie and go
        by docno in its order (module docstring)."""
        with np.errstate(over="ignore"):
            scores = self.scores.astype(np.float32).astype(np.float64)
        return replace(self, scores=scores)


@dataclass
class Qrels:
    """Relevance judgements: one row per (query, document); ids as in :class:`Run`."""

    path: str | None
    qids: np.ndarray
    docnos: np.ndarray
    relevance: np.ndarray  # int64
    lines: np.ndarray


BLOCK = 1 << 20  # bytes read at a time; a block ends at the last line end it holds


def _blocks(path: str | Path) -> Iterator[tuple[bytes, int]]:
    """The file's whole lines in blocks of about ``BLOCK`` bytes, each with the number of its
    first line; a byte-order mark is dropped. Each block is checked (UTF-8, no NUL, no line
    past the cap) before it is given, and a line is refused as soon as it passes the cap, so
    the file is never held whole."""
    p = Path(path)
    cap = max_line()
    line, offset, rest, first = 1, 0, b"", True
    with open_binary(p) as f:
        while True:
            chunk = f.read(BLOCK)
            if first and chunk.startswith(BOM):
                chunk = chunk[len(BOM) :]
            first = False
            data = rest + chunk if rest else chunk
            cut = data.rfind(b"\n") + 1 if chunk else len(data)
            if not cut and chunk:  # no line end yet: the line so far must stay within the cap
                if len(data) > cap + 1:
                    raise line_too_long(p, line, cap)
                rest = data
                continue
            block, rest = data[:cut], data[cut:]
            if block:
                refuse_bad_utf8(block, p, line, offset)
                refuse_nul(block, p, line)
                refuse_long_lines(block, p, line)
                yield block, line
            if not chunk:
                return
            line += block.count(b"\n")
            offset += len(block)


def _fields(
    data: bytes, first_line: int, path: str | Path, width: int, what: str
) -> tuple[list[list[bytes]], np.ndarray] | None:
    """Columns of a block with ``width`` fields a line, separated by ASCII white space (C's
    ``isspace``, as trec_eval reads them), read line by line; blank lines are skipped (None
    when nothing else is there). The way for blocks :func:`simeval.data.table.parse` refuses:
    it names the first bad line."""
    rows = [line.split() for line in data.split(b"\n")]
    numbers = [first_line + i for i, r in enumerate(rows) if r]
    rows = [r for r in rows if r]
    for i, r in enumerate(rows):
        if len(r) != width:
            raise InputError(path, numbers[i], f"expected {width} fields ({what}), got {len(r)}")
    if not rows:
        return None
    return [list(c) for c in zip(*rows, strict=True)], np.asarray(numbers, dtype=np.int64)


def _text(field: bytes) -> str:
    return field.decode("utf-8", errors="replace")


MAX_ID = 256  # bytes; longer ids are refused: fixed-width arrays would give every id that width
_FLOAT_CHARS = b"0123456789+-.eE"
_INT_CHARS = b"0123456789+-"


def _numbers(
    column: list[bytes], kind: type, path: str | Path, lines: np.ndarray, what: str
) -> np.ndarray:
    """A column of numbers (``float`` or ``int``) read as :func:`~simeval.data.textio.
    parse_float` reads one: ASCII decimals, finite, within range; every bad field (up to 20)
    named with its line."""
    for field, line in zip(column, lines, strict=True):
        refuse_long_number(field, path, int(line), what)
    allowed = _FLOAT_CHARS if kind is float else _INT_CHARS
    joined = b"".join(column)
    if not joined.translate(None, allowed):  # only number characters: the fast path
        try:
            values = np.array(
                [kind(f) for f in column], dtype=np.float64 if kind is float else np.int64
            )
            if kind is not float or np.isfinite(values).all():
                return values
        except (ValueError, OverflowError):
            pass
    problems = Problems(path)
    out = []
    for field, line in zip(column, lines, strict=True):
        text = _text(field)
        try:
            if kind is int:
                out.append(parse_int(text, path, int(line), what))
            else:
                out.append(parse_float(text, path, int(line), what))
        except InputError as exc:
            problems.add(int(line), exc.message)
    problems.check()
    return np.array(out, dtype=np.float64 if kind is float else np.int64)


def _ids(column: list[bytes], path: str | Path, lines: np.ndarray, what: str) -> np.ndarray:
    """Ids as a byte-string array, refusing ids longer than ``MAX_ID`` bytes (one would make
    every id of the array that wide: a 3 MB docno cost 3.4 GB)."""
    long = [i for i, f in enumerate(column) if len(f) > MAX_ID]
    if long:
        i = long[0]
        raise InputError(
            path,
            int(lines[i]),
            f"{what} of {len(column[i]):,} bytes: ids longer than {MAX_ID} bytes are refused",
        )
    return np.array(column)


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


def id_in_memory(value: object, name: str, what: str) -> bytes:
    """A query or document id given in memory (a ranx-style dict's key) as the bytes a TREC
    file's field would hold: its text, UTF-8. An id with a NUL is refused (``what``: which
    id): a file cannot hold one, and NumPy's bytes arrays would drop a trailing one, making
    ``"d1\\x00"`` the id ``"d1"``."""
    text = str(value)
    if "\x00" in text:
        raise InputError(None, None, f"{name}: {what} {text!r} holds a NUL character")
    return text.encode()


def refuse_repeats_in_memory(qids: np.ndarray, docnos: np.ndarray, name: str, verb: str) -> None:
    """The file readers' rule for rows given in memory (a ranx-style dict): no document twice
    for one query. Ids compare as the text they become, as the fields of a TREC line do, so a
    dict's int key 1 and str key "1" are one query (and 5 and "5" one document)."""
    dup = first_duplicate(qids, docnos)
    if dup is not None:
        a, b = dup
        raise InputError(
            None, None, f"{name}: document {_text(docnos[b])!r} {verb} twice for query "
            f"{_text(qids[b])!r} (entries {a + 1} and {b + 1}; ids compare as text, so 1 and "
            "'1' are one id)",
        )  # fmt: skip


Columns = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, bytes]


def _columns(
    path: str | Path, width: int, what: str, ids: tuple[int, int], number: int, kind: type
) -> Columns:
    """(qids, docnos, numbers, lines, the first row's last field) of a TREC file, read block
    by block (:func:`_blocks`)."""
    parts = [
        part
        for data, first_line in _blocks(path)
        if (part := _block(data, first_line, path, width, what, ids, number, kind)) is not None
    ]
    if not parts:
        raise InputError(path, None, f"empty file, expected lines of the form: {what}")
    if len(parts) == 1:
        return parts[0]
    qids, docnos, values, lines = (np.concatenate([p[k] for p in parts]) for k in range(4))
    return qids, docnos, values, lines, parts[0][4]


def _block(
    data: bytes,
    first_line: int,
    path: str | Path,
    width: int,
    what: str,
    ids: tuple[int, int],
    number: int,
    kind: type,
) -> Columns | None:
    """The columns of one block of whole lines (None: only blank lines).

    Blocks whose every line has ``width`` fields are split at once
    (:mod:`simeval.data.table`); any other goes the line-by-line way, which names the first
    bad line.
    """
    table = parse(data, width)
    if table is None:
        found = _fields(data, first_line, path, width, what)
        if found is None:
            return None
        cols, lines = found
        qids, docnos = (
            _ids(cols[ids[0]], path, lines, "qid"),
            _ids(cols[ids[1]], path, lines, "docno"),
        )
        values = _numbers(cols[number], kind, path, lines, f"{_NAMES[number, width]}")
        return qids, docnos, values, lines, cols[width - 1][0]
    lines = table.lines + (first_line - 1)
    for k, name in zip(ids, ("qid", "docno"), strict=True):
        long = np.flatnonzero(table.lengths(k) > MAX_ID)
        if len(long):
            _ids(table.fields(k)[long[0] : long[0] + 1], path, lines[long[0] :], name)
    long = np.flatnonzero(table.lengths(number) > MAX_NUMBER)
    if len(long):  # before the conversion, whose work grows with the longest field
        field = table.fields(number)[long[0]]
        refuse_long_number(field, path, int(lines[long[0]]), _NAMES[number, width])
    values, done = table.decimals(number, integer=kind is int)
    if not done.all():  # other spellings: Python's conversion, or the errors with their lines
        rest = np.flatnonzero(~done)
        fields = table.fields(number)
        values = values.astype(np.float64 if kind is float else np.int64)
        values[rest] = _numbers(
            [fields[i] for i in rest], kind, path, lines[rest], _NAMES[number, width]
        )
    if kind is float and not np.isfinite(values).all():
        _numbers(table.fields(number), kind, path, lines, _NAMES[number, width])  # names them
    last = table.field(0, width - 1)
    return table.strings(ids[0]), table.strings(ids[1]), values, lines, last


_NAMES = {(4, 6): "score (field 5)", (3, 4): "relevance (field 4)"}


def read_run(path: str | Path) -> Run:
    """Read a six-field TREC run; scores must be finite numbers; no document twice per query."""
    qids, docnos, scores, lines, name = _columns(
        path, 6, "qid Q0 docno rank score runid", (0, 2), 4, float
    )
    _refuse_duplicates(qids, docnos, lines, path, "retrieved")
    return Run(str(path), qids, docnos, scores, lines, name=_text(name))


def read_qrels(path: str | Path) -> Qrels:
    """Read four-field TREC qrels; relevance must be an integer; no pair judged twice."""
    qids, docnos, rel, lines, _ = _columns(path, 4, "qid iteration docno relevance", (0, 2), 3, int)
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
    """Write a run in trec_eval's order (:mod:`simeval.metrics.ranking.order`: per query by score
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
    write_atomic(path, "".join(out).encode("utf-8"))


def write_qrels(
    path: str | Path, qids: Sequence[str], docnos: Sequence[str], relevance: Sequence[int]
) -> None:
    """Write qrels, one judgement a line."""
    text = "".join(f"{q} 0 {d} {int(r)}\n" for q, d, r in zip(qids, docnos, relevance, strict=True))
    write_atomic(path, text.encode("utf-8"))
