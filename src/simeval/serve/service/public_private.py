"""How well a split phase's public board predicted its private one, for the export after the
deadline (:mod:`.split_rule`): ``public_private.md`` and ``public_private.csv``.

Both boards are built by the one board code (:func:`simeval.serve.service.board_table.board`) over
the same runs, each team's final runs (baselines and excluded runs left out), once from their
public records and once from their private ones. The agreement is Spearman's ρ and Kendall's
τ-b (scipy) between the two boards' ranks (ties share a rank, so these equal the coefficients
over the ranking scores themselves); the largest rank changes are the five runs with the
largest |public rank − private rank| (then by name).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simeval.report.leaderboard import Table
from simeval.serve.db.models import Phase
from simeval.serve.service.split_rule import share_text

TOP_CHANGES = 5
COLUMNS = ["private rank", "system", "private", "public rank", "public", "rank change"]


@dataclass
class Agreement:
    """The two boards' ranks of each final run, and how well they agree."""

    rows: list[list[Any]]  # COLUMNS, in the private board's order
    spearman: float
    kendall: float

    def largest_changes(self, top: int = TOP_CHANGES) -> list[list[Any]]:
        moved = [r for r in self.rows if r[5] is not None]
        return sorted(moved, key=lambda r: (-abs(r[5]), r[1]))[:top]


def agreement(public: Table, private: Table) -> Agreement:
    """Each system's score (the boards' ranking column, the last: ``sum`` or the phase's
    other policy) and rank on both boards,
    and the rank correlations over the systems ranked on both."""
    from scipy.stats import kendalltau, spearmanr

    def placed(table: Table) -> dict[str, tuple[Any, Any]]:
        return {str(row[1]): (row[-1], row[0]) for row in table.rows}

    pub, priv = placed(public), placed(private)
    rows = []
    for system, (score, rank) in priv.items():
        p_score, p_rank = pub.get(system, (None, None))
        change = None if rank is None or p_rank is None else p_rank - rank
        rows.append([rank, system, score, p_rank, p_score, change])
    both = [(r[3], r[0]) for r in rows if r[5] is not None]
    rho = tau = math.nan
    if len(both) >= 2:
        a, b = zip(*both, strict=True)
        rho = float(spearmanr(a, b).statistic)
        tau = float(kendalltau(a, b).statistic)
    return Agreement(rows, rho, tau)


def public_private_files(
    finals: Sequence[tuple[str, int, list[dict[str, Any]], list[dict[str, Any]]]],
    phase: Phase,
    folder: Path,
    title: str,
) -> list[Path]:
    """Write the comparison of the final runs ``(team, run, public records, private
    records)`` of the split ``phase`` (:func:`.split_rule.part_record`) into ``folder``; the
    files written."""
    from simeval.report.format import number
    from simeval.report.leaderboard import RENDERERS
    from simeval.serve.service.board_table import board, records_of

    def side(i: int) -> Table:
        found = [(team, run, sides[i]) for team, run, *sides in finals]
        return board(records_of(found), prune=False, order=phase.targets, combine=phase.combine)

    found = agreement(side(0), side(1))
    table = Table(f"{title}: public and private boards", COLUMNS, found.rows)
    changes = Table("Largest rank changes", COLUMNS, found.largest_changes())
    share = phase.public_share or 0
    text = (
        f"# {title}: public and private leaderboards\n\n"
        f"The live board scored a public {share_text(share)} of the items, drawn with the seed "
        f"`{phase.split_seed}` (the rule: `simeval.serve.service.split_rule`); the private board "
        f"the other {share_text(1 - share)}, each team's final runs. Over the "
        f"{len(found.rows)} final runs, the public board's ranks agree with the private "
        f"board's with Spearman's ρ = {number(found.spearman, 4)} and Kendall's τ-b = "
        f"{number(found.kendall, 4)} (scipy, ranks tied as the boards tie them).\n\n"
        + RENDERERS["markdown"](changes)
        + "\n\n"
        + RENDERERS["markdown"](table)
        + "\n"
    )
    md, csv = folder / "public_private.md", folder / "public_private.csv"
    md.write_text(text, encoding="utf-8")
    csv.write_text(RENDERERS["csv"](table), encoding="utf-8")
    return [md, csv]
