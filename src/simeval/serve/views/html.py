"""The server's templates (``simeval/serve/templates``), rendered with autoescaping
(:mod:`simeval.report.templating`): a value is escaped unless it is Markup, i.e. another
template's output or the Markdown of :mod:`.markdown`. The helpers the templates call
(the time left, a phase's limits and policy words) are their globals."""

from __future__ import annotations

from functools import cache
from typing import Any

import jinja2
from markupsafe import Markup

from simeval.report import templating
from simeval.report.leaderboard import ABSENT
from simeval.report.policy import SHORT
from simeval.serve.db.models import utc
from simeval.serve.service.security import CSRF_FIELD
from simeval.serve.service.split_rule import is_split
from simeval.serve.views.phrases import per_day_text, split_statement, until
from simeval.serve.views.submissions import visible

PACKAGE = "simeval.serve"


@cache
def _environment() -> jinja2.Environment:
    env = templating.environment(PACKAGE)
    env.globals.update(
        CSRF_FIELD=CSRF_FIELD,
        ABSENT=ABSENT,
        SHORT=SHORT,
        utc=utc,
        until=until,
        per_day_text=per_day_text,
        split_statement=split_statement,
        is_split=is_split,
        visible=visible,
    )
    return env


def render(name: str, **values: Any) -> Markup:
    """Template ``name`` rendered with ``values`` (escaped where shown unless Markup)."""
    _environment()
    return templating.render(PACKAGE, name, **values)


def macro(name: str, macro_name: str, *args: Any) -> Markup:
    """Macro ``macro_name`` of template ``name`` called with ``args``."""
    _environment()
    return templating.macro(PACKAGE, name, macro_name, *args)
