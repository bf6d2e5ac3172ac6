"""Files of whitespace-separated fields, a fixed number per line, read as arrays at once.

A TREC run of 750,000 lines is 4.5 million fields; splitting it in Python and converting each
field costs seconds. Here the file's bytes are classified once with numpy (C's ``isspace``:
space, \\t, \\n, \\v, \\f, \\r, as trec_eval reads them), fields are found as runs of other
bytes, and a column becomes a fixed-width byte-string array by one gather. Numbers written as
plain decimals (an optional sign, digits, at most one point, at most 15 digits: the form of
every score and relevance seen in TREC and BUCC files) are converted without Python too: the
digits give an integer M < 10^15 and the point a power 10^k, both exact in float64, so M / 10^k
is the correctly rounded value of the decimal — the float Python's ``float()`` returns
(Clinger 1990's fast path). Any other field goes through Python's conversion.

:func:`parse` returns None when some non-blank line has another number of fields; callers
then read the file line by line to name the line in their error.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_DIGITS = 15  # 10^15 < 2^53: every such integer is exact in float64
_SPACE = np.zeros(256, dtype=bool)
_SPACE[[9, 10, 11, 12, 13, 32]] = True


@dataclass
class Table:
    """Fields of a file, ``width`` per line: start and end offsets of field ``k`` of every line
    are ``starts[k::width]``, ``ends[k::width]``; ``lines`` the 1-based line of each row."""

    data: np.ndarray  # the file's bytes (uint8)
    width: int
    starts: np.ndarray
    ends: np.ndarray
    lines: np.ndarray

    def __len__(self) -> int:
        return len(self.lines)

    def _select(self, k: int | None) -> tuple[np.ndarray, np.ndarray]:
        """Starts and lengths of column ``k``, or of every field in reading order (None)."""
        if k is None:
            return self.starts, self.ends - self.starts
        return self.starts[k :: self.width], self.lengths(k)

    def lengths(self, k: int) -> np.ndarray:
        return self.ends[k :: self.width] - self.starts[k :: self.width]

    def matrix(self, k: int | None, longest: int | None = None) -> np.ndarray:
        """Column ``k`` (None: every field) as a (fields, L) byte matrix, zero-padded (L: the
        longest field)."""
        starts, lengths = self._select(k)
        size = int(lengths.max(initial=1)) if longest is None else longest
        padded = np.concatenate([self.data, np.zeros(size, dtype=np.uint8)])
        rows = np.lib.stride_tricks.sliding_window_view(padded, size)[starts]  # row copies
        rows *= np.arange(size) < lengths[:, None]
        return rows

    def strings(self, k: int) -> np.ndarray:
        """Column ``k`` as a byte-string array (``S`` dtype; NUL bytes must not occur)."""
        m = np.ascontiguousarray(self.matrix(k))
        return m.view(f"S{m.shape[1]}").ravel()

    def field(self, row: int, k: int) -> bytes:
        i = row * self.width + k
        return self.data[self.starts[i] : self.ends[i]].tobytes()

    def fields(self, k: int) -> list[bytes]:
        """Column ``k`` as Python bytes (the slow path, for conversions and messages)."""
        raw = self.data.tobytes()
        starts, ends = self.starts[k :: self.width], self.ends[k :: self.width]
        return [raw[a:b] for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]

    def decimals(self, k: int | None, integer: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Column ``k`` (None: every field, in reading order) as numbers where written as
        plain decimals (integers only with ``integer``): (values, done), ``done`` False where
        the field needs Python."""
        m = self.matrix(k)
        n, size = m.shape
        lengths = self._select(k)[1]
        by_column = np.ascontiguousarray(m.T)  # each step below reads one contiguous column
        value = np.zeros(n, dtype=np.int64)
        after = np.zeros(n, dtype=np.int64)  # digits after the point
        digits = np.zeros(n, dtype=np.int64)
        points = np.zeros(n, dtype=np.int64)
        other = np.zeros(n, dtype=bool)
        for j in range(size):  # Horner over the columns: L vector steps, not n Python ones
            c = by_column[j]
            d = c - np.uint8(48)  # wraps below "0": a digit is d < 10
            digit = d < 10
            point = c == 46
            value = np.where(digit, value * 10 + d, value)
            after += digit & (points > 0)
            digits += digit
            points += point
            bad = ~digit & ~point & (j < lengths)
            if j == 0:
                bad &= (c != 43) & (c != 45)  # a sign only first
            other |= bad
        done = ~other & (digits >= 1) & (digits <= _DIGITS)
        done &= points == 0 if integer else points <= 1
        value = np.where(m[:, 0] == 45, -value, value)
        if integer:
            return value, done
        negative_zero = (m[:, 0] == 45) & (value == 0)  # "-0": Python gives −0.0
        out = value.astype(np.float64) / 10.0**after
        return np.where(negative_zero, -0.0, out), done


def parse(data: bytes, width: int) -> Table | None:
    """The fields of ``data``, or None unless every non-blank line has ``width`` of them (and
    there is at least one line)."""
    buf = np.frombuffer(data, dtype=np.uint8)
    n = len(buf)
    if not n:
        return None
    space = np.empty(n + 2, dtype=bool)  # white space, with a space before and after the data
    space[0] = space[-1] = True
    np.logical_or(buf == 32, buf - np.uint8(9) < 5, out=space[1:-1])  # " ", \t \n \v \f \r
    edges = np.flatnonzero(space[1:] != space[:-1])  # a field's start, its end, the next's start…
    if not len(edges) or len(edges) % (2 * width):
        return None
    starts, ends = edges[0::2], edges[1::2]
    newlines = np.flatnonzero(buf == 10)
    if _one_row_a_line(buf, width, starts, ends, newlines):
        lines = np.arange(1, len(starts) // width + 1)
    else:
        # fields on each line: those starting before its line end minus those before the last
        before = np.searchsorted(starts, np.append(newlines, n))
        per_line = np.diff(before, prepend=0)
        if np.any((per_line != 0) & (per_line != width)):
            return None
        lines = np.flatnonzero(per_line) + 1
    return Table(buf, width, starts, ends, lines)


def _one_row_a_line(
    buf: np.ndarray, width: int, starts: np.ndarray, ends: np.ndarray, newlines: np.ndarray
) -> bool:
    """Whether the data is the common regular file, whose lines are its rows in turn: no blank
    line, each row's last field followed by exactly one line end and the next row's first
    field, no other line end but one after the last field. The general check (a search of
    every line end among the fields) is then not needed."""
    rows = len(starts) // width
    last, following = ends[width - 1 :: width], starts[width::width]
    extra = len(newlines) - (rows - 1)  # line ends not between two rows: none or one after all
    return (
        extra in (0, 1)
        and (extra == 0 or newlines[-1] >= last[-1])
        and bool(np.all(following - last[:-1] == 1))
        and bool(np.all(buf[last[:-1]] == 10))
    )
