"""Every option a command and its Python function share, declared once (DESIGN, "the funnel").

An :class:`Option` says what one option takes (its type, range or choices, whether None means
"the default") and its help. The Typer commands build their options from it
(:func:`simeval.cli.common.typer_option`: Typer's ``min``/``max``, the choices, the help) and
the API functions check their arguments through it (:func:`checked`), so the command line and
Python take the same values and refuse the others, Python with an
:class:`~simeval.errors.OptionError` naming the option, the value and what is allowed.
:func:`checked` also refuses a keyword the function does not have, with the closest names.

Imported when the command line starts: nothing heavy here (no numpy). The choices repeat
their owners' tables (``simeval.kinds.pairs.MISSING_POLICIES``, ``simeval.report.leaderboard``'s
``RENDERERS`` (and ``frame``) and ``COMBINE``), which import numpy;
tests/api/test_options_properties.py checks that they agree.
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
import reprlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from simeval.errors import InputError, OptionError, did_you_mean

F = TypeVar("F", bound=Callable[..., Any])
INT64 = 2**63 - 1  # an int option's values reach numpy: beyond int64 it overflows


@dataclass(frozen=True)
class Option:
    """One option: ``name`` as Python spells it; ``kind`` int, float, str (with ``choices``)
    or bool; numbers within ``low``..``high`` (either may be None), both ends excluded when
    ``strict``; floats always finite; ``none``: None is taken (the task's default applies)."""

    name: str
    kind: type
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    strict: bool = False
    choices: tuple[str, ...] = ()
    none: bool = False

    def allowed(self) -> str:
        """What the option takes, in words (the refusals and docs/errors.md say it so)."""
        if self.kind is bool:
            what = "True or False"
        elif self.choices:
            what = f"one of {', '.join(self.choices)}"
        else:
            what = ("an integer" if self.kind is int else "a finite number") + self._range()
        return f"{what}, or None" if self.none else what

    def _range(self) -> str:
        low, high = (_shown_number(x) for x in (self.low, self.high))
        if self.low is not None and self.high is not None:
            if self.strict:
                return f" between {low} and {high}, both excluded"
            return f" from {low} to {high}"
        if self.low is not None:
            bits = " (64-bit)" if self.kind is int else ""
            return (f" above {low}" if self.strict else f" of {low} or more") + bits
        if self.high is not None:
            return f" below {high}" if self.strict else f" of {high} or less"
        return ""

    def check(self, value: Any) -> Any:
        """``value`` as the option takes it (an int, a float, a plain str, a bool or None), or
        an :class:`~simeval.errors.OptionError` naming the option, the value and what is
        allowed (for a near-miss of a choice, the choice meant)."""
        if value is None and self.none:
            return None
        found = self._typed(value)
        if found is None or not self._within(found):
            hint = ""
            if self.choices and isinstance(value, str):
                hint = did_you_mean(value, self.choices)
            raise OptionError(
                self.name, f"{self.name} must be {self.allowed()}, not {_shown(value)}{hint}"
            )
        return found

    def _typed(self, value: Any) -> Any:
        """``value`` converted to the option's type when it is of that type (an int is not a
        bool, a bool not an int, a float may be given as an int), else None."""
        if isinstance(value, bool):
            return value if self.kind is bool else None
        if self.kind is int and isinstance(value, numbers.Integral):
            return int(value)
        if self.kind is float and isinstance(value, numbers.Real):
            try:
                number = float(value)
            except OverflowError:  # an int beyond the float range
                return None
            return number if math.isfinite(number) else None
        if self.kind is str and isinstance(value, str):
            return str(value)  # a StrEnum member (the command line's) as its plain value
        return None

    def _within(self, value: Any) -> bool:
        if self.choices:
            return value in self.choices
        if self.kind not in (int, float):
            return True
        above = self.low is None or (value > self.low if self.strict else value >= self.low)
        below = self.high is None or (value < self.high if self.strict else value <= self.high)
        return above and below and abs(value) <= INT64


def _shown_number(x: float | None) -> str:
    return "" if x is None else f"{x:,}" if isinstance(x, int) else f"{x:g}"


def _shown(value: Any) -> str:
    """``value`` as Python writes it, cut when long (a refusal never floods the terminal)."""
    return reprlib.repr(value)


# -- the declarations -------------------------------------------------------------------------

MAX_REPLICATES = 1_000_000  # beyond it, a run of hours and gigabytes: a typo, not a choice

REPLICATES = Option(
    "replicates",
    int,
    1000,
    "Bootstrap replicates (and AR rounds).",
    low=50,  # fewer: interval ends read off a handful of replicates
    high=MAX_REPLICATES,
)
SEED_MAX = 2**32 - 1  # scikit-learn's and numpy's legacy seeding take 0 to 2^32 - 1
SEED = Option(  # numpy's generators take no negative seed
    "seed",
    int,
    0,
    "Seed of the resampling: the same seed, the same numbers.",
    low=0,
    high=SEED_MAX,
)
LEVEL = Option("level", float, 0.95, "Confidence level of the intervals.", low=0.5, high=0.999)
ALPHA = Option(
    "alpha", float, 0.05, "Significance level of the tests (0 < α < 1).", low=0, high=1, strict=True
)
REPORT_TOP = Option("top", int, 5, "Systems in each top-N table.", low=1)
BOARD_TOP = Option("top", int, 0, "Also print the top N of every benchmark (0: none).", low=0)
JOBS = Option(
    "jobs",
    int,
    0,
    "Processes building the benchmarks' sections at once: 0 = one per CPU, 1 = this process "
    "only (always, with --scheduler: the bootstraps then run on Dask). The page is the same for "
    "any number.",
    low=0,
)
FORMAT = Option(
    "fmt",
    str,
    "markdown",
    "markdown, latex, csv or html (the tables as printed), or frame: one row per benchmark and "
    "system, its rank, score and, with --tiers, rank interval ends, upper bound, tier and "
    "Holm-adjusted p as columns (Python: a pandas DataFrame; the command line: its CSV).",
    choices=("markdown", "latex", "csv", "html", "frame"),
)
COMBINE = Option(
    "combine",
    str,
    "sum",
    "How the overall table combines a system's benchmarks: the sum of main scores (RUSSE's), "
    "their mean, or the mean of its ranks (lower first), as a campaign's phase declares it.",
    choices=("sum", "mean", "mean-rank"),
)
KEEP_DOMINATED = Option(
    "keep_dominated", bool, False, "Keep systems another beats on every benchmark."
)
TIERS = Option(
    "tiers",
    bool,
    False,
    "Every benchmark's table (the top N, or every system) with each system's rank interval "
    "(paired bootstrap), rank upper bound and significance tier (the main metric's paired test, "
    "Holm). Takes seconds per benchmark.",
)
DEFAULT_MISSING = "zero"  # what evaluate and score give an unscored pair when not told
MISSING = Option(
    "missing",
    str,
    None,
    "What a gold pair without a score gets: zero (RUSSE's official rule, what published "
    "figures use; the default of evaluate and score alike, said in a warning), skip (evaluate "
    "covered pairs only) or error (refuse, naming the first such pair).",
    choices=("zero", "skip", "error"),
    none=True,
)
COMPLETE = Option(
    "complete",
    bool,
    False,
    "Linking: average over every judged query, missing ones scoring 0 (trec_eval -c).",
)
MAX_RETRIEVED = Option(
    "max_retrieved",
    int,
    None,
    "Linking: count only the first N documents of each query (trec_eval -M; default: all, as "
    "trec_eval).",
    low=1,
    none=True,
)

DECLARED = (
    REPLICATES, SEED, LEVEL, ALPHA, REPORT_TOP, BOARD_TOP, JOBS, FORMAT, COMBINE, KEEP_DOMINATED,
    TIERS, MISSING, COMPLETE, MAX_RETRIEVED,
)  # fmt: skip
MEASURE_OBJECT = ("name", "fingerprint", "batch")  # a Python measure's (simeval.measures.python)


# -- the API functions' edge ------------------------------------------------------------------


def checked(*declared: Option, passes: Sequence[str] = ()) -> Callable[[F], F]:
    """Decorate an API function so that each of its ``declared`` options goes through its
    declaration (:meth:`Option.check`, the value replaced by the normalised one) and a keyword
    it does not have is refused with the closest names. Options the signature does not name
    travel in its ``**kwargs``, as do the names in ``passes`` (handed on unchecked); no other
    keyword gets into ``**kwargs``. Binding errors (a missing argument, one too many) are
    simeval's error too."""

    def decorate(fn: F) -> F:
        signature = inspect.signature(fn)
        params = signature.parameters
        rest = next((n for n, p in params.items() if p.kind is p.VAR_KEYWORD), None)
        by_keyword = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        named = [n for n, p in params.items() if p.kind in by_keyword]
        options = {o.name: o for o in declared}
        riding = [n for n in [*options, *passes] if n not in params]
        if riding and rest is None:
            raise TypeError(f"{fn.__name__} has no **kwargs for {riding}")
        known = (*named, *riding)

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for key in kwargs:
                if key not in known:
                    raise OptionError(
                        key,
                        f"{fn.__name__}() takes no keyword argument {key!r}"
                        f"{did_you_mean(key, known)} (it takes {', '.join(known)})",
                    )
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError as exc:
                raise InputError(None, None, f"{fn.__name__}(): {exc}") from None
            given = bound.arguments
            for name, option in options.items():
                holder = given.get(rest, {}) if name in riding else given
                if name in holder:
                    holder[name] = option.check(holder[name])
            return fn(*bound.args, **bound.kwargs)

        wrapper.options = tuple(declared)  # type: ignore[attr-defined]
        wrapper.keywords = known  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate
