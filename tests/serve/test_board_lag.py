"""A large live leaderboard under a stream of uploads (issue 32, item 6): each run's records
are read from the database once, and a board of many runs is answered from its last build
while the next one is built, so a reader never waits for a build."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from scipy.stats import spearmanr

from serve_kit import OPENS, Clock, make_server, pair_file, register, upload

pytest.importorskip("fastapi")

WAIT = 30.0  # seconds a background build may take here, at the most


def systems(table: Any) -> list[str]:
    return sorted(row[1] for row in table.rows)


def quiet(service: Any, monkeypatch: Any) -> None:
    """No board built in the background after an upload for its rank tiers: every build here
    is the test's own."""
    monkeypatch.setattr(service.board_tiers, "soon", lambda *args, **kwargs: None)


def test_a_build_reads_only_the_runs_it_has_not_read(
    tmp_path: Path, serve_db: str, mc30, monkeypatch
):
    from simeval.serve.service.board_cache import Boards

    server = make_server(serve_db, tmp_path / "srv", Clock(OPENS + timedelta(days=1)))
    service, client = server.app.state.service, server.client
    quiet(service, monkeypatch)
    read: list[int] = []
    real = Boards._read
    monkeypatch.setattr(Boards, "_read", lambda self, ids: read.append(len(ids)) or real(self, ids))
    for i, team in enumerate(["alpha", "beta"]):
        answer = upload(client, register(client, team), pair_file(mc30, i)[0], target="mc30")
        assert answer.status_code == 201
    assert systems(service.leaderboard("lex25", "trial")[1]) == ["alpha run 1", "beta run 1"]
    data, scores = pair_file(mc30, 7)
    assert upload(client, register(client, "gamma"), data, target="mc30").status_code == 201
    table = service.leaderboard("lex25", "trial")[1]
    assert read == [2, 1]  # the second build read gamma's row alone
    row = next(r for r in table.rows if r[1] == "gamma run 1")
    truth = [g for *_, g in mc30]
    assert row[table.columns.index("mc30")] == pytest.approx(spearmanr(truth, scores)[0], abs=1e-12)
    server.db.dispose()


def test_a_large_board_is_answered_from_its_last_build_while_the_next_is_built(
    tmp_path: Path, serve_db: str, mc30, monkeypatch
):
    import simeval.serve.service.board_table as board_module

    server = make_server(serve_db, tmp_path / "srv", Clock(OPENS + timedelta(days=1)))
    service, client = server.app.state.service, server.client
    quiet(service, monkeypatch)
    service.boards.lag_from, service.boards.lag_seconds = 2, 0.0  # "large" from 2 runs
    service.boards.lag_factor = 0.0  # however long the first build took (a busy machine)
    for i, team in enumerate(["alpha", "beta"]):
        answer = upload(client, register(client, team), pair_file(mc30, i)[0], target="mc30")
        assert answer.status_code == 201
    first = service.leaderboard("lex25", "trial")[1]
    assert systems(first) == ["alpha run 1", "beta run 1"]  # built before the answer

    release, started = threading.Event(), threading.Event()
    real = board_module.board

    def held(*args: Any, **kwargs: Any) -> Any:  # the background build waits for the test
        if threading.current_thread() is not threading.main_thread():
            started.set()
            assert release.wait(WAIT)
        return real(*args, **kwargs)

    monkeypatch.setattr(board_module, "board", held)
    data, scores = pair_file(mc30, 7)
    assert upload(client, register(client, "gamma"), data, target="mc30").status_code == 201
    assert service.leaderboard("lex25", "trial")[1] is first  # the last build, at once
    assert started.wait(WAIT)  # while the next is built in a thread
    assert service.leaderboard("lex25", "trial")[1] is first  # one build at a time
    release.set()
    deadline = time.monotonic() + WAIT
    while (table := service.leaderboard("lex25", "trial")[1]) is first:
        assert time.monotonic() < deadline, "the new board never came"
        time.sleep(0.01)
    assert systems(table) == ["alpha run 1", "beta run 1", "gamma run 1"]
    row = next(r for r in table.rows if r[1] == "gamma run 1")
    truth = [g for *_, g in mc30]
    assert row[table.columns.index("mc30")] == pytest.approx(spearmanr(truth, scores)[0], abs=1e-12)
    r = client.get("/api/campaigns/lex25/phases/trial/leaderboard")
    assert len(r.json()["rows"]) == 3
    server.db.dispose()


