"""Organiser accounts, phase edits and the audit log (issue 32): every change is checked,
written with its values before and after, and the server enforces the new window at once."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from serve_kit import (
    OPENS,
    TEST_END,
    TEST_OPENS,
    TRIAL_END,
    Clock,
    make_server,
    pair_file,
    register,
    upload,
    yp130_pairs,
)
from simeval.errors import InputError

pytest.importorskip("fastapi")


@pytest.fixture
def run_cli():
    from typer.testing import CliRunner

    from simeval.cli import app

    def run(*args: str) -> tuple[int, str]:
        r = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
        return r.exit_code, r.output

    return run


def test_an_organiser_token_is_shown_once_stored_hashed_and_revocable(srv) -> None:
    from sqlalchemy import text

    from simeval.serve.service.organisers import OrganiserTokens, add_organiser, revoke_organiser

    server, clock = srv
    token = add_organiser(server.db, "Ada", clock.now)
    assert token.startswith("so_")
    with server.db.reading() as s:
        stored = " ".join(str(v) for row in s.execute(text("select * from organiser")) for v in row)
    assert token.split("_", 2)[2] not in stored  # the secret is nowhere in the row
    tokens = OrganiserTokens(server.db)
    assert tokens.verify(token, tokens.row(token)).name == "Ada"
    assert tokens.cached(token).name == "Ada"
    wrong = token[:-4] + ("aaaa" if not token.endswith("aaaa") else "bbbb")
    assert tokens.verify(wrong, tokens.row(wrong)) is None
    team_token = register(server.client, "alpha")  # a team's token is not an organiser's
    assert tokens.row(team_token) is None
    with pytest.raises(InputError, match="exists already"):
        add_organiser(server.db, "Ada", clock.now)
    revoke_organiser(server.db, "Ada", clock.now)
    assert tokens.cached(token) is None  # revoked: the cache no longer answers
    assert tokens.verify(token, tokens.row(token)) is None


def test_extending_a_deadline_lets_a_late_upload_in_and_is_audited(srv, data_dir) -> None:
    from simeval.serve.service.editing import PhaseEdit, edit_phase
    from simeval.serve.service.organisers import audit_log

    server, clock = srv
    token = register(server.client, "alpha")
    data = pair_file(yp130_pairs(data_dir), 1)[0]
    clock.now = TEST_END + timedelta(hours=1)  # after the test phase's deadline
    assert upload(server.client, token, data, phase="test").status_code == 403
    new_deadline = TEST_END + timedelta(days=2)
    changed = edit_phase(server.db, "lex25", "test", PhaseEdit(deadline=new_deadline.isoformat()),
                         clock.now, "organiser:Ada")  # fmt: skip
    assert changed == {"deadline": ("2025-02-10T00:00:00Z", "2025-02-12T00:00:00Z")}
    assert upload(server.client, token, data, phase="test").status_code == 201
    entry = audit_log(server.db)[0]
    assert (entry.actor, entry.action) == ("organiser:Ada", "edit phase")
    assert entry.detail == {
        "phase": "test",
        "changes": {"deadline": ["2025-02-10T00:00:00Z", "2025-02-12T00:00:00Z"]},
    }
    # the same edit again changes nothing and writes nothing
    assert edit_phase(server.db, "lex25", "test", PhaseEdit(deadline=new_deadline.isoformat()),
                      clock.now, "organiser:Ada") == {}  # fmt: skip
    assert len(audit_log(server.db)) == 1


def test_closing_early_refuses_the_next_upload(srv, mc30) -> None:
    from simeval.serve.service.editing import PhaseEdit, edit_phase

    server, clock = srv
    token = register(server.client, "alpha")
    data = pair_file(mc30, 1)[0]
    assert upload(server.client, token, data, target="mc30").status_code == 201
    changed = edit_phase(server.db, "lex25", "trial", PhaseEdit(close=True), clock.now, "cli")
    assert list(changed) == ["deadline"]
    clock.now += timedelta(seconds=1)  # the deadline itself is still on time
    assert upload(server.client, token, data, target="mc30").status_code == 403
    with pytest.raises(InputError, match=r"closed at .* already"):
        edit_phase(server.db, "lex25", "trial", PhaseEdit(close=True), clock.now, "cli")


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ({"deadline": "2024-12-01T00:00:00Z"}, "deadline must come after the opening"),
        ({"deadline": "2025-03-01T00:00:00"}, "give a time with its zone"),
        ({"deadline": "tomorrow"}, "not a time"),
        ({"runs": 0}, "expected a whole number"),
        ({"max_bytes": 2**31}, "expected a whole number"),
        ({"runs": True}, "expected a whole number"),
        ({"opens": "2024-12-01T00:00:00Z"}, "its opening stays"),
        ({"close": True, "deadline": "2025-03-01T00:00:00Z"}, "not both"),
    ],
)
def test_a_wrong_edit_is_refused_and_changes_nothing(srv, edit: dict, message: str) -> None:
    from simeval.serve.service.editing import PhaseEdit, edit_phase
    from simeval.serve.service.organisers import audit_log

    server, clock = srv
    with pytest.raises(InputError, match=message):
        edit_phase(server.db, "lex25", "trial", PhaseEdit(**edit), clock.now, "cli")
    with server.db.reading() as s:
        from simeval.serve.db.models import Phase

        trial = s.query(Phase).filter_by(name="trial").one()
        assert (trial.deadline, trial.runs, trial.max_bytes) == (
            TRIAL_END.replace(tzinfo=None), 2, 100_000)  # fmt: skip
    assert audit_log(server.db) == []


def test_a_published_phase_is_reopened_only_unpublished_and_with_a_reason(srv) -> None:
    """Its scores were shown: unpublishing hides them again but does not make them unseen,
    so reopening it takes a reason, audited and said on its board."""
    from simeval.serve.service.editing import PhaseEdit, edit_phase, publish, unpublish
    from simeval.serve.service.organisers import audit_log

    server, clock = srv
    clock.now = TEST_END + timedelta(hours=1)
    publish(server.db, "lex25", "test", clock.now)
    later = PhaseEdit(deadline=(TEST_END + timedelta(days=1)).isoformat())
    with pytest.raises(InputError, match="unpublish it before reopening"):
        edit_phase(server.db, "lex25", "test", later, clock.now, "cli")
    unpublish(server.db, "lex25", "test", clock.now)
    with pytest.raises(InputError, match="its scores were published"):
        edit_phase(server.db, "lex25", "test", later, clock.now, "cli")
    reason = PhaseEdit(deadline=later.deadline, reopen_reason="gold corrected")
    assert "deadline" in edit_phase(server.db, "lex25", "test", reason, clock.now, "cli")
    assert [e.action for e in audit_log(server.db)] == ["reopen", "unpublish", "publish"]
    page = server.client.get("/campaigns/lex25/phases/test").text
    assert "reopened after its scores were published, by the organisers: gold corrected" in page
    assert TEST_OPENS < TEST_END  # the kit's phases as this test reads them


def test_the_commands_edit_list_and_print_the_log(tmp_path: Path, run_cli) -> None:
    server = make_server(f"sqlite:///{tmp_path / 'serve.db'}", tmp_path, Clock(OPENS))
    server.db.dispose()
    code, text = run_cli("serve", "organiser", "add", str(tmp_path), "Ada")
    assert code == 0 and text.strip().startswith("so_")
    code, text = run_cli("serve", "organiser", "list", str(tmp_path))
    assert code == 0 and "Ada  active" in text
    code, text = run_cli("serve", "phase", str(tmp_path), "-c", "lex25", "-p", "test",
                         "--deadline", "2031-01-01T00:00:00Z", "--runs", "5")  # fmt: skip
    assert code == 0, text
    assert (
        "deadline: 2025-02-10T00:00:00Z -> 2031-01-01T00:00:00Z" in text and "runs: 3 -> 5" in text
    )
    code, text = run_cli("serve", "phase", str(tmp_path), "-c", "lex25", "-p", "test",
                         "--runs", "0")  # fmt: skip
    assert code == 2 and "expected a whole number" in text
    code, text = run_cli("serve", "registration", str(tmp_path), "-c", "lex25", "--set", "closed")
    assert code == 0
    code, text = run_cli("serve", "audit", str(tmp_path), "-c", "lex25")
    lines = text.strip().splitlines()
    assert code == 0 and len(lines) == 2
    assert "command line  registration  state open → closed" in lines[0]
    assert (
        "edit phase  phase test: deadline 2025-02-10T00:00:00Z → 2031-01-01T00:00:00Z" in lines[1]
    )
    code, text = run_cli("serve", "audit", str(tmp_path))  # every entry: the account too
    assert "add organiser" in text
    code, text = run_cli("serve", "organiser", "revoke", str(tmp_path), "Ada")
    code, text = run_cli("serve", "organiser", "list", str(tmp_path))
    assert "Ada  revoked" in text


def _console(server, token: str | None = None) -> str:
    """Sign in on the console with ``token`` (when given); the CSRF value of its forms."""
    from serve_kit import page_csrf

    csrf = page_csrf(server.client, "/organiser")
    if token is not None:
        r = server.client.post("/organiser/login", data={"csrf": csrf, "token": token},
                               follow_redirects=False)  # fmt: skip
        assert r.status_code == 303, r.text
        csrf = page_csrf(server.client, "/organiser")  # the value is bound to the new session
    return csrf


def test_the_console_extends_closes_and_publishes_with_an_audit_trail(srv) -> None:
    from simeval.serve.service.organisers import add_organiser

    server, clock = srv
    client = server.client
    assert "Organiser token" in client.get("/organiser").text  # signed out: the sign-in form
    assert client.get("/organiser/campaigns/lex25").status_code == 401
    team = register(client, "alpha")
    csrf = _console(server)
    r = client.post("/organiser/login", data={"csrf": csrf, "token": team})
    assert r.status_code == 401  # a team's token is not an organiser's
    csrf = _console(server, add_organiser(server.db, "Ada", clock.now))
    home = client.get("/organiser").text
    assert "lex25" in home and "trial: open, 0 scored run(s)" in home
    page = client.get("/organiser/campaigns/lex25").text
    assert "No change since the campaign was created." in page and "Close now" in page

    base = "/organiser/campaigns/lex25/phases"
    edit = {"csrf": csrf, "action": "save", "deadline": "2025-03-01T00:00:00Z", "runs": "4"}
    r = client.post(f"{base}/trial", data=edit)
    assert r.status_code == 200, r.text
    assert (
        "deadline 2025-02-01T00:00:00Z → 2025-03-01T00:00:00Z" in r.text and "runs 2 → 4" in r.text
    )
    assert "organiser:Ada" in r.text  # the audit log on the same page
    r = client.post(f"{base}/trial", data={"csrf": csrf, "action": "save", "runs": "zero"})
    assert r.status_code == 200 and "expected a whole number" in r.text  # in the phase's form
    r = client.post(f"{base}/trial", data={"csrf": "forged", "action": "close"})
    assert r.status_code == 403
    r = client.post(f"{base}/trial", data={"csrf": csrf, "action": "close", "confirm": "yes"})
    assert r.status_code == 200 and "trial: deadline" in r.text
    clock.now = TEST_END + timedelta(minutes=5)
    r = client.post(f"{base}/test", data={"csrf": csrf, "action": "publish", "confirm": "yes"})
    assert r.status_code == 200 and "test: published" in r.text
    board = client.get("/api/campaigns/lex25/phases/test/leaderboard").json()
    assert not board["hidden"]
    r = client.post("/organiser/campaigns/lex25/registration",
                    data={"csrf": csrf, "state": "closed", "max_teams": "0"})  # fmt: skip
    assert r.status_code == 200 and "registration closed, no cap" in r.text
    r = client.post("/api/campaigns/lex25/teams", json={"team": "beta"})
    assert r.status_code == 403  # registration is closed for teams at once
    from simeval.serve.service.organisers import audit_log

    actions = [(e.actor, e.action) for e in audit_log(server.db, 1)]
    assert actions == [("organiser:Ada", a) for a in
                       ("registration", "publish", "edit phase", "edit phase")]  # fmt: skip


def test_a_revoked_organiser_is_signed_out_at_once(srv) -> None:
    from simeval.serve.service.organisers import add_organiser, revoke_organiser

    server, clock = srv
    _console(server, add_organiser(server.db, "Ada", clock.now))
    assert server.client.get("/organiser/campaigns/lex25").status_code == 200
    revoke_organiser(server.db, "Ada", clock.now)
    assert server.client.get("/organiser/campaigns/lex25").status_code == 401


def test_console_pages_escape_what_a_campaign_holds(tmp_path: Path) -> None:
    from serve_kit import campaign_toml, phase_toml
    from simeval.serve.service.organisers import add_organiser

    title = "<script>alert(1)</script>"
    clock = Clock(OPENS)
    campaign = campaign_toml("x1", phase_toml("trial", ["mc30"]), title=title)
    server = make_server(f"sqlite:///{tmp_path / 'serve.db'}", tmp_path, clock, campaign)
    _console(server, add_organiser(server.db, "Ada", clock.now))
    for path in ("/organiser", "/organiser/campaigns/x1"):
        text = server.client.get(path).text
        assert "<script>alert" not in text and "&lt;script&gt;" in text, path
    server.db.dispose()


def test_a_disqualified_run_is_kept_listed_with_its_reason_and_ranked_nowhere(srv, mc30, tmp_path):
    """alpha's run 1 beats beta's; disqualified, it leaves the live board (beta ranks 1), is
    listed with its reason, still counts against alpha's runs, is marked in the export's
    submissions.csv and left out of its final table; reinstated, it ranks again."""
    import csv

    from scipy.stats import spearmanr

    from simeval.serve.service.editing import exclude_run, reinstate_run
    from simeval.serve.service.export import export

    server, clock = srv
    client = server.client
    gold_scores = [g for *_, g in mc30]
    best = "word1,word2,sim\n" + "".join(f"{a},{b},{g}\n" for a, b, g in mc30)
    noisy, noisy_scores = pair_file(mc30, 3)
    alpha, beta = register(client, "alpha"), register(client, "beta")
    assert upload(client, alpha, best.encode(), target="mc30").status_code == 201
    assert upload(client, beta, noisy, target="mc30").status_code == 201
    board = client.get("/api/campaigns/lex25/phases/trial/leaderboard").json()
    assert [row[1] for row in board["rows"]] == ["alpha run 1", "beta run 1"]
    with pytest.raises(InputError, match="give a reason"):
        exclude_run(server.db, "lex25", "trial", "alpha", 1, "disqualified", "  ", clock.now)
    with pytest.raises(InputError, match="no scored run 2"):
        exclude_run(server.db, "lex25", "trial", "alpha", 2, "disqualified", "x", clock.now)
    exclude_run(server.db, "lex25", "trial", "alpha", 1, "disqualified", "used the gold",
                clock.now)  # fmt: skip
    board = client.get("/api/campaigns/lex25/phases/trial/leaderboard").json()
    assert [row[1] for row in board["rows"]] == ["beta run 1"]
    mc30_column = board["columns"].index("mc30")
    expected = spearmanr(gold_scores, noisy_scores)[0]
    assert board["rows"][0][mc30_column] == pytest.approx(expected, abs=1e-12)
    assert board["excluded"] == [
        {"system": "alpha run 1", "target": None, "kind": "disqualified", "reason": "used the gold"}
    ]
    page = client.get("/campaigns/lex25/phases/trial").text
    assert "Not ranked" in page and "used the gold" in page
    r = upload(client, alpha, best.encode(), target="mc30")
    assert r.status_code == 201 and r.json()["run"] == 2  # run 1 still counts
    written = export(server.db, server.app.state.service.storage, "lex25", tmp_path / "export")
    assert written
    rows = list(csv.DictReader((tmp_path / "export" / "submissions.csv").open()))
    marks = {(r["team"], r["run"]): (r["excluded"], r["excluded_reason"]) for r in rows}
    assert marks[("alpha", "1")] == ("disqualified", "used the gold")
    assert marks[("alpha", "2")] == ("", "") and marks[("beta", "1")] == ("", "")
    final = (tmp_path / "export" / "trial" / "leaderboard.csv").read_text()
    assert "alpha run 1" not in final and "alpha run 2" in final
    reinstate_run(server.db, "lex25", "trial", "alpha", 1, clock.now)
    board = client.get("/api/campaigns/lex25/phases/trial/leaderboard").json()
    assert "alpha run 1" in [row[1] for row in board["rows"]] and board["excluded"] == []


def test_the_console_lists_filters_and_disqualifies(srv, mc30) -> None:
    from simeval.serve.service.organisers import add_organiser, audit_log

    server, clock = srv
    client = server.client
    alpha, beta = register(client, "alpha"), register(client, "beta")
    assert upload(client, alpha, pair_file(mc30, 1)[0], target="mc30").status_code == 201
    assert upload(client, beta, pair_file(mc30, 2)[0], target="mc30").status_code == 201
    assert (
        upload(client, beta, b"word1,word2,sim\ncar,automobile,x\n", target="mc30").status_code
        == 422
    )
    csrf = _console(server, add_organiser(server.db, "Ada", clock.now))
    page = client.get("/organiser/campaigns/lex25/submissions").text
    assert "3 submission(s)" in page
    page = client.get("/organiser/campaigns/lex25/submissions?team=beta&status=rejected").text
    assert "1 submission(s)" in page and "rejected" in page and "alpha" not in page
    assert client.get("/organiser/campaigns/nope/submissions").status_code == 404
    runs = "/organiser/campaigns/lex25/phases/trial/runs"
    data = {"csrf": csrf, "action": "disqualify", "team": "beta", "run": "1", "reason": "late"}
    r = client.post(runs, data=data)
    assert r.status_code == 200 and "beta run 1: disqualified" in r.text and "Rank again" in r.text
    board = client.get("/api/campaigns/lex25/phases/trial/leaderboard").json()
    assert [row[1] for row in board["rows"]] == ["alpha run 1"]
    page = client.get("/organiser/campaigns/lex25/submissions?team=beta").text
    assert "disqualified: late" in page
    r = client.post(runs, data={"csrf": csrf, "action": "reinstate", "system": "beta run 1"})
    assert r.status_code == 200 and "beta run 1: ranked again" in r.text
    r = client.post(runs, data={**data, "team": "gamma"})
    assert r.status_code == 422 and "no team" in r.text and "gamma" in r.text
    assert [e.action for e in audit_log(server.db, 1)] == ["reinstate", "disqualify"]
