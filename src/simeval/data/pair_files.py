"""Word-pair files: RUSSE csv, SimLex-999 tsv, three-column pair files (read and write).

One reader serves them all. The separator is a comma, a tab or runs of white space, detected from
the first line unless given. A header is detected when the first row's score fields are not
numbers (or the row reads ``word1 word2``). Extra columns are kept, so SimLex-999's POS,
concreteness and association columns travel with the pairs as metadata.

Pairs are ordered: ``(a, b)`` and ``(b, a)`` are different pairs, as in the RUSSE scorer.
An empty score field means "not scored" (RUSSE's ``test.csv`` ships with an empty ``sim``).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simeval.data.atomic import write_atomic
from simeval.data.textio import DECIMAL_COMMA, NUMBER, iter_lines, parse_float, shown
from simeval.errors import InputError, InputWarning, Problems

SEPARATORS = {"comma": ",", "tab": "\t", "space": None}


class ColumnError(InputError):
    """A column asked for by name or number that the file does not have; ``column`` is what
    was asked (a registry entry's ``column`` points the error at its own line)."""

    column: str | int | None = None  # None when unpickled (a scoring process's answer)

    def __init__(self, column: str | int, *args: Any) -> None:
        self.column = column
        super().__init__(*args)


@dataclass
class PairTable:
    """The raw cells of a pair file, with the line number of every row."""

    path: str
    columns: list[str]
    has_header: bool
    rows: list[list[str]]
    lines: list[int]
    # rows left out by ``only`` (streamed past, never held): how many, and the first
    dropped: int = 0
    first_dropped: tuple[tuple[str, str], int] | None = None

    def column_index(self, column: str | int) -> int:
        """Resolve a column name, or a 1-based column number given as int or digit string."""
        if isinstance(column, int) or (isinstance(column, str) and column.isdigit()):
            i = int(column) - 1
            if not 0 <= i < len(self.columns):
                raise ColumnError(
                    column,
                    self.path,
                    None,
                    f"column {column} does not exist (the file has {len(self.columns)} columns)",
                )
            return i
        if column in self.columns:
            return self.columns.index(column)
        names = ", ".join(map(shown, self.columns))
        padded = [c for c in self.columns if c.strip() == str(column).strip()]
        found = f"no column named {shown(str(column))}"
        if padded:  # the official scorers (pandas' read_csv) do not strip a header name either
            found += f": column {shown(padded[0])} has {_padding(padded[0])}"
        raise ColumnError(
            column, self.path, 1 if self.has_header else None, f"{found}; columns are {names}"
        )


def _padding(name: str) -> str:
    """Where ``name`` has white space: ``trailing``, ``leading`` or around it."""
    if name == name.lstrip():
        return "trailing white space"
    if name == name.rstrip():
        return "leading white space"
    return "white space around it"


@dataclass
class ScoredPairs:
    """Word pairs with one score each (NaN where the file leaves the score empty)."""

    path: str | None
    pairs: list[tuple[str, str]]
    scores: np.ndarray
    lines: np.ndarray
    columns: dict[str, list[str]] = field(default_factory=dict)
    warnings: list[InputWarning] = field(default_factory=list)
    # pairs the reader was told to leave out (not in the gold): how many, and the first
    extra: int = 0
    first_extra: tuple[tuple[str, str], int] | None = None

    def __len__(self) -> int:
        return len(self.pairs)

    def take(self, mask: np.ndarray) -> ScoredPairs:
        """The rows where ``mask`` is true, with their extra columns and this file's warnings."""
        idx = np.flatnonzero(mask)
        return ScoredPairs(
            self.path,
            [self.pairs[i] for i in idx],
            self.scores[idx],
            self.lines[idx],
            {k: [v[i] for i in idx] for k, v in self.columns.items()},
            self.warnings,
            self.extra,
            self.first_extra,
        )

    def lookup(self) -> dict[tuple[str, str], int]:
        """Map every pair to its row index."""
        return {p: i for i, p in enumerate(self.pairs)}


def _split_line(text: str, sep: str | None) -> list[str]:
    if sep in (",", ";"):
        return next(csv.reader([text], delimiter=sep), [])
    if sep is None:
        return text.split()
    return text.split(sep)


def _is_number(text: str) -> bool:
    """Whether a first row's score cell is meant as a number, so the row is data, not a
    header: the readers' grammar, and what it refuses but a user means as a number (``1_0``,
    ``１``, ``inf``, a decimal comma), so that such a row is refused at its line instead of
    being taken for a header and its pair silently dropped."""
    text = text.strip(" \t\r\n")
    if NUMBER.fullmatch(text) or DECIMAL_COMMA.fullmatch(text):
        return True
    try:
        float(text)
    except ValueError:
        return False
    return True


def read_pair_table(
    path: str | Path,
    sep: str | None = "auto",
    header: bool | None = None,
    only: set | frozenset | None = None,
) -> PairTable:
    """Read a pair file into cells, as a stream.

    ``sep`` is ``","``, ``"\\t"``, ``None`` (runs of white space) or ``"auto"``. ``header`` is
    True, False or None (detect). Blank lines are skipped. Every row must have at least two
    non-empty fields and as many fields as the first row (trailing empty fields beyond that are
    tolerated, as WordSim-353's files end rows with a tab). With ``only``, rows whose pair is
    not in it are checked, counted and dropped, so memory is bounded by ``only`` (a gold's
    pairs), not by the file.
    """
    path = str(path)
    rows: list[list[str]] = []
    lines: list[int] = []
    problems = Problems(path)
    first: list[str] | None = None
    order: list[int] | None = None  # the word columns first, when a header names them
    width = 0
    dropped = 0
    first_dropped = None
    for number, text in iter_lines(path):
        if not text.strip():
            continue
        if first is None:
            if sep == "auto":
                sep = _separator(text)
            first = _cells(text, sep, path, number)
            while len(first) > 2 and first[-1] == "":
                first.pop()
            width = len(first)
            if width < 2:
                raise InputError(path, number, "expected at least two fields: word1 word2")
            if header is None:
                score_cells = [c for c in first[2:] if c]
                header = (bool(score_cells) and not any(_is_number(c) for c in score_cells)) or (
                    [c.lower() for c in first[:2]] in (["word1", "word2"], ["word 1", "word 2"])
                )
            order = _word_columns_first(first) if header else None
            if order is not None:
                first = [first[i] for i in order]
            if header:
                continue
            cells = first
        else:
            cells = _cells(text, sep, path, number)
            if order is not None and len(cells) == width:
                cells = [cells[i] for i in order]
        while len(cells) > width and cells[-1] == "":
            cells.pop()
        if len(cells) != width:
            problems.add(number, f"expected {width} fields as on the first row, got {len(cells)}")
            continue
        if not cells[0] or not cells[1]:
            problems.add(number, "expected two words, found an empty word field")
            continue
        if only is not None and (cells[0], cells[1]) not in only:
            dropped += 1
            first_dropped = first_dropped or ((cells[0], cells[1]), number)
            continue
        rows.append(cells)
        lines.append(number)
    if first is None:
        raise InputError(path, None, "empty file, expected word pairs")
    problems.check()
    if not rows and not dropped:
        raise InputError(path, None, "only a header line: expected word pairs after it")
    if header:
        columns = [c or f"col{i + 1}" for i, c in enumerate(first)]
    else:
        columns = ["word1", "word2", "score"][:width] + [f"col{i + 1}" for i in range(3, width)]
    return PairTable(path, columns, bool(header), rows, lines, dropped, first_dropped)


def _separator(line: str) -> str | None:
    """A file's field separator, from its first line: a tab, else a comma, else a semicolon
    (spreadsheets in many locales save CSV so), else runs of white space."""
    for sep in ("\t", ",", ";"):
        if sep in line:
            return sep
    return None


WORD_NAMES = (("word1", "word2"), ("word 1", "word 2"), ("w1", "w2"))


def _word_columns_first(header: list[str]) -> list[int] | None:
    """The column order that puts a header's word columns first, when they are named
    (``sim,word1,word2``) but not the first two; None when nothing moves."""
    names = [c.strip().lower() for c in header]
    for a, b in WORD_NAMES:
        if a in names and b in names:
            i, j = names.index(a), names.index(b)
            if (i, j) == (0, 1):
                return None
            return [i, j] + [k for k in range(len(header)) if k not in (i, j)]
    return None


def read_pair_keys(path: str | Path) -> set[tuple[str, str]]:
    """The (word1, word2) of every line of a split file, other fields ignored: a split names
    its pairs, their scores and columns come from the full file (SimVerb-3500's dev file drops
    a relation field and repeats its first pair where a header would be)."""
    keys: set[tuple[str, str]] = set()
    sep: str | None = "auto"
    for number, text in iter_lines(path):
        if not text.strip():
            continue
        if sep == "auto":
            sep = _separator(text)
        cells = _cells(text, sep, str(path), number)
        if len(cells) < 2 or not cells[0] or not cells[1]:
            raise InputError(path, number, "expected two words at the start of the line")
        keys.add((cells[0], cells[1]))
    if not keys:
        raise InputError(path, None, "empty file, expected word pairs")
    return keys


def _cells(text: str, sep: str | None, path: str, number: int) -> list[str]:
    try:
        return _split_line(text, sep)
    except csv.Error as exc:
        raise InputError(path, number, f"malformed CSV: {exc}") from None


def default_score_column(table: PairTable) -> int | None:
    """The score column when none is named: ``sim``, else the third column, else none."""
    if table.has_header:
        for name in ("sim", "score", "SimLex999", "Human (mean)"):
            if name in table.columns:
                return table.columns.index(name)
    return 2 if len(table.columns) >= 3 else None


def read_scored_pairs(
    path: str | Path,
    column: str | int | None = None,
    *,
    sep: str | None = "auto",
    header: bool | None = None,
    require_scores: bool = False,
    keep_duplicates: bool = False,
    keep_conflicts: bool = True,
    only: set | frozenset | None = None,
) -> ScoredPairs:
    """Read pairs and one score column.

    Raises :class:`InputError` for non-numeric, NaN or infinite scores. A pair given twice with
    the same score is kept once (one warning counts all repeats); given twice with different
    scores it is an error. Gold files are read with ``keep_duplicates=True``: every row stays an
    item of its own, as the published scores count it (WordSim-353 rates money/cash twice, 9.15
    and 9.08; rt.csv repeats 1,287 pairs), and one warning says how many rows repeat a pair.
    With ``keep_conflicts=False`` (a user's gold file) a pair given twice with different scores
    is an error naming both lines even then; identical repeats stay items, with the warning.
    Empty score cells become NaN ("not scored") unless ``require_scores`` makes them an error.
    ``only``: keep the pairs in this set and count the others (``extra``), so reading a large
    submission against a small gold holds only the gold's pairs.
    """
    table = read_pair_table(path, sep, header, only)
    col = table.column_index(column) if column is not None else default_score_column(table)
    if col is None:
        raise InputError(table.path, None, "no score column: expected word1 word2 score")
    if col < 2:
        raise InputError(table.path, None, f"column {table.columns[col]!r} holds words, not scores")
    name = table.columns[col]
    keep = [i for i in range(2, len(table.columns)) if i != col]
    first_row: dict[tuple[str, str], int] = {}
    values: list[float] = []
    repeats: list[int] = []
    problems = Problems(table.path)
    for r, (cells, number) in enumerate(zip(table.rows, table.lines, strict=True)):
        pair = (cells[0], cells[1])
        cell = cells[col]
        value = math.nan
        if cell.strip() == "":
            if require_scores:
                problems.add(number, f"{name}: expected a number, the field is empty")
        else:
            try:
                value = parse_float(cell, table.path, number, name)
            except InputError as exc:
                problems.add(number, exc.message)
        values.append(value)
        if pair not in first_row:
            first_row[pair] = r
            continue
        before = values[first_row[pair]]
        same = value == before or (math.isnan(value) and math.isnan(before))
        if same or (keep_duplicates and keep_conflicts):
            repeats.append(number)
        else:
            problems.add(
                number,
                f"pair {shown(pair[0])},{shown(pair[1])} given twice with different "
                f"scores ({before!r} on line {table.lines[first_row[pair]]}, {value!r} here)",
            )
    problems.check()
    warnings: list[InputWarning] = []
    if repeats:
        what = "are kept as separate items" if keep_duplicates else "are used once"
        warnings.append(
            InputWarning(
                table.path,
                repeats[0],
                f"{len(repeats)} line(s) repeat an earlier pair (first here); they {what}",
            )
        )
    rows = list(range(len(table.rows))) if keep_duplicates else list(first_row.values())
    return ScoredPairs(
        table.path,
        [(table.rows[r][0], table.rows[r][1]) for r in rows],
        np.asarray([values[r] for r in rows], dtype=float),
        np.asarray([table.lines[r] for r in rows], dtype=np.int64),
        {table.columns[i]: [table.rows[r][i] for r in rows] for i in keep},
        warnings,
        table.dropped,
        table.first_dropped,
    )


def format_score(value: float) -> str:
    """Shortest text that reads back to the same float; empty for NaN (not scored)."""
    return "" if math.isnan(value) else repr(float(value))


def write_pairs(
    path: str | Path,
    pairs: Sequence[tuple[str, str]],
    scores: Sequence[float] | np.ndarray,
    *,
    sep: str = ",",
    header: Sequence[str] | None = ("word1", "word2", "sim"),
    extra: dict[str, Sequence[str]] | None = None,
) -> None:
    """Write pairs with scores (RUSSE csv by default; ``sep="\\t"`` for tsv), UTF-8, LF."""
    extra = extra or {}
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter=sep, lineterminator="\n") if sep == "," else None
    rows: list[list[str]] = []
    if header is not None:
        rows.append([*header, *extra.keys()])
    for i, (a, b) in enumerate(pairs):
        rows.append([a, b, format_score(float(scores[i])), *(str(v[i]) for v in extra.values())])
    for row in rows:
        if writer is not None:
            writer.writerow(row)
        else:
            buf.write(sep.join(row) + "\n")
    write_atomic(path, buf.getvalue().encode("utf-8"))
