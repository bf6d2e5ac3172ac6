"""A phase's ranking policy (issue 32): how a run's targets combine (``sum``, ``mean``,
``mean-rank``), ties sharing a rank, a missing score ranked last and never first, baselines
outside the teams' ranks, and the policy stated on the board. Every expected order and value
is computed by hand in the test."""

from __future__ import annotations

from datetime import timedelta

import pytest

from serve_kit import (
    OPENS,
    Clock,
    campaign_toml,
    gold,
    make_server,
    pair_file,
    phase_toml,
    register,
    upload,
)
from simeval.report.leaderboard import overall_table

T = ["t1", "t2", "t3"]
# four runs on three targets; D misses t2 and t3, E misses t3
SCORES = {
    "A": {"t1": 0.6, "t2": 0.6, "t3": 0.0},
    "B": {"t1": 0.5, "t2": 0.5, "t3": 0.9},
    "D": {"t1": 0.7},
    "E": {"t1": 0.4, "t2": 0.4},
}


def _order(combine: str, scores=SCORES, among=None) -> list[tuple[int | None, str, float]]:
    table = overall_table(scores, T, prune=False, combine=combine, among=among)
    return [(row[0], row[1], row[-1]) for row in table.rows]


def test_sum_mean_and_mean_rank_give_three_different_orders() -> None:
    def check(combine: str, systems: str, values: list[float]) -> None:
        got = _order(combine)
        assert [r for r, _, _ in got] == [1, 2, 3, 4]
        assert "".join(name for _, name, _ in got) == systems
        assert [v for _, _, v in got] == pytest.approx(values)

    # sum: A 1.2, B 1.9 (complete); D 0.7, E 0.8 (incomplete: after the complete ones)
    check("sum", "BAED", [1.9, 1.2, 0.8, 0.7])
    # mean over the targets a run has: A 0.4, B 0.6333; D 0.7 / 1, E 0.8 / 2 = 0.4
    check("mean", "BADE", [1.9 / 3, 0.4, 0.7, 0.4])
    # ranks per target: t1 D1 A2 B3 E4; t2 A1 B2 E3, D missing: 1 + 3 scored = 4;
    # t3 B1 A2, D and E missing: 1 + 2 scored = 3 each
    # A (2+1+2)/3 = 5/3, B (3+2+1)/3 = 2, D (1+4+3)/3 = 8/3, E (4+3+3)/3 = 10/3
    check("mean-rank", "ABDE", [5 / 3, 2, 8 / 3, 10 / 3])
    table = overall_table(SCORES, T, prune=False, combine="mean-rank")
    assert table.columns[-1] == "mean rank" and table.title.startswith("Overall: mean rank")


def test_a_missing_score_is_ranked_last_never_first_under_every_policy() -> None:
    # F has the best score on t1 and t2 but none on t3: it would lead any total of what it has
    scores = {
        "F": {"t1": 0.99, "t2": 0.99},
        "G": {"t1": 0.1, "t2": 0.1, "t3": 0.1},
        "H": {"t1": 0.2, "t2": 0.2, "t3": 0.2},
    }
    for combine in ("sum", "mean", "mean-rank"):
        assert [s for _, s, _ in _order(combine, scores)] == ["H", "G", "F"], combine
    # mean-rank by hand: F t1 1, t2 1, t3 missing 1 + 2 = 3 -> 5/3; H (2+2+1)/3; G (3+3+2)/3
    assert [v for _, _, v in _order("mean-rank", scores)] == pytest.approx([5 / 3, 8 / 3, 5 / 3])


def test_equal_mean_ranks_share_a_rank_and_skip_the_next() -> None:
    scores = {  # P and Q mirror each other: mean rank 1.5 each; R last on both: 3
        "P": {"t1": 0.9, "t2": 0.5},
        "Q": {"t1": 0.5, "t2": 0.9},
        "R": {"t1": 0.1, "t2": 0.1},
        "S": {"t1": 0.1, "t2": 0.1},
    }
    table = overall_table(scores, ["t1", "t2"], prune=False, combine="mean-rank")
    assert [(r[0], r[1], r[-1]) for r in table.rows] == [
        (1, "P", 1.5), (1, "Q", 1.5), (3, "R", 3.0), (3, "S", 3.0)]  # fmt: skip


