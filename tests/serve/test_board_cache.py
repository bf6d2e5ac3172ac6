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
