"""Reading text files line by line with exact line numbers.

Files are decoded as UTF-8 (a byte-order mark is dropped), lines end at ``\\n`` and a trailing
``\\r`` is removed, so CRLF files read like LF files. ``str.splitlines`` is not used because it
also splits at form feeds and Unicode separators, which would shift the line numbers that error
messages quote.

Line-based files are read under caps, so that one huge line or field costs an error, not minutes
and gigabytes: a line holds at most :func:`max_line` bytes (1 MiB unless ``SIMEVAL_MAX_LINE``
says more) and a number field at most ``MAX_NUMBER`` characters.
"""

from __future__ import annotations

import hashlib
import math
import numbers
import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from simeval.errors import InputError

if TYPE_CHECKING:
    import numpy as np

BOM = b"\xef\xbb\xbf"
MAX_LINE = 1 << 20  # bytes a line; SIMEVAL_MAX_LINE raises it for a file that needs more
MAX_LINE_ENV = "SIMEVAL_MAX_LINE"
MAX_NUMBER = 64  # characters of a number field: a float needs 17 significant digits at most


def max_line() -> int:
    """The longest line (in bytes, without its line end) a line-based reader accepts:
    ``SIMEVAL_MAX_LINE`` when set to a positive integer, else ``MAX_LINE``."""
    text = os.environ.get(MAX_LINE_ENV, "").strip()
    if not text:
        return MAX_LINE
    if not text.isdigit() or int(text) < 1:
        raise InputError(
            None, None, f"{MAX_LINE_ENV}={text!r}: expected a positive number of bytes"
        )
    return int(text)


def line_too_long(path: str | Path, line: int, cap: int) -> InputError:
    """The error for a line longer than ``cap`` bytes (saying how to raise the cap)."""
    return InputError(
        path,
        line,
        f"line longer than {cap:,} bytes: refused (if the file legitimately needs longer "
        f"lines, set {MAX_LINE_ENV} to a larger number of bytes)",
    )


def refuse_long_lines(data: bytes, path: str | Path, first_line: int = 1) -> None:
    """Raise :func:`line_too_long` for the first line of ``data`` longer than :func:`max_line`
    (for readers that take a file, or a block of its whole lines whose first is line
    ``first_line``, at once)."""
    cap = max_line()
    if len(data) <= cap:
        return
    import numpy as np

    ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
    bounds = np.concatenate(([-1], ends, [len(data)]))
    lengths = np.diff(bounds) - 1  # without the \n (a \r before it counts: one byte of slack)
    long = np.flatnonzero(lengths > cap + 1)
    if len(long):
        raise line_too_long(path, first_line + int(long[0]), cap)


def refuse_long_number(text: str | bytes, path: str | Path, line: int | None, what: str) -> None:
    """Refuse a number field longer than ``MAX_NUMBER`` characters (a 10 MB field would make
    the converters work for minutes); the message quotes its start only."""
    if len(text) > MAX_NUMBER:
        if isinstance(text, bytes):
            text = text.decode("utf-8", errors="replace")
        raise InputError(
            path,
            line,
            f"{what}: expected a number of at most {MAX_NUMBER} characters, got {shown(text)}",
        )


def open_binary(path: Path) -> BinaryIO:
    """``path`` opened for reading bytes; a missing file, a folder or an unreadable path is an
    :class:`InputError` naming it."""
    try:
        return open(path, "rb")
    except FileNotFoundError:
        raise InputError(path, None, "file not found") from None
    except IsADirectoryError:
        raise InputError(path, None, "is a directory, expected a file") from None
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror or exc}") from None


def read_bytes(path: str | Path) -> bytes:
    """The bytes of ``path`` without a byte-order mark, checked to be valid UTF-8 (else
    :class:`InputError` naming the line)."""
    p = Path(path)
    with open_binary(p) as f:
        data = f.read()
    if data.startswith(BOM):
        data = data[len(BOM) :]
    refuse_bad_utf8(data, p)
    return data


def refuse_bad_utf8(data: bytes, path: str | Path, first_line: int = 1, offset: int = 0) -> None:
    """Raise :class:`InputError` at the first byte of ``data`` that is not UTF-8; ``data`` is a
    file's bytes, or a block of its whole lines starting at line ``first_line`` and byte
    ``offset``."""
    if data.isascii():
        return
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = first_line + data.count(b"\n", 0, exc.start)
        bad = data[exc.start : exc.start + 4]
        raise InputError(
            path,
            line,
            f"not valid UTF-8 (byte {bad[:1].hex()} at offset {offset + exc.start}); "
            "convert the file to UTF-8, e.g. iconv -f cp1251 -t utf-8",
        ) from None


def read_text(path: str | Path) -> str:
    """Return the decoded content of ``path``; undecodable bytes raise :class:`InputError`."""
    return read_bytes(path).decode("utf-8")


def refuse_nul(data: bytes | str, path: str | Path, first_line: int = 1) -> None:
    """Raise :class:`InputError` at the first NUL: it means a binary or UTF-16 file
    (``first_line``: the number of the first line of ``data``, a block of a file)."""
    nul = b"\x00" if isinstance(data, bytes) else "\x00"
    newline = b"\n" if isinstance(data, bytes) else "\n"
    if nul in data:
        line = first_line + data.count(newline, 0, data.index(nul))
        raise InputError(
            path, line, "contains NUL bytes: binary or UTF-16 file, expected UTF-8 text"
        )


