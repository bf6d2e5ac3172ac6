"""Rank tiers on the server's leaderboard (issue 32, item 4): computed off the request path,
shown with their method, and equal to ``simeval leaderboard --tiers`` on a results folder of
the same files ("the tiers on the leaderboard equal those computed offline")."""

from __future__ import annotations

import csv
import io
import re
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from serve_kit import BOARD, perturbed, register, upload, wait_for_tiers

pytest.importorskip("fastapi")

# (team, noise sd around the gold): alpha and beta within noise of each other, gamma clearly
# worse, delta about random; the gold runs from 0 to 4
TEAMS = (("alpha", 0.25), ("beta", 0.3), ("gamma", 1.6), ("delta", 40.0))


def offline_tiers(folder: Path) -> dict[str, dict[str, tuple[str, str, str]]]:
    """``simeval leaderboard --tiers -f csv`` on ``folder``: benchmark → system → (rank
    interval, UB, tier) as printed."""
    from typer.testing import CliRunner

    from simeval.cli import app

    out = CliRunner().invoke(app, ["leaderboard", str(folder), "--tiers", "-f", "csv"])
    assert out.exit_code == 0, out.output
    tables = [t for t in out.output.split("\n\n") if t.strip()]
    benches = next(csv.reader(io.StringIO(tables[0])))[2:-1]  # rank, system, …, sum
    found = {}
    for bench, text in zip(benches, tables[1:], strict=True):  # then one per benchmark
        rows = list(csv.DictReader(io.StringIO(text)))
        found[bench] = {r["system"]: tuple(r[c] for c in TIER_HEADS) for r in rows}
    return found


TIER_HEADS = ("rank interval", "UB", "tier")