def test_a_board_built_from_rows_read_before_a_run_landed_is_not_kept(
    tmp_path: Path, serve_db: str, mc30, monkeypatch
):
    """A run recorded while a board is being built (its rows already read) makes the next
    read build again: the board is never kept without it until some later upload."""
    import simeval.serve.service.board_table as board_module

    server = make_server(serve_db, tmp_path / "srv", Clock(OPENS + timedelta(days=1)))
    service, client = server.app.state.service, server.client
    quiet(service, monkeypatch)
    answer = upload(client, register(client, "alpha"), pair_file(mc30, 1)[0], target="mc30")
    assert answer.status_code == 201
    beta = register(client, "beta")
    real, landed = board_module.board, []

    def racing(*args: Any, **kwargs: Any) -> Any:  # beta's run lands mid-build, once
        if not landed:
            landed.append(upload(client, beta, pair_file(mc30, 2)[0], target="mc30"))
        return real(*args, **kwargs)

    monkeypatch.setattr(board_module, "board", racing)
    during = service.leaderboard("lex25", "trial")[1]
    assert landed[0].status_code == 201 and systems(during) == ["alpha run 1"]
    after = service.leaderboard("lex25", "trial")[1]
    assert systems(after) == ["alpha run 1", "beta run 1"]
    server.db.dispose()


def test_a_board_built_twice_at_once_is_one_table(tmp_path: Path, serve_db: str, mc30, monkeypatch):
    """Two requests that build the same board at once (a page and the tiers' refresh) both
    get the table kept first: the answer and the tiers kept with a table stay its own."""
    import simeval.serve.service.board_table as board_module

    server = make_server(serve_db, tmp_path / "srv", Clock(OPENS + timedelta(days=1)))
    service, client = server.app.state.service, server.client
    quiet(service, monkeypatch)
    answer = upload(client, register(client, "alpha"), pair_file(mc30, 1)[0], target="mc30")
    assert answer.status_code == 201
    real, inner = board_module.board, []

    def twice(*args: Any, **kwargs: Any) -> Any:  # another request builds it meanwhile
        if not inner:
            inner.append(None)
            inner[0] = service.leaderboard("lex25", "trial")[1]
        return real(*args, **kwargs)

    monkeypatch.setattr(board_module, "board", twice)
    outer = service.leaderboard("lex25", "trial")[1]
    assert outer is inner[0] and systems(outer) == ["alpha run 1"]
    assert service.leaderboard("lex25", "trial")[1] is outer
    server.db.dispose()


def test_a_large_boards_json_is_answered_without_the_database_while_a_build_lags(
    tmp_path: Path, serve_db: str, mc30, monkeypatch
):
    """Issue 46: a reader of a large board's JSON in a loop is answered on the event loop from
    the answer kept for ``lag_seconds`` (no database read, no worker thread); a small board's
    is read afresh each time, so that a read after an upload shows its run."""
    import simeval.serve.routers.api as api

    server = make_server(serve_db, tmp_path / "srv", Clock(OPENS + timedelta(days=1)))
    service, client = server.app.state.service, server.client
    quiet(service, monkeypatch)
    asked: list[str] = []
    real = service.leaderboard
    monkeypatch.setattr(service, "leaderboard", lambda *a: asked.append(a[1]) or real(*a))
    url = "/api/campaigns/lex25/phases/trial/leaderboard"
    answer = upload(client, register(client, "alpha"), pair_file(mc30, 1)[0], target="mc30")
    assert answer.status_code == 201
    client.get(url), client.get(url)
    assert asked == ["trial", "trial"]  # small: read each time

    service.boards.lag_from, service.boards.lag_seconds = 2, 60.0  # "large" from 2 runs
    answer = upload(client, register(client, "beta"), pair_file(mc30, 2)[0], target="mc30")
    assert answer.status_code == 201
    asked.clear()
    first = client.get(url)
    assert [row[1] for row in first.json()["rows"]] != []
    assert client.get(url).content == first.content and asked == ["trial"]  # kept
    assert client.get(url + "?board=public").status_code == 200
    assert asked == ["trial", "trial"]  # another request's text: its own answer

    later = time.monotonic() + 61.0  # past lag_seconds: read again
    monkeypatch.setattr(api.time, "monotonic", lambda: later)
    client.get(url)
    assert asked == ["trial", "trial", "trial"]
    server.db.dispose()
