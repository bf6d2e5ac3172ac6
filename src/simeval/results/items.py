"""Per-item rows of a result on disk: gzipped tab-separated text with a header.

Columns are described by each kind (:mod:`simeval.kinds`); the columns all kinds share that
are numbers (``NUMERIC``) are read back as floats (empty cells as NaN), every other column as
text, which a kind reads as numbers where it declares them (:func:`as_floats`).
"""

from __future__ import annotations

import csv
import gzip
import io
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from simeval.errors import InputError

Items = dict[str, np.ndarray]
# the columns every kind's rows may carry that are numbers; a kind's own numeric columns (a
# linking query's success_1, an analogy answer's right) are read as text here and as numbers
# by the kind (:class:`simeval.kinds.rows.ItemMetrics`, ``TaskKind.numeric``)
NUMERIC = ("gold", "score", "confidence", "covered", "counted", "item")


def write_items(path: str | Path, items: Mapping[str, np.ndarray], level: int = 6) -> None:
    """Write items as gzipped tab-separated text with a header (floats in full precision);
    ``level`` is gzip's compression level (the same text at any level)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    columns = list(items)
    text = io.StringIO()
    writer = csv.writer(text, delimiter="\t", lineterminator="\n")
    writer.writerow(columns)
    cells = [_cells(items[c]) for c in columns]
    writer.writerows(zip(*cells, strict=True))
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=level) as f:
        f.write(text.getvalue())


def _cells(values: np.ndarray) -> list[str]:
    # tolist() gives Python floats, ints and strings at once (per-element numpy scalars cost
    # 2-5x more); v != v is the NaN test
    if values.dtype.kind == "f":
        return ["" if v != v else repr(v) for v in values.tolist()]
    if values.dtype.kind in "biu":
        return [str(int(v)) for v in values.tolist()]
    return [str(v) for v in values.tolist()]


def as_floats(values: np.ndarray) -> np.ndarray:
    """A column as floats: numbers as they are, text as :func:`write_items` wrote numbers
    (an empty cell is NaN)."""
    values = np.asarray(values)
    if values.dtype.kind in "US":
        values = np.where(values == "", "nan", values)
    return values.astype(float)


def read_items(path: str | Path) -> Items:
    """Read an items file written by :func:`write_items`; numeric columns become floats."""
    path = Path(path)
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            rows = list(csv.reader(f, delimiter="\t"))
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise InputError(path, None, f"cannot read the items file: {exc}") from None
    if not rows:
        raise InputError(path, None, "empty items file")
    header, body = rows[0], rows[1:]
    for number, row in enumerate(body, start=2):
        if len(row) != len(header):
            raise InputError(path, number, f"{len(row)} fields, expected {len(header)}")
    out: Items = {}
    for i, column in enumerate(header):
        cells = [r[i] for r in body]
        if column in NUMERIC:
            out[column] = np.array([float(c) if c else np.nan for c in cells])
        else:
            out[column] = np.array(cells, dtype=str)
    return out