def test_the_servers_tiers_equal_simeval_leaderboard_tiers(srv, mc30, rg65, tmp_path) -> None:
    import simeval
    from simeval.results.store import save_results
    from simeval.serve.service.editing import set_baseline

    server, clock = srv
    client = server.client
    files = tmp_path / "files"
    files.mkdir()
    sent = []  # (system, target, file)
    for i, (team, sd) in enumerate((*TEAMS, ("organisers", 0.0))):
        token = register(client, team)
        for target, pairs in (("mc30", mc30), ("rg65", rg65)):
            data = perturbed(pairs, sd, 100 + i)
            assert upload(client, token, data, target=target).status_code == 201
            path = files / f"{team}-{target}.csv"
            path.write_bytes(data)
            sent.append((f"{team} run 1", target, path))
    set_baseline(server.db, "lex25", "organisers", True, clock.now)
    board = wait_for_tiers(client)

    results = tmp_path / "results"  # the teams' files scored offline (baselines not tiered)
    for system, target, path in sent:
        if not system.startswith("organisers"):
            save_results(results, simeval.score(target, path, system={"name": system}))
    offline = offline_tiers(results)

    served = board["tiers"]["benchmarks"]
    assert sorted(served) == sorted(offline) == ["mc30", "rg65"]
    for bench, runs in offline.items():
        shown = served[bench]["runs"]
        assert sorted(shown) == sorted(runs) == [f"{t} run 1" for t, _ in sorted(TEAMS)]
        for system, (interval, bound, tier) in runs.items():
            s = shown[system]
            assert "{}–{}".format(*s["interval"]) == interval, (bench, system)
            assert (str(s["upper_bound"]), str(s["tier"])) == (bound, tier), (bench, system)
        tiers = [s["tier"] for s in shown.values()]
        # non-trivial: at least two tiers, one of them with two runs
        assert len(set(tiers)) >= 2 and max(tiers.count(t) for t in set(tiers)) >= 2, tiers
    # alpha and beta cannot be told apart on mc30's 30 pairs; delta (noise 10× the gold's
    # range) is below both in every tier
    mc = served["mc30"]["runs"]
    assert mc["alpha run 1"]["tier"] == mc["beta run 1"]["tier"] == 1
    assert mc["delta run 1"]["tier"] > mc["gamma run 1"]["tier"] >= 1
    assert served["mc30"]["replicates"] == 1000 and served["mc30"]["seed"] == 0

    # the page: the board with the tier columns, the baseline shown but not tiered, the method
    page = client.get("/campaigns/lex25/phases/trial").text
    assert "How tiers are computed" in page and "B = 1000" in page and "Holm" in page
    # several benchmarks: the board stays narrow, and a table of tiers per benchmark follows,
    # its runs ranked on that benchmark with the tiers the JSON gives
    assert "<h2>mc30: rank tiers</h2>" in page and "<h2>rg65: rank tiers</h2>" in page
    tiered = page.split("<h2>rg65: rank tiers</h2>", 1)[1].split("</table>", 1)[0]
    cells = [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<t[dh][^>]*>.*?</t[dh]>", tiered)]
    assert cells[:6] == ["rank", "system", "spearman", "rank interval", "UB", "tier"]
    rg = served["rg65"]["runs"]
    ranks = []
    for k in range(6, len(cells), 6):
        rank, system, _, interval, bound, tier = cells[k : k + 6]
        ranks.append(int(rank))
        lo, hi = rg[system]["interval"]
        assert (interval, bound, tier) == (f"{lo}–{hi}", str(rg[system]["upper_bound"]),
                                           str(rg[system]["tier"])), system  # fmt: skip
    assert len(cells) == 6 * (1 + len(rg)) and ranks == sorted(ranks) and ranks[0] == 1
    assert "organisers run 1 (baseline)" in page and "computing" not in page
    assert "mc30 tier" not in board["columns"]  # the JSON's table is the strict board


def test_tiers_are_computed_aside_and_hidden_boards_have_none(srv, mc30, monkeypatch) -> None:
    """While the tiers are computed the page shows the strict board at once with "tiers:
    computing…"; a board hidden until publication has no tiers at all."""
    from simeval.serve.service import tiers as tiers_module

    server, _ = srv
    client, service = server.client, server.app.state.service
    gate = threading.Event()
    real = tiers_module.tiers_of_grid

    def held(*args: Any, **kwargs: Any) -> Any:
        assert gate.wait(60)
        return real(*args, **kwargs)

    monkeypatch.setattr(tiers_module, "tiers_of_grid", held)
    for i, (team, sd) in enumerate(TEAMS[:2]):
        token = register(client, team)
        assert upload(client, token, perturbed(mc30, sd, i), target="mc30").status_code == 201
    started = time.monotonic()
    page = client.get("/campaigns/lex25/phases/trial").text
    assert time.monotonic() - started < 10  # not waiting for the gate
    assert "tiers: computing" in page and "alpha run 1" in page and "mc30 tier" not in page
    assert client.get(BOARD).json()["tiers"] is None
    gate.set()
    board = wait_for_tiers(client)
    assert set(board["tiers"]["benchmarks"]["mc30"]["runs"]) == {"alpha run 1", "beta run 1"}
    service.board_tiers.close()

    hidden = client.get("/api/campaigns/lex25/phases/test/leaderboard").json()
    assert hidden["hidden"] is True and "tiers" not in hidden


def test_hand_made_tiers(srv, mc30) -> None:
    """Two teams send the same file (the gold plus noise): they tie at rank 1 in every
    replicate (interval 1–1) and their paired test has a zero statistic (p = 1, still 1 after
    Holm), so they share tier 1; a reversed gold (correlation near −1, the others near +1) is
    last in every replicate: interval 3–3, upper bound 1 + 2 = 3, alone in tier 2."""
    server, _ = srv
    client = server.client
    same = perturbed(mc30, 0.3, 0)
    reversed_ = perturbed([(a, b, -g) for a, b, g in mc30], 0.3, 1)
    for team, data in (("one", same), ("two", same), ("three", reversed_)):
        assert upload(client, register(client, team), data, target="mc30").status_code == 201
    runs = wait_for_tiers(client)["tiers"]["benchmarks"]["mc30"]["runs"]
    assert runs["one run 1"] == {"interval": [1, 1], "upper_bound": 1, "tier": 1,
                                 "p_value": None}  # fmt: skip
    assert runs["two run 1"] == {"interval": [1, 1], "upper_bound": 1, "tier": 1,
                                 "p_value": 1.0}  # fmt: skip
    assert runs["three run 1"] == {"interval": [3, 3], "upper_bound": 3, "tier": 2,
                                   "p_value": None}  # fmt: skip


def test_a_board_above_the_cap_gets_no_tiers(srv, mc30, monkeypatch) -> None:
    """A board with more runs than the cap gets no tiers (the bootstrap's memory grows with
    the square of the runs), and the page says so instead of "computing" for ever."""
    from simeval.serve.service import tiers as tiers_module
    from simeval.serve.views import pages

    monkeypatch.setattr(tiers_module, "MAX_RUNS", 1)
    monkeypatch.setattr(pages, "MAX_RUNS", 1)
    server, _ = srv
    client = server.client
    for i, (team, sd) in enumerate(TEAMS[:2]):
        assert upload(client, register(client, team), perturbed(mc30, sd, i),
                      target="mc30").status_code == 201  # fmt: skip
    assert wait_for_tiers(client)["tiers"]["benchmarks"] == {}
    page = client.get("/campaigns/lex25/phases/trial").text
    assert "No rank tiers: this board has more than 1 runs" in page
    assert "computing" not in page and "mc30 tier" not in page


def test_an_upload_to_a_board_above_the_cap_starts_no_tiers_refresh(srv, mc30, monkeypatch) -> None:
    """After an upload the board's tiers are refreshed in the background (a build of the
    board and a bootstrap), except on a board already above the cap: it gets no tiers, so
    the build would be for nothing (issue 46: 7% of the server's interpreter time under a
    stream of uploads at 10,000 runs). Its page still shows the new run."""
    from simeval.serve.service import submit
    from simeval.serve.service import tiers as tiers_module

    for module in (tiers_module, submit):
        monkeypatch.setattr(module, "MAX_RUNS", 2)
    server, _ = srv
    client, service = server.client, server.app.state.service
    asked: list[int] = []
    real = service.board_tiers.soon
    monkeypatch.setattr(service.board_tiers, "soon",
                        lambda key, work: asked.append(key) or real(key, work))  # fmt: skip
    teams = ("alpha", "beta", "gamma", "delta")
    for i, team in enumerate(teams):
        assert upload(client, register(client, team), perturbed(mc30, 0.5, i),
                      target="mc30").status_code == 201  # fmt: skip
        service.board_tiers.settle()  # no refresh's older board lands after the next read
        client.get(BOARD)  # the board as built after this upload: 1, 2, 3, 4 rows
    assert len(asked) == 3  # after 1, 2 and 3 rows; none once the board had 3 (> 2)
    rows = client.get(BOARD).json()["rows"]
    assert len(rows) == len(teams)


def test_tiers_in_a_process_of_their_own_are_the_same(srv, mc30) -> None:
    """With scoring processes, the tiers are computed in a spawned process of their own (the
    bootstrap never holds the server's interpreter lock): the same tiers as in the thread."""
    from simeval.serve.service.tiers import BoardTiers, as_json

    server, _ = srv
    client, service = server.client, server.app.state.service
    for i, (team, sd) in enumerate(TEAMS[:3]):
        assert upload(client, register(client, team), perturbed(mc30, sd, i),
                      target="mc30").status_code == 201  # fmt: skip
    here = wait_for_tiers(client)["tiers"]
    p, table = service.leaderboard("lex25", "trial")
    aside = BoardTiers(process=True)
    try:
        found = aside.run(*service.tier_runs(p.id, table))
        assert aside._worker is not None  # it ran in the process
    finally:
        aside.close()
    assert as_json(found) == here and len(here["benchmarks"]["mc30"]["runs"]) == 3


def test_a_burst_of_scores_queues_one_computation(srv, mc30, monkeypatch) -> None:
    """While the tiers of one board are computed, boards that a new score replaced before
    their turn are dropped: three scores and three page views during one computation start
    two computations (the running one and the newest), not three, and the newest has every
    run."""
    from simeval.serve.service import tiers as tiers_module

    server, _ = srv
    client = server.client
    gate, calls = threading.Event(), []
    real = tiers_module.tiers_of_grid

    def held(grid: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(len(grid.systems))
        assert gate.wait(60)
        return real(grid, *args, **kwargs)

    monkeypatch.setattr(tiers_module, "tiers_of_grid", held)
    for i, (team, sd) in enumerate(TEAMS[:3]):
        assert upload(client, register(client, team), perturbed(mc30, sd, i),
                      target="mc30").status_code == 201  # fmt: skip
        for _ in range(50):  # the first computation has started (and waits at the gate)
            if calls:
                break
            time.sleep(0.05)
        assert "tiers: computing" in client.get("/campaigns/lex25/phases/trial").text
    gate.set()
    board = wait_for_tiers(client)
    assert len(board["tiers"]["benchmarks"]["mc30"]["runs"]) == 3
    assert calls == [1, 3]
