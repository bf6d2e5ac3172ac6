"""The builders' CSV and TSV files, read and written with the csv module only: a comma, a tab,
a quote or a line break inside a word is quoted on the way out and read back whole, never taken
for a separator. Written UTF-8 with LF line ends; a field is quoted only when it must be, so a
file without such characters is the plain ``a,b,c`` it always was."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from simeval.errors import InputError


def write_table(
    path: str | Path, header: Sequence[str], rows: Iterable[Sequence[Any]], delimiter: str = ","
) -> None:
    """``header`` then ``rows`` to ``path`` (``delimiter`` ``","`` or ``"\\t"``)."""
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, delimiter=delimiter, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def read_table(path: str | Path, delimiter: str = ",") -> Iterator[tuple[int, list[str]]]:
    """``(line, cells)`` for every record of ``path`` (``line``: where the record starts; a
    quoted field may span lines), blank lines skipped. A file that is not UTF-8 text, holds NUL
    characters or is malformed CSV is an :class:`InputError` naming the line."""
    with open(path, encoding="utf-8-sig", newline="") as f:
        reader = csv.reader(f, delimiter=delimiter, strict=True)
        start = 1
        while True:
            try:
                cells = next(reader)
            except StopIteration:
                return
            except UnicodeDecodeError:
                raise InputError(
                    path, reader.line_num + 1, "not UTF-8 text, expected a UTF-8 CSV file"
                ) from None
            except csv.Error as exc:
                raise InputError(path, reader.line_num, f"malformed CSV: {exc}") from None
            if any("\x00" in c for c in cells):
                raise InputError(
                    path, start, "contains NUL characters: binary or UTF-16 file, expected UTF-8"
                )
            if cells:
                yield start, cells
            start = reader.line_num + 1
