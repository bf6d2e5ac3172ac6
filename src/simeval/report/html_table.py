"""The one HTML table of simeval's pages: the report's tables, ``leaderboard --format html`` and
the server's leaderboards.

Rendered from ``templates/table.html`` (autoescaped: a cell's text is escaped unless it is
Markup a template rendered). A table is sortable by a click on a header (the page's script
reads each cell's ``data-sort``, so numbers sort as numbers and a missing value sorts last).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from simeval.report.format import MISSING, missing, number
from simeval.report.templating import macro, render


@dataclass(frozen=True)
class Cell:
    """One ``<td>``: its content (text, escaped where it is shown, or :class:`Markup` that a
    template rendered), the value a click sorts it by (None: none, the text is used), and its
    classes."""

    html: str
    sort: Any = None
    classes: str = ""


def value_cell(value: Any, classes: str = "", mark: str = "", bold: bool = False) -> Cell:
    """A cell for a value: a number right-aligned (:func:`simeval.report.format.number`), sorted
    by its exact value; a missing one as – (sorted last); text as text. ``mark``: text after
    the number (the constant-scores mark); ``bold``: the column's best."""
    if missing(value):
        return Cell(MISSING, "", f"num {classes}".strip())
    if isinstance(value, float | int) and not isinstance(value, bool):
        text = number(value) + mark
        return Cell(strong(text) if bold else text, float(value), f"num {classes}")
    text = str(value) + mark
    return Cell(strong(text) if bold else text, None, classes)


def strong(text: str) -> Markup:
    """``text`` in bold (a column's best)."""
    return macro("simeval.report", "cells.html", "strong", text)


def _cell(cell: Cell | str) -> tuple[str, str, str | None]:
    """A cell as the template shows it: content, classes, sort key as text (None: none)."""
    if not isinstance(cell, Cell):
        return cell, "", None
    sort = cell.sort
    if sort is None or (isinstance(sort, float) and sort != sort):
        return cell.html, cell.classes.strip(), None
    return cell.html, cell.classes.strip(), repr(sort) if isinstance(sort, float) else str(sort)


HEADS = ("plain", "board", "buttons")  # a header's cells: the name; sortable buttons (below)


def html_table(
    columns: Sequence[str],
    rows: Sequence[Sequence[Cell | str]],
    caption: str = "",
    classes: str = "sortable",
    head: str = "plain",
    row_classes: Sequence[str] | None = None,
) -> Markup:
    """A table: ``columns`` headed as ``head`` says (``plain``: the name; ``buttons``: a
    button each; ``board``: a leaderboard's, rank and system sorted ascending first, scores
    descending first), ``rows`` of cells (text, or Markup a template rendered), an optional
    caption, and a class per row (``row_classes``, e.g. the signed-in team's)."""
    assert head in HEADS, head
    shown = [
        {"classes": row_classes[i] if row_classes else "", "cells": [_cell(c) for c in row]}
        for i, row in enumerate(rows)
    ]
    return render("simeval.report", "table.html", columns=columns, rows=shown,
                  caption=caption, classes=classes, head=head)  # fmt: skip
