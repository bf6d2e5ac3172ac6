"""One way to write a number, a p-value and a name in each medium simeval prints to.

Numbers and p-values are plain text here; each medium then escapes them with its own function:
:func:`html_text` for pages, :func:`terminal_text` for rich tables and messages,
:func:`plot_text` for matplotlib labels, :func:`markdown_text` and :func:`latex_text` for
leaderboards.
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
    """Text for an HTML page, element content or a quoted attribute alike."""
    return html.escape(str(text), quote=True)


def terminal_text(text: Any) -> str:
    """Text for a rich console: its markup (``[bold]``) shown literally, control characters
    (escape sequences, carriage returns) shown as ``?`` so a name cannot move the cursor."""
    from rich.markup import escape

    return escape(_CONTROL.sub("?", str(text)))


def plot_text(text: Any) -> str:
    """Text for a matplotlib label: ``$`` would start mathtext, so it is escaped."""
    return str(text).replace("$", r"\$")


MARKDOWN_SPECIAL = "\\`*_{}[]<>|#!"


def markdown_text(text: Any) -> str:
    """Text that Markdown shows as it is (a table cell is one line): its special characters
    backslash-escaped, line ends as spaces."""
    text = " ".join(str(text).splitlines())
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
    """Text for a LaTeX tabular cell: every character LaTeX treats specially, escaped."""
    return "".join(_LATEX.get(c, c) for c in str(text))
