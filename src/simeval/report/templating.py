"""The Jinja2 environments simeval's HTML is rendered with: the report's (its templates in
``simeval/report/templates``) and the server's pages (``simeval/serve/templates``).

Autoescaping is on, so a value a template shows is escaped unless it is :class:`Markup`: the
output of another template rendered here (:func:`render`, :func:`macro`), or HTML a module
makes safe by construction and says why (the Markdown of :mod:`simeval.serve.views.markdown`,
the pages' own style and script). Values are escaped as :func:`simeval.report.format.html_text`
does (control characters as character references too), and no template is evaluated from a
value: ``{{7*7}}`` in a team's text is shown as typed.

A template's source lines are joined before it is compiled (a newline and the indentation
after it vanish), so a template is written one element a line and the page is the compact
HTML it was before templates: a space that must stay between two elements is written on the
line (``</label> <button>``).
"""

from __future__ import annotations

import re
from datetime import datetime
from functools import cache
from typing import Any

import jinja2
from jinja2.ext import Extension
from markupsafe import Markup

from simeval.report.format import html_text, number


class JoinedLines(Extension):
    """A template's lines joined: the newline and the next line's indentation removed."""

    def preprocess(self, source: str, name: str | None, filename: str | None = None) -> str:
        return re.sub(r"\n[ \t]*", "", source)


def escaped(value: Any) -> Any:
    """Every ``{{ value }}``: Markup as it is, anything else escaped by :func:`html_text`."""
    return value if hasattr(value, "__html__") else Markup(html_text(value))


def minute(moment: datetime) -> str:
    """``2025-02-01 00:00``: a time to the minute (its zone said by the page)."""
    return f"{moment:%Y-%m-%d %H:%M}"


def thousands(value: int) -> str:
    """``1,000,000``."""
    return f"{value:,}"


FILTERS = {"number": number, "minute": minute, "thousands": thousands}


@cache
def environment(package: str) -> jinja2.Environment:
    """The environment of ``package``'s templates (its ``templates`` folder)."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader(package, "templates"),
        autoescape=True,
        finalize=escaped,
        undefined=jinja2.StrictUndefined,
        extensions=[JoinedLines],
        auto_reload=False,  # the templates ship in the package: none changes while it runs
    )
    env.filters.update(FILTERS)
    return env


def render(package: str, name: str, **values: Any) -> Markup:
    """Template ``name`` of ``package`` rendered with ``values`` (each escaped where shown
    unless it is Markup): HTML, marked so another template shows it as it is."""
    return Markup(environment(package).get_template(name).render(**values))


def macro(package: str, name: str, macro_name: str, *args: Any, **kwargs: Any) -> Markup:
    """Macro ``macro_name`` of template ``name`` called with the arguments (escaped where
    shown, as a template's values are)."""
    found = getattr(environment(package).get_template(name).module, macro_name)
    return Markup(found(*args, **kwargs))
