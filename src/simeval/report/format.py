"""One way to write a number, a p-value and a name in each medium simeval prints to.

Numbers and p-values are plain text here; each medium then escapes them with its own function:
:func:`html_text` for pages, :func:`terminal_text` for rich markup (tables, messages),
:func:`plain_text` for a rich ``Text`` and any other stream a terminal shows,
:func:`plot_text` for matplotlib labels, :func:`markdown_text` and :func:`latex_text` for
leaderboards, :func:`sheet_text` for a CSV cell.
"""

from __future__ import annotations

import html
import math
import re
from typing import Any

MISSING = "–"  # an undefined value (a correlation of constant scores), or none at all

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def missing(value: Any) -> bool:
    """Whether ``value`` has no number to show: None or NaN."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def number(value: Any, digits: int = 4) -> str:
    """A table cell's text: floats to ``digits`` decimals, a whole float of 10 or more without
    decimals (a count), ints as they are, None and NaN as ``–``; anything else as ``str``."""
    if missing(value):
        return MISSING
    if isinstance(value, float):
        if value.is_integer() and abs(value) >= 10:
            return f"{value:.0f}"
        return f"{value:.{digits}f}"
    return str(value)


def p_value(p: float | None) -> str:
    """A p-value: four decimals down to 1e-4, then two significant digits (``3.2e-07``), and
    ``< 1e-300`` where a float can no longer tell it from zero; None and NaN as ``–``."""
    if missing(p):
        return MISSING
    assert p is not None
    if p >= 1e-4:
        return f"{p:.4f}"
    return f"{p:.1e}" if p > 1e-300 else "< 1e-300"


def p_is(p: float | None) -> str:
    """``p`` as the tail of a sentence: ``= 0.0312`` or ``< 1e-300``."""
    text = p_value(p)
    return text if text.startswith("<") else f"= {text}"


def html_text(text: Any) -> str:
    """Text for an HTML page, element content or a quoted attribute alike; a control character
    becomes its character reference (``&#27;``): the page reads the same, and a page printed
    to a terminal (``simeval leaderboard -f html``) carries no raw escape sequence."""
    escaped = html.escape(str(text), quote=True)
    return _CONTROL.sub(lambda m: f"&#{ord(m.group())};", escaped)


FORMULA = ("=", "+", "-", "@", "\t", "\r")  # a spreadsheet reads a cell so begun as a formula


def sheet_text(text: str) -> str:
    """Text for a CSV cell a spreadsheet shows as text: one that begins like a formula (``=``,
    ``+``, ``-``, ``@``, tab, carriage return) gets a leading ``'`` (OWASP's advice)."""
    return "'" + text if text.startswith(FORMULA) else text


def plain_text(text: Any) -> str:
    """Text for any stream a terminal may show (a rich ``Text``, CSV, Markdown, LaTeX on
    stdout): control characters (escape sequences, BEL, carriage returns) shown as ``?``, so a
    name cannot move the cursor, retitle the window or hide what precedes it."""
    return _CONTROL.sub("?", str(text))


def terminal_text(text: Any) -> str:
    """Text for rich console markup: :func:`plain_text`, with its markup (``[bold]``) shown
    literally."""
    from rich.markup import escape

    return escape(plain_text(text))


def plot_text(text: Any) -> str:
    """Text for a matplotlib label: ``$`` would start mathtext, so it is escaped; control
    characters, which no font draws, shown as ``?``."""
    return plain_text(text).replace("$", r"\$")


MARKDOWN_SPECIAL = "\\`*_{}[]<>|#!"


def markdown_text(text: Any) -> str:
    """Text that Markdown shows as it is (a table cell is one line): its special characters
    backslash-escaped, line ends as spaces, other control characters as ``?``."""
    text = plain_text(" ".join(str(text).splitlines()))
    return "".join("\\" + c if c in MARKDOWN_SPECIAL else c for c in text)


_LATEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\~{}",
    "^": r"\^{}",
}


def latex_text(text: Any) -> str:
    """Text for a LaTeX tabular cell: every character LaTeX treats specially, escaped, and
    control characters shown as ``?`` (:func:`plain_text`)."""
    return "".join(_LATEX.get(c, c) for c in plain_text(text))
