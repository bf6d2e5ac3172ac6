"""The one HTML table of simeval's pages: the report's tables, ``leaderboard --format html`` and
the server's leaderboards.

A table is sortable by a click on a header (the page's script reads each cell's ``data-sort``,
so numbers sort as numbers and a missing value sorts last).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from simeval.report.format import MISSING, html_text, missing, number


@dataclass(frozen=True)
class Cell:
    """One ``<td>``: its content as HTML (escaped already), the value a click sorts it by
    (None: none, the text is used), and its classes."""

    html: str
    sort: Any = None
    classes: str = ""


def value_cell(value: Any, classes: str = "", mark: str = "", bold: bool = False) -> Cell:
    """A cell for a value: a number right-aligned (:func:`simeval.report.format.number`), sorted
    by its exact value; a missing one as – (sorted last); text escaped. ``mark``: text after
    the number (the constant-scores mark); ``bold``: the column's best."""
    if missing(value):
        return Cell(MISSING, "", f"num {classes}".strip())
    if isinstance(value, float | int) and not isinstance(value, bool):
        text = html_text(number(value) + mark)
        return Cell(f"<strong>{text}</strong>" if bold else text, float(value), f"num {classes}")
    text = html_text(str(value) + mark)
    return Cell(f"<strong>{text}</strong>" if bold else text, None, classes)


def _td(cell: Cell | str) -> str:
    if isinstance(cell, str):
        return f"<td>{cell}</td>"
    attrs = f' class="{html_text(cell.classes.strip())}"' if cell.classes.strip() else ""
    sort = cell.sort
    if sort is not None and not (isinstance(sort, float) and sort != sort):
        text = repr(sort) if isinstance(sort, float) else str(sort)
        attrs += f' data-sort="{html_text(text)}"'
    return f"<td{attrs}>{cell.html}</td>"


def plain_head(column: str, i: int) -> str:
    """A header cell: the column's name."""
    return f"<th>{html_text(column)}</th>"


def html_table(
    columns: Sequence[str],
    rows: Sequence[Sequence[Cell | str]],
    caption: str = "",
    classes: str = "sortable",
    head: Callable[[str, int], str] = plain_head,
    row_classes: Sequence[str] | None = None,
) -> str:
    """A table: ``columns`` (rendered by ``head``), ``rows`` of cells (a str is HTML already),
    an optional caption, and a class per row (``row_classes``, e.g. the signed-in team's)."""
    body = []
    for i, row in enumerate(rows):
        cls = row_classes[i] if row_classes else ""
        tr = f'<tr class="{html_text(cls)}">' if cls else "<tr>"
        body.append(tr + "".join(_td(c) for c in row) + "</tr>")
    cap = f"<caption>{html_text(caption)}</caption>" if caption else ""
    heads = "".join(head(c, i) for i, c in enumerate(columns))
    return (
        f'<table class="{html_text(classes)}">{cap}<thead><tr>{heads}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )
