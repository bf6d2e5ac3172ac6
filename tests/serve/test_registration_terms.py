"""Registration that waits for the organiser, the campaign's terms accepted on registering,
and teams approved, revoked, renamed and given a new token from the console (issue 32)."""

from __future__ import annotations

import pytest

from serve_kit import page_csrf, pair_file, register, upload
from simeval.errors import InputError

pytest.importorskip("fastapi")


def _organiser(server, clock) -> str:
    from simeval.serve.service.organisers import add_organiser

    token = add_organiser(server.db, "Ada", clock.now)
    csrf = page_csrf(server.client, "/organiser")
    server.client.post("/organiser/login", data={"csrf": csrf, "token": token})
    return page_csrf(server.client, "/organiser/campaigns/lex25")


def test_a_team_waits_for_approval_then_uploads(srv, mc30) -> None:
    from simeval.serve.service.editing import set_registration, set_team_status

    server, clock = srv
    client = server.client
    set_registration(server.db, "lex25", "approval", now=clock.now)
    r = client.post("/api/campaigns/lex25/teams", json={"team": "alpha"})
    assert r.status_code == 201 and r.json()["status"] == "pending"
    token = r.json()["token"]
    data = pair_file(mc30, 1)[0]
    r = upload(client, token, data, target="mc30")
    assert r.status_code == 403 and "approval" in r.json()["error"]
    assert set_team_status(server.db, "lex25", "alpha", "approve", clock.now) == "approved"
    assert upload(client, token, data, target="mc30").status_code == 201
    set_team_status(server.db, "lex25", "alpha", "revoke", clock.now)
    r = upload(client, token, data, target="mc30")
    assert r.status_code == 403 and "revoked" in r.json()["error"]
    with pytest.raises(InputError, match="approve or revoke"):
        set_team_status(server.db, "lex25", "alpha", "ban", clock.now)


def test_terms_must_be_accepted_and_are_rendered_without_html(srv) -> None:
    from simeval.serve.service.editing import set_texts

    server, clock = srv
    client = server.client
    terms = "# Rules\n\nNo **test gold**. <script>alert(1)</script> [x](javascript:alert(1))"
    set_texts(server.db, "lex25", "Welcome to *lex25*.", terms, clock.now)
    r = client.post("/api/campaigns/lex25/teams", json={"team": "alpha"})
    assert r.status_code == 422 and "accept the terms" in r.json()["error"]
    r = client.post("/api/campaigns/lex25/teams", json={"team": "alpha", "accept_terms": True})
    assert r.status_code == 201 and r.json()["status"] == "approved"
    page = client.get("/campaigns/lex25").text
    assert "<em>lex25</em>" in page and "<strong>test gold</strong>" in page
    assert "<script>alert" not in page and "&lt;script&gt;" in page
    assert 'href="javascript:' not in page
    assert 'name="accept_terms"' in page and "required" in page
    csrf = page_csrf(client)
    r = client.post("/campaigns/lex25/register", data={"csrf": csrf, "team": "beta"})
    assert r.status_code == 422
    r = client.post("/campaigns/lex25/register",
                    data={"csrf": csrf, "team": "beta", "accept_terms": "yes"})  # fmt: skip
    assert r.status_code == 200 and "token" in r.text
    from simeval.serve.service.console import teams

    accepted = {t.name: t.terms_accepted for t in teams(server.db, 1)}
    assert accepted["alpha"] is not None and accepted["beta"] is not None


def test_the_console_approves_renames_and_resets_a_token(srv, mc30) -> None:
    from simeval.serve.service.editing import set_registration
    from simeval.serve.service.organisers import audit_log

    server, clock = srv
    client = server.client
    set_registration(server.db, "lex25", "approval", now=clock.now)
    token = client.post("/api/campaigns/lex25/teams", json={"team": "alpha"}).json()["token"]
    register(client, "beta")
    csrf = _organiser(server, clock)
    page = client.get("/organiser/campaigns/lex25").text
    assert "pending" in page and "Approve" in page
    teams_url = "/organiser/campaigns/lex25/teams"
    r = client.post(teams_url, data={"csrf": csrf, "team": "alpha", "action": "approve"})
    assert r.status_code == 200 and "alpha: approved" in r.text
    assert upload(client, token, pair_file(mc30, 1)[0], target="mc30").status_code == 201
    r = client.post(teams_url, data={"csrf": csrf, "team": "alpha", "action": "rename",
                                     "new_name": "Alpha-Lab"})  # fmt: skip
    assert r.status_code == 200 and "alpha is now Alpha-Lab" in r.text
    board = client.get("/api/campaigns/lex25/phases/trial/leaderboard").json()
    assert [row[1] for row in board["rows"]] == ["Alpha-Lab run 1"]
    r = client.post(teams_url, data={"csrf": csrf, "team": "beta", "action": "rename",
                                     "new_name": "ALPHA-LAB"})  # fmt: skip
    assert r.status_code == 422 and "taken" in r.text
    r = client.post(teams_url, data={"csrf": csrf, "team": "Alpha-Lab", "action": "reset",
                                     "confirm": "yes"})  # fmt: skip
    assert r.status_code == 200
    new = r.text.split('<code class="token">')[1].split("</code>")[0]
    assert new.startswith("st_") and new != token
    mine = "/api/submissions"
    assert client.get(mine, headers={"authorization": f"Bearer {token}"}).status_code == 401
    assert client.get(mine, headers={"authorization": f"Bearer {new}"}).status_code == 200
    r = client.post("/organiser/campaigns/lex25/texts",
                    data={"csrf": csrf, "description": "Hello", "terms": "Be fair."})  # fmt: skip
    assert r.status_code == 200 and "description and terms saved" in r.text
    actions = [e.action for e in audit_log(server.db, 1)]
    assert actions[:4] == ["edit texts", "reset token", "rename team", "approve"]
    assert new not in str([e.detail for e in audit_log(server.db)])  # the token is not logged
