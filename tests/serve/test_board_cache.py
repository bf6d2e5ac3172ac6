"""The live leaderboard is built once and kept until something it shows changes: a new
scored run, or any change an organiser makes (each is audited), from this process or another
(issue 32, item 6)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from scipy.stats import spearmanr

from serve_kit import OPENS, Clock, make_server, pair_file, register, upload

pytest.importorskip("fastapi")


def test_the_board_is_kept_until_a_run_or_a_change_comes(tmp_path: Path, serve_db: str, mc30):
    from simeval.serve.db import Database
    from simeval.serve.service.editing import exclude_run, rename_team

    clock = Clock(OPENS + timedelta(days=1))
    server = make_server(serve_db, tmp_path / "srv", clock)
    service, client = server.app.state.service, server.client
    truth = [g for *_, g in mc30]
    a_data, _ = pair_file(mc30, 31)
    assert upload(client, register(client, "alpha"), a_data, target="mc30").status_code == 201
    _, first = service.leaderboard("lex25", "trial")
    assert service.leaderboard("lex25", "trial")[1] is first  # nothing changed: the same table
    b_data, b_scores = pair_file(mc30, 32)
    assert upload(client, register(client, "beta"), b_data, target="mc30").status_code == 201
    _, second = service.leaderboard("lex25", "trial")
    assert second is not first and len(second.rows) == 2
    column = second.columns.index("mc30")
    shown = {row[1]: row[column] for row in second.rows}
    assert shown["beta run 1"] == pytest.approx(spearmanr(truth, b_scores)[0], abs=1e-12)
    other = Database(serve_db)  # a change made by another process (the command line)
    exclude_run(other, "lex25", "trial", "beta", 1, "disqualified", "late", clock.now)
    _, third = service.leaderboard("lex25", "trial")
    assert [row[1] for row in third.rows] == ["alpha run 1"]
    rename_team(other, "lex25", "alpha", "alpha2", clock.now)
    assert [row[1] for row in service.leaderboard("lex25", "trial")[1].rows] == ["alpha2 run 1"]
    other.dispose()
    server.db.dispose()


def test_the_board_page_is_built_once_per_change(tmp_path: Path, serve_db: str, mc30):
    """Two reads of the leaderboard page with nothing new build its body once (the second
    only moves its countdown to the server's clock); a new scored run builds it again; a
    signed-in team (its rows highlighted) has a body of its own."""
    import re

    from serve_kit import wait_for_tiers

    clock = Clock(OPENS + timedelta(days=1))
    server = make_server(serve_db, tmp_path / "srv", clock)
    client, kept = server.client, server.app.state.web.board_pages
    page = "/campaigns/lex25/phases/trial"
    alpha = register(client, "alpha")
    assert upload(client, alpha, pair_file(mc30, 31)[0], target="mc30").status_code == 201
    wait_for_tiers(client)  # the tiers shown: nothing changes the board until the next run
    first = client.get(page).text
    assert kept.builds == 1
    clock.now += timedelta(hours=1)  # one hour less to the deadline (2025-02-01)
    second = client.get(page).text
    assert kept.builds == 1  # not built again
    assert 'data-now="2025-01-02T01:00:00.000+00:00"' in second
    assert 'data-now="2025-01-02T00:00:00.000+00:00"' in first
    left = re.compile(r'data-now="[^"]*">([^<]*)<')
    assert (left.search(first)[1], left.search(second)[1]) == ("30 d 0 h 0 min", "29 d 23 h 0 min")
    assert first.count("alpha run 1") == second.count("alpha run 1") >= 1
    beta = register(client, "beta")
    assert upload(client, beta, pair_file(mc30, 32)[0], target="mc30").status_code == 201
    third = client.get(page).text
    assert kept.builds == 2 and "beta run 1" in third
    client.cookies.set("simeval_team", beta)  # signed in: beta's rows highlighted
    client.get(page)
    assert kept.builds == 3
    server.db.dispose()