def test_a_baseline_takes_no_teams_rank_on_any_target() -> None:
    from simeval.serve.service.board_table import board

    def record(system: str, bench: str, value: float) -> dict:
        return {"benchmark": bench, "main_metric": "spearman", "metrics": {"spearman": value},
                "system": {"name": system}}  # fmt: skip

    values = {"X": (0.9, 0.1), "Y": (0.2, 0.8), "base": (0.5, 0.5)}
    records = [record(s, b, v[i]) for s, v in values.items() for i, b in enumerate(("b1", "b2"))]
    table = board(records, prune=False, order=["b1", "b2"], baselines={"base"},
                  combine="mean-rank")  # fmt: skip
    rows = {row[1]: (row[0], row[-1]) for row in table.rows}
    # among the teams X and Y only: X ranks 1 and 2, Y 2 and 1: both 1.5, tied at rank 1
    assert rows["X"] == (1, 1.5)
    assert rows["Y"] == (1, 1.5)
    # the baseline where it would stand among the teams: 2 on b1 (X ahead), 2 on b2 (Y ahead)
    assert rows["base (baseline)"] == (None, 2.0)


def test_a_campaign_file_declares_the_policy_and_the_board_states_it(tmp_path, data_dir) -> None:
    from scipy.stats import spearmanr

    campaign = campaign_toml(
        "pol", phase_toml("trial", ["mc30", "rg65"]) + 'combine = "mean-rank"\n'
    )
    clock = Clock(OPENS + timedelta(days=1))
    server = make_server(f"sqlite:///{tmp_path / 'db.sqlite'}", tmp_path / "srv", clock, campaign)
    mc30 = gold(data_dir / "mc30" / "EN-MC-30.txt")
    rg65 = gold(data_dir / "rg65" / "EN-RG-65.txt")
    expected = {}
    for team, seeds in (("ann", (1, 9)), ("bob", (2, 8)), ("cyd", (3, 7))):
        token = register(server.client, team, "pol")
        got = []
        for target, pairs, seed in (("mc30", mc30, seeds[0]), ("rg65", rg65, seeds[1])):
            data, scores = pair_file(pairs, seed)
            assert upload(server.client, token, data, target=target).status_code == 201
            got.append(spearmanr([g for _, _, g in pairs], scores).statistic)
        expected[f"{team} run 1"] = got
    # each run's rank on each target from scipy's correlations, then their mean
    mean_rank = {
        s: sum(1 + sum(v[i] > mine[i] for v in expected.values()) for i in (0, 1)) / 2
        for s, mine in expected.items()
    }
    board = server.client.get("/api/campaigns/pol/phases/trial/leaderboard").json()
    assert board["columns"][-1] == "mean rank"
    got = {row[1]: row[-1] for row in board["rows"]}
    assert got == pytest.approx(mean_rank)
    assert [row[1] for row in board["rows"]] == sorted(mean_rank, key=lambda s: (mean_rank[s], s))
    page = server.client.get("/campaigns/pol/phases/trial").text
    assert "Ranking policy." in page and "the lower mean rank ranks first" in page
    assert "never first" in page
    assert "ranked by the mean rank over targets" in server.client.get("/campaigns/pol").text
    # the export's final table is the phase's policy, and simeval leaderboard --combine
    # reproduces it from the exported results
    from simeval.api.reporting import leaderboard
    from simeval.serve.db.storage import Storage
    from simeval.serve.service.export import export

    export(server.db, Storage(server.files), "pol", tmp_path / "final")
    final = (tmp_path / "final" / "trial" / "leaderboard.md").read_text(encoding="utf-8")
    assert "| mean rank |" in final
    offline = leaderboard(tmp_path / "final" / "trial", "markdown", combine="mean-rank")
    assert offline.split("\n", 2)[2] == final.split("\n", 2)[2]  # all but the titles
    server.db.dispose()


def test_an_unknown_policy_in_the_campaign_file_is_refused(tmp_path) -> None:
    from simeval.errors import InputError
    from simeval.serve.service.campaigns import read_campaign_file

    path = tmp_path / "c.toml"
    path.write_text(campaign_toml("pol", phase_toml("trial", ["mc30"]) + 'combine = "median"\n'))
    with pytest.raises(InputError, match="combine = 'median': use 'sum', 'mean', 'mean-rank'"):
        read_campaign_file(path)
