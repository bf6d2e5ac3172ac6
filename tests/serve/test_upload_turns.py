"""Uploads take turns once their bodies arrived (issue 46): a few are scored and recorded at
once, one per scoring process plus ``RECORDING_BEYOND_SCORERS``; the rest wait with their
bodies stored, none is lost, and the leaderboard answers meanwhile. More at once would only
add threads contending for the server's interpreter lock."""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from scipy.stats import spearmanr

from serve_kit import BOARD, OPENS, Clock, live, make_server, pair_file, register

pytest.importorskip("fastapi")

WAIT = 30.0  # seconds an upload's recording may take here, at the most
TEAMS = 5


def test_uploads_are_recorded_a_few_at_a_time_and_none_is_lost(
    tmp_path: Path, serve_db: str, mc30, monkeypatch
) -> None:
    from simeval.serve.routers.web import RECORDING_BEYOND_SCORERS
    from simeval.serve.service.submit import Service

    server = make_server(serve_db, tmp_path / "srv", Clock(OPENS + timedelta(days=1)))
    client = server.client
    tokens = [register(client, f"team{i}") for i in range(TEAMS)]
    turns = 1 + RECORDING_BEYOND_SCORERS  # scoring in the server's process: one "scorer"
    assert turns < TEAMS  # else nothing here waits

    inside, most, lock = 0, 0, threading.Lock()
    release, full = threading.Event(), threading.Event()
    real = Service.record

    def held(self: Any, *args: Any, **kwargs: Any) -> Any:  # recording waits for the test
        nonlocal inside, most
        with lock:
            inside += 1
            most = max(most, inside)
            if inside == turns:
                full.set()
        try:
            assert release.wait(WAIT)
            return real(self, *args, **kwargs)
        finally:
            with lock:
                inside -= 1

    monkeypatch.setattr(Service, "record", held)
    sent = [pair_file(mc30, i) for i in range(TEAMS)]
    answers: list[Any] = [None] * TEAMS
    with live(server.app) as base:

        def send(i: int) -> None:
            answers[i] = httpx.post(
                f"{base}/api/phases/trial/submissions",
                params={"filename": "run.csv", "target": "mc30"},
                content=sent[i][0],
                headers={"authorization": f"Bearer {tokens[i]}"},
                timeout=WAIT * 2,
                trust_env=False,
            )

        threads = [threading.Thread(target=send, args=(i,)) for i in range(TEAMS)]
        for t in threads:
            t.start()
        assert full.wait(WAIT)  # as many recording as there are turns ...
        board = httpx.get(base + BOARD, timeout=WAIT, trust_env=False)  # ... and reads answer
        assert board.status_code == 200 and board.json()["rows"] == []
        release.set()
        for t in threads:
            t.join(WAIT * 2)
    assert most == turns  # never more at once
    assert [a.status_code for a in answers] == [201] * TEAMS, [a.text for a in answers]
    answer = client.get(BOARD).json()
    rows, column = answer["rows"], answer["columns"].index("mc30")
    assert len(rows) == TEAMS
    assert len(list((tmp_path / "srv" / "files" / "submissions").iterdir())) == TEAMS
    truth = [g for *_, g in mc30]
    cells = sorted(round(r[column], 9) for r in rows)
    expected = sorted(round(spearmanr(truth, scores)[0], 9) for _, scores in sent)
    assert cells == expected
    server.db.dispose()


def test_a_slow_client_holds_no_turn(tmp_path: Path, serve_db: str, mc30) -> None:
    """Clients that send half a body and stall (more of them than there are turns) hold no
    turn: another team's upload is scored meanwhile."""
    import socket

    from simeval.serve.routers.web import RECORDING_BEYOND_SCORERS

    server = make_server(serve_db, tmp_path / "srv", Clock(OPENS + timedelta(days=1)))
    client = server.client
    slow = [register(client, f"slow{i}") for i in range(2 + RECORDING_BEYOND_SCORERS)]
    fast = register(client, "fast")
    data, scores = pair_file(mc30, 3)
    stalled = []
    with live(server.app) as base:
        port = int(base.rsplit(":", 1)[1])
        for token in slow:  # headers and the first half of the body, then nothing
            s = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
            head = (
                "POST /api/phases/trial/submissions?filename=run.csv&target=mc30 HTTP/1.1\r\n"
                f"host: 127.0.0.1\r\nauthorization: Bearer {token}\r\n"
                f"content-length: {len(data)}\r\n\r\n"
            )
            s.sendall(head.encode() + data[: len(data) // 2])
            stalled.append(s)
        answer = httpx.post(
            f"{base}/api/phases/trial/submissions",
            params={"filename": "run.csv", "target": "mc30"},
            content=data,
            headers={"authorization": f"Bearer {fast}"},
            timeout=WAIT,
            trust_env=False,
        )
        for s in stalled:
            s.close()
    assert answer.status_code == 201, answer.text
    truth = [g for *_, g in mc30]
    rho = answer.json()["results"][0]["metrics"]["spearman"]
    assert rho == pytest.approx(spearmanr(truth, scores)[0], abs=1e-12)
    server.db.dispose()
