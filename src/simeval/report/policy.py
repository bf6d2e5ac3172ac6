"""The ranking policy of a leaderboard in words, as :mod:`simeval.report.leaderboard` applies
it: how a run's targets combine, the tie rule, where a missing score goes, baselines and
dominance pruning. The server's pages print it under the board and in the console, so what a
participant reads is what the code does."""

from __future__ import annotations

from simeval.report.leaderboard import COMBINE

HOW = {
    "sum": "their sum (the sum adds them; an undefined score, –, counts 0): the higher sum "
    "ranks first",
    "mean": "their mean (over the targets a run has a result on; an undefined score, –, "
    "counts 0): the higher mean ranks first",
    "mean-rank": "their mean rank (a run's rank on each target is 1 + the number of runs with "
    "a better score there; the mean of those ranks): the lower mean rank ranks first",
}

SHORT = {  # the policy in a few words (the campaign page, the console)
    "sum": "the sum of main scores",
    "mean": "the mean of main scores",
    "mean-rank": "the mean rank over targets",
}


def ranking_policy(combine: str = "sum", pruned: bool = False) -> list[str]:
    """The sentences of the policy for a board combining targets by ``combine``; ``pruned``:
    the table drops dominated runs (the final table), else every run is listed."""
    if combine not in COMBINE:
        raise ValueError(f"combine {combine!r}: one of {', '.join(COMBINE)}")
    missing = "is ranked last on that target and " if combine == "mean-rank" else ""
    return [
        f"The main scores of a run's targets combine by {HOW[combine]}.",
        "Ties: runs with equal totals share a rank and the next rank is skipped (1, 2, 2, 4); "
        "tied runs are listed by name.",
        f"A run with no score on a target {missing}comes after every run that has them all: a "
        "missing score is ranked last, never first.",
        "A score that carries no information (constant scores, †) is not ranked.",
        "Baselines of the organisers are shown, marked, and never ranked among the teams.",
        "Dominated runs (beaten on every target by another run) are dropped (RUSSE 2015)."
        if pruned
        else "Every run is listed here; the final table also drops dominated runs, those beaten "
        "on every target by another run (RUSSE 2015).",
    ]
