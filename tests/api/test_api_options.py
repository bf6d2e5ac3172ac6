"""Options given from Python go through the same declarations as the command line's (issue 44,
"the funnel"): a value the command line refuses is refused from Python too, as simeval's own
error naming the option, the value and what is allowed; an unknown keyword is refused with
the closest names. Values found by a tester that crashed (KeyError, numpy's ValueError) or
were taken silently (``alpha=nan`` judging at ``p ≥ nan``, ``complete="no"`` taken as true)."""

from __future__ import annotations

import math
from typing import Any

import pytest

import simeval
from simeval.errors import InputError

GOLD = [
    ("car", "automobile", 3.92),
    ("gem", "jewel", 3.84),
    ("noon", "string", 0.08),
    ("cat", "dog", 2.5),
    ("sun", "moon", 1.7),
    ("king", "queen", 3.1),
]
QRELS = {"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d3": 1}}
RUN = {"q1": {"d1": 0.9, "d2": 0.5}, "q2": {"d1": 0.8, "d2": 0.4}}


@pytest.fixture(scope="module")
def pairs() -> Any:
    return simeval.benchmark_from_pairs(GOLD)


@pytest.fixture(scope="module")
def qrels() -> Any:
    return simeval.benchmark_from_qrels(QRELS)


@pytest.fixture(scope="module")
def two(pairs: Any) -> tuple[list[Any], list[Any]]:
    a = simeval.score(pairs, [0.9, 0.8, 0.1, 0.5, 0.3, 0.7], system={"name": "A"})
    b = simeval.score(pairs, [0.2, 0.8, 0.6, 0.1, 0.3, 0.4], system={"name": "B"})
    return a, b


def refused(option: str, *allowed: str) -> Any:
    """``pytest.raises`` for simeval's error naming ``option`` (and what is ``allowed``)."""
    return pytest.raises(InputError, match=rf"\b{option}\b.*{'.*'.join(allowed)}")


@pytest.mark.parametrize("replicates", [0, 1, 49, -5, 10**7, 100.0, True, "100"])
def test_compare_refuses_a_replicate_count_the_command_line_refuses(two, replicates) -> None:
    with refused("replicates", "50", "1,000,000"):
        simeval.compare(*two, replicates=replicates)


@pytest.mark.parametrize("alpha", [math.nan, math.inf, 0, 1, -1, 2, 0.0])
def test_compare_refuses_a_significance_level_outside_0_1(two, alpha) -> None:
    with refused("alpha", "between 0 and 1"):
        simeval.compare(*two, replicates=100, alpha=alpha)


@pytest.mark.parametrize("level", [1, 0, 0.4, 1.5, math.nan])
def test_compare_refuses_a_confidence_level_the_command_line_refuses(two, level) -> None:
    with refused("level", "0.5", "0.999"):
        simeval.compare(*two, replicates=100, level=level)


def test_compare_refuses_a_negative_seed(two) -> None:
    with refused("seed", "0"):
        simeval.compare(*two, replicates=100, seed=-1)


def test_in_range_values_still_give_the_verdict(two) -> None:
    """The boundaries the command line takes are taken from Python too."""
    low = simeval.compare(*two, replicates=50, level=0.5, alpha=0.999).verdicts[0]
    high = simeval.compare(*two, replicates=50, level=0.999, alpha=1e-9).verdicts[0]
    assert low.main.difference == high.main.difference


def test_leaderboard_refuses_an_unknown_format_with_the_closest(two) -> None:
    with refused("fmt", "markdown, latex, csv, html"):
        simeval.leaderboard([*two[0], *two[1]], fmt="yaml")
    with refused("fmt", "did you mean markdown"):
        simeval.leaderboard([*two[0], *two[1]], fmt="markdwn")


def test_leaderboard_refuses_a_negative_top(two) -> None:
    with refused("top", "0"):
        simeval.leaderboard([*two[0], *two[1]], top=-1)


def test_leaderboard_refuses_an_unknown_combination(two) -> None:
    with refused("combine", "sum, mean, mean-rank"):
        simeval.leaderboard([*two[0], *two[1]], combine="median")


def test_leaderboard_refuses_a_non_bool_flag(two) -> None:
    with refused("keep_dominated", "True or False"):
        simeval.leaderboard([*two[0], *two[1]], keep_dominated="no")


def test_score_refuses_an_unknown_missing_policy_on_every_kind(pairs, qrels) -> None:
    with refused("missing", "zero, skip, error"):
        simeval.score(pairs, [0.1] * len(GOLD), missing="bogus")
    with refused("missing", "zero, skip, error"):  # a linking target used to ignore it
        simeval.score(qrels, RUN, missing="bogus")


@pytest.mark.parametrize("complete", ["no", "yes", 0, 1, None])
def test_score_refuses_a_complete_that_is_not_a_bool(qrels, complete) -> None:
    with refused("complete", "True or False"):
        simeval.score(qrels, RUN, complete=complete)


@pytest.mark.parametrize("depth", [-3, 0, 2.0, "5"])
def test_score_refuses_a_depth_below_one(pairs, qrels, depth) -> None:
    with refused("max_retrieved", "1"):
        simeval.score(qrels, RUN, max_retrieved=depth)
    with refused("max_retrieved", "1"):
        simeval.score(pairs, [0.1] * len(GOLD), max_retrieved=depth)


def test_score_takes_the_trec_eval_options(qrels) -> None:
    """-c and -M by hand: q1 finds d1 first, q2 ranks d2 second (cut at 1: not found), q3 is
    absent (0 with complete)."""
    (r,) = simeval.score(qrels, RUN, complete=True, max_retrieved=1)
    assert r.metrics["success_5"] == pytest.approx(1 / 3)
    (r,) = simeval.score(qrels, RUN, complete=False)
    assert r.metrics["recip_rank"] == pytest.approx((1 + 1 / 2) / 2)


@pytest.mark.parametrize(
    ("call", "near", "meant"),
    [
        ("compare", "replicate", "replicates"),
        ("leaderboard", "format", "fmt"),
        ("score", "missng", "missing"),
        ("score", "max_retreived", "max_retrieved"),
        ("evaluate", "result_dir", "results_dir"),
        ("write_report", "jobz", "jobs"),
    ],
)
def test_a_misspelt_keyword_is_refused_with_the_name_meant(call, near, meant) -> None:
    with pytest.raises(InputError, match=rf"{call}\(\).*{near!r}.*did you mean {meant}"):
        getattr(simeval, call)(**{near: 1})


def test_an_unknown_keyword_is_refused_not_ignored(pairs, qrels, two) -> None:
    calls = [
        lambda: simeval.score(pairs, [0.1] * len(GOLD), frobnicate=True),
        lambda: simeval.score(qrels, RUN, frobnicate=True),
        lambda: simeval.compare(*two, frobnicate=True),
        lambda: simeval.evaluate(lambda a, b: 1.0, pairs, frobnicate=True),
        lambda: simeval.leaderboard([*two[0], *two[1]], frobnicate=True),
    ]
    for call in calls:
        with pytest.raises(InputError, match="frobnicate"):
            call()
