"""Properties of the option declarations (issue 44, "the funnel"): whatever Python value an
option is given, it comes back in its type and range, or is refused as simeval's own error
naming the option, never a KeyError, TypeError or ValueError from inside; every public
function refuses a keyword it does not have, naming the ones meant; and the command line's
options are built from the same declarations (ranges, choices) as the functions check."""

from __future__ import annotations

import inspect
import math
import string
from typing import Any

import pytest
import typer
from hypothesis import given
from hypothesis import strategies as st

import simeval
from simeval.api import options
from simeval.api.options import DECLARED, Option
from simeval.errors import OptionError

# the ranges the command line documents (docs/reference/cli.md, docs/errors.md), written here
# by hand: (low, high, both ends excluded) or the choices
EXPECTED = {
    "replicates": (50, 1_000_000, False),
    "seed": (0, 2**32 - 1, False),  # numpy's and scikit-learn's legacy seeding
    "level": (0.5, 0.999, False),
    "alpha": (0, 1, True),
    "jobs": (0, None, False),
    "max_retrieved": (1, None, False),
    "fmt": ("markdown", "latex", "csv", "html", "frame"),
    "combine": ("sum", "mean", "mean-rank"),
    "missing": ("zero", "skip", "error"),
}

values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.integers().map(lambda n: n * 10**400),  # beyond the float range
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, 1, 2, 49, 50, 999_999, 1_000_000, 1_000_001, 0.5, 0.999, 0.05, 1.0]),
    st.text(max_size=12),
    st.sampled_from(["markdown", "sum", "mean-rank", "zero", "skip", "no", "True", "5"]),
    st.lists(st.integers(), max_size=2),
)


def within(option: Option, value: Any) -> bool:
    """Whether ``value`` is one ``option`` takes, by the rules the docs state (independent of
    :meth:`Option.check`)."""
    if value is None:
        return option.none
    if option.kind is bool:
        return type(value) is bool
    if option.choices:
        return isinstance(value, str) and value in option.choices
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if option.kind is int and not isinstance(value, int):
        return False
    if isinstance(value, float) and not math.isfinite(value):
        return False
    if isinstance(value, int) and abs(value) >= 2**63:  # numpy's int64 (a float: 2**1024)
        return False
    low, high = option.low, option.high
    if option.strict:
        return (low is None or value > low) and (high is None or value < high)
    return (low is None or value >= low) and (high is None or value <= high)


@pytest.mark.parametrize("option", DECLARED, ids=lambda o: f"{o.name}-{o.default}")
@given(value=values)
def test_a_value_is_taken_in_range_or_refused_naming_the_option(option: Option, value) -> None:
    try:
        found = option.check(value)
    except OptionError as exc:
        assert exc.option == option.name
        assert str(exc).startswith(f"{option.name} must be ")
        assert not within(option, value), value
        return
    assert within(option, value), value
    assert found == value or (math.isnan(found) and math.isnan(value))
    assert found is None or type(found) is option.kind


@pytest.mark.parametrize("option", DECLARED, ids=lambda o: f"{o.name}-{o.default}")
def test_the_declared_range_is_the_documented_one(option: Option) -> None:
    expected = EXPECTED.get(option.name)
    if option.kind is bool or expected is None:
        return
    if option.choices:
        assert option.choices == expected
    else:
        assert (option.low, option.high, option.strict) == expected
    assert option.check(option.default) == option.default  # a default is taken


def test_the_choices_are_their_owners() -> None:
    from simeval.kinds.pairs import MISSING_POLICIES
    from simeval.report.leaderboard import COMBINE, RENDERERS

    assert options.MISSING.choices == MISSING_POLICIES
    assert options.FORMAT.choices == (*RENDERERS, "frame")  # frame: the board as data
    assert options.COMBINE.choices == tuple(COMBINE)


def public(name: str) -> Any:
    """``simeval.NAME`` (through :mod:`simeval.api`: once the subpackage ``simeval.train`` is
    imported, ``simeval.train`` is that module)."""
    return getattr(simeval.api, name)


PUBLIC = [
    name
    for name in simeval.__all__
    if inspect.isfunction(public(name))  # not the classes Benchmark, TrainSettings
]


def keywords(name: str) -> tuple[str, ...]:
    return public(name).keywords


@pytest.mark.parametrize("name", PUBLIC)
@given(key=st.text(alphabet=string.ascii_lowercase + "_", min_size=1, max_size=20))
def test_a_public_function_refuses_an_unknown_keyword(name: str, key: str) -> None:
    known = keywords(name)
    if key in known:
        return
    with pytest.raises(OptionError, match=rf"^{name}\(\) takes no keyword argument {key!r}"):
        public(name)(**{key: 1})


@pytest.mark.parametrize("name", PUBLIC)
def test_a_near_miss_of_a_keyword_says_the_name_meant(name: str) -> None:
    for meant in keywords(name):
        if len(meant) < 4:
            continue
        near = meant[:-1] + ("x" if meant[-1] != "x" else "y")
        with pytest.raises(OptionError, match=rf"did you mean [^?]*\b{meant}\b"):
            public(name)(**{near: 1})


def test_every_keyword_of_a_public_function_is_a_parameter_or_declared() -> None:
    """Nothing reaches a ``**kwargs`` unannounced: each keyword a function takes is in its
    signature or in its declared options and passed names."""
    for name in PUBLIC:
        fn = public(name)
        params = inspect.signature(fn).parameters
        for key in fn.keywords:
            assert (
                key in params
                or any(o.name == key for o in fn.options)
                or key in (*options.MEASURE_OBJECT, "kind", "gold_column", "duplicates")
            ), (name, key)


def _cli_params() -> list[tuple[str, Any]]:
    from simeval.cli import app

    found = []

    def walk(command: Any, path: str) -> None:
        for sub_name, sub in getattr(command, "commands", {}).items():
            walk(sub, f"{path} {sub_name}".strip())
        found.extend((path, p) for p in command.params)

    walk(typer.main.get_command(app), "")
    return found


def test_the_command_line_takes_the_declared_ranges_and_choices() -> None:
    """Every command-line option whose parameter is named as a declared option (``-B`` is
    ``replicates``, ``--format`` is ``fmt``) has its range or its choices."""
    by_name: dict[str, list[Option]] = {}
    for o in DECLARED:
        by_name.setdefault(o.name, []).append(o)
    checked = 0
    for command, param in _cli_params():
        if command not in ("report", "leaderboard", "compare", "score file", "score russe",
                           "score pairs", "score trec"):  # fmt: skip
            continue
        declared = by_name.get(param.name or "", [])
        if not declared:
            continue
        checked += 1
        choices = getattr(param.type_descriptor, "choices", None)
        if choices:
            extra = {"text"} if param.name == "fmt" else set()  # the terminal's table
            shown = {str(c.value) for c in choices}
            assert shown == {*declared[0].choices, *extra}, (command, param.name)
        elif any(o.strict for o in declared):
            assert param.callback is not None, (command, param.name)
        elif declared[0].kind is not bool:
            assert any((param.min, param.max) == (o.low, o.high) for o in declared), command
    assert checked >= 25
