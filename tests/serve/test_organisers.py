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


@pytest.fixture
def srv(tmp_path: Path):
    clock = Clock(OPENS + timedelta(days=1))
    server = make_server(f"sqlite:///{tmp_path / 'serve.db'}", tmp_path, clock)
    yield server, clock
    server.db.dispose()


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
    with pytest.raises(InputError, match="closed at .* already"):
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


def test_a_published_phase_is_not_reopened_until_unpublished(srv) -> None:
    from simeval.serve.service.editing import PhaseEdit, edit_phase, publish, unpublish
    from simeval.serve.service.organisers import audit_log

    server, clock = srv
    clock.now = TEST_END + timedelta(hours=1)
    publish(server.db, "lex25", "test", clock.now)
    later = PhaseEdit(deadline=(TEST_END + timedelta(days=1)).isoformat())
    with pytest.raises(InputError, match="unpublish it before reopening"):
        edit_phase(server.db, "lex25", "test", later, clock.now, "cli")
    unpublish(server.db, "lex25", "test", clock.now)
    assert "deadline" in edit_phase(server.db, "lex25", "test", later, clock.now, "cli")
    assert [e.action for e in audit_log(server.db)] == ["edit phase", "unpublish", "publish"]
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
    assert "deadline: 2025-02-10T00:00:00Z -> 2031-01-01T00:00:00Z" in text and "runs: 3 -> 5" in text
    code, text = run_cli("serve", "phase", str(tmp_path), "-c", "lex25", "-p", "test",
                         "--runs", "0")  # fmt: skip
    assert code == 2 and "expected a whole number" in text
    code, text = run_cli("serve", "registration", str(tmp_path), "-c", "lex25", "--set", "closed")
    assert code == 0
    code, text = run_cli("serve", "audit", str(tmp_path), "-c", "lex25")
    lines = text.strip().splitlines()
    assert code == 0 and len(lines) == 2
    assert "command line  registration" in lines[0] and '"closed"' in lines[0]
    assert "command line  edit phase" in lines[1] and '"2031-01-01T00:00:00Z"' in lines[1]
    code, text = run_cli("serve", "audit", str(tmp_path))  # every entry: the account too
    assert "add organiser" in text
    code, text = run_cli("serve", "organiser", "revoke", str(tmp_path), "Ada")
    code, text = run_cli("serve", "organiser", "list", str(tmp_path))
    assert "Ada  revoked" in text