def iter_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, text)`` for every line, without its line end, reading the file
    as a stream (memory does not grow with the file): :func:`read_lines` of ``path``."""
    p = Path(path)
    with open_binary(p) as f:
        yield from read_lines(f, p)


def read_lines(f: BinaryIO, path: str | Path) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, text)`` for every line of an open binary stream (a file, a member
    of an archive), named ``path`` in errors.

    A final line end does not create an extra empty line; every other empty line is yielded.
    Invalid UTF-8 and NUL characters (a binary or UTF-16 file) are errors naming the line, and so
    is a line longer than :func:`max_line` bytes: reading stops at the cap, so memory stays
    bounded by it whatever the file holds.
    """
    cap = max_line()
    number = 0
    # at most cap + BOM + "\r\n" bytes a call: a longer line is never held whole
    while raw := f.readline(cap + len(BOM) + 2):
        number += 1
        if number == 1 and raw.startswith(BOM):
            raw = raw[len(BOM) :]
        if raw.endswith(b"\n"):
            raw = raw[:-1]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if len(raw) > cap:
            raise line_too_long(path, number, cap)
        if b"\x00" in raw:
            raise InputError(
                path, number, "contains NUL bytes: binary or UTF-16 file, expected UTF-8 text"
            )
        try:
            yield number, raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(
                path,
                number,
                f"not valid UTF-8 (byte {raw[exc.start : exc.start + 1].hex()}); convert "
                "the file to UTF-8, e.g. iconv -f cp1251 -t utf-8",
            ) from None


def sha256_file(path: str | Path, chunk: int = 1 << 20) -> str:
    """Hex sha256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


INTEGER = re.compile(r"[+-]?[0-9]+")
NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
DECIMAL_COMMA = re.compile(r"[+-]?[0-9]+,[0-9]+")
SHOWN = 100  # characters of offending text an error message quotes at most


def shown(text: str, limit: int = SHOWN) -> str:
    """``text`` quoted for a message, cut to ``limit`` characters (a long field is not echoed)."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"… ({len(text):,} chars)"


def parse_float(text: str, path: str | Path | None, line: int | None, what: str) -> float:
    """The one number parser of every reader: an ASCII decimal (``-1``, ``.5``, ``2.``,
    ``3e-4``) that is finite, else :class:`InputError` saying what was expected. Refused: digit
    separators (``1_0``), non-ASCII digits, hexadecimal, ``nan``, ``inf``, values beyond
    the float range and fields longer than ``MAX_NUMBER`` characters."""
    text = text.strip(" \t\r\n")
    refuse_long_number(text, path, line, what)
    if not NUMBER.fullmatch(text):
        hint = " (a decimal comma? write 0.5, not 0,5)" if DECIMAL_COMMA.fullmatch(text) else ""
        raise InputError(path, line, f"{what}: expected a decimal number, got {shown(text)}{hint}")
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise InputError(path, line, f"{what}: {shown(text)} is beyond the float range")
    return value


def parse_int(text: str, path: str | Path | None, line: int | None, what: str) -> int:
    """An integer as :func:`parse_float` reads a number: ASCII digits with an optional sign
    (no ``_``, no other script's digits, no ``1e3``), below 2^63 in magnitude (a 64-bit
    column), else :class:`InputError`."""
    text = text.strip(" \t\r\n")
    refuse_long_number(text, path, line, what)
    if not INTEGER.fullmatch(text) or abs(int(text)) >= 2**63:
        raise InputError(path, line, f"{what}: expected an integer below 2^63, got {shown(text)}")
    return int(text)


def as_number(value: object, what: str, *, missing: bool = False) -> float:
    """A number given from Python (a prediction, a gold score in memory) as a float, by the
    readers' rule: an int or float (numpy's too) that is finite, or a string that
    :func:`parse_float` reads. With ``missing``, ``None`` and NaN stand for "no value" and
    give NaN (predictions: an unscored pair). Refused, with :class:`InputError` naming
    ``what``: ``bool`` (a flag, not a score), complex, bytes, containers, ±inf and ints
    beyond the float range."""
    if isinstance(value, str):
        return parse_float(value, None, None, what)
    if missing and (value is None or type(value).__name__ == "NAType"):  # pandas' NA too
        return math.nan
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise InputError(None, None, f"{what}: expected a number, got {shown_value(value)}")
    try:
        number = float(value)
    except OverflowError:
        raise InputError(
            None, None, f"{what}: {shown_value(value)} is beyond the float range"
        ) from None
    if math.isinf(number) or (math.isnan(number) and not missing):
        raise InputError(None, None, f"{what}: expected a finite number, got {shown_value(value)}")
    return number


def as_numbers(values: Sequence[object], what: str, *, missing: bool = False) -> np.ndarray:
    """:func:`as_number` of each of ``values`` (a flat sequence, a 1-d array), as float64;
    an error names the value's position (``what 5: …``). A numeric numpy array is checked
    at once, without a Python loop."""
    import numpy as np

    if isinstance(values, np.ndarray) and values.ndim == 1 and values.dtype.kind in "fiu":
        array = values.astype(np.float64)
        bad = np.isinf(array) | (np.zeros(len(array), bool) if missing else np.isnan(array))
        if not bad.any():
            return array
        i = int(np.flatnonzero(bad)[0])
        raise InputError(None, None, f"{what} {i}: expected a finite number, got {array[i]!r}")
    return np.array(
        [as_number(v, f"{what} {i}", missing=missing) for i, v in enumerate(values)],
        dtype=np.float64,
    )


def shown_value(value: object) -> str:
    """``repr(value)`` cut as :func:`shown` cuts (not quoted again)."""
    text = repr(value)
    return text if len(text) <= SHOWN else text[:SHOWN] + f"… ({len(text):,} chars)"
