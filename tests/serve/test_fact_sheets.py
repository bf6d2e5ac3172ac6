"""Fact sheets (issue 32, item 3): a team describes its system for a phase on its page or by
the API; the export holds them (anonymised with the rest); they close once a hidden phase is
published, or a week after a visible phase's deadline."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from serve_kit import TEST_END, TRIAL_END, page_csrf, register


def test_a_team_writes_its_fact_sheet_and_the_export_holds_it(srv, tmp_path: Path) -> None:
    from simeval.serve.service.campaigns import export
    from simeval.serve.service.editing import publish

    server, clock = srv
    client = server.client
    token = register(client, "alpha")
    auth = {"authorization": f"Bearer {token}"}
    sheet = "Cosine of **alpha**'s own word2vec, trained on ruwiki."
    r = client.put("/api/phases/test/factsheet", json={"text": sheet}, headers=auth)
    assert r.status_code == 200 and r.json()["text"] == sheet
    assert client.get("/api/phases/test/factsheet", headers=auth).json()["text"] == sheet
    assert client.put("/api/phases/test/factsheet", json={"x": 1}, headers=auth).status_code == 422
    assert client.put("/api/phases/test/factsheet", json={"text": "x"}).status_code == 401
    too_long = {"text": "x" * 20_001}
    assert client.put("/api/phases/test/factsheet", json=too_long, headers=auth).status_code == 422
    client.post("/login", data={"csrf": page_csrf(client), "token": token})
    mine = client.get("/mine").text
    assert "Fact sheets" in mine and "own word2vec" in mine
    r = client.post("/campaigns/lex25/phases/trial/factsheet",
                    data={"csrf": page_csrf(client, "/mine"), "text": "Prefix overlap."},
                    follow_redirects=False)  # fmt: skip
    assert r.status_code == 303
    clock.now = TEST_END + timedelta(hours=1)
    publish(server.db, "lex25", "test", clock.now)
    r = client.put("/api/phases/test/factsheet", json={"text": "late"}, headers=auth)
    assert r.status_code == 403 and "closed" in r.json()["error"]
    storage = server.app.state.service.storage
    export(server.db, storage, "lex25", tmp_path / "out")
    text = (tmp_path / "out" / "test" / "factsheets.md").read_text()
    assert "## alpha" in text and "own word2vec" in text
    assert "Prefix overlap." in (tmp_path / "out" / "trial" / "factsheets.md").read_text()
    export(server.db, storage, "lex25", tmp_path / "anon", anonymise=True)
    hidden = (tmp_path / "anon" / "test" / "factsheets.md").read_text()
    assert "alpha" not in hidden.lower() and "team-01" in hidden  # its own name too


def test_a_visible_phase_keeps_its_fact_sheets_open_for_a_week(srv) -> None:
    server, clock = srv
    token = register(server.client, "beta")
    auth = {"authorization": f"Bearer {token}"}
    clock.now = TRIAL_END + timedelta(days=6)
    r = server.client.put("/api/phases/trial/factsheet", json={"text": "ok"}, headers=auth)
    assert r.status_code == 200
    clock.now = TRIAL_END + timedelta(days=8)
    r = server.client.put("/api/phases/trial/factsheet", json={"text": "no"}, headers=auth)
    assert r.status_code == 403
