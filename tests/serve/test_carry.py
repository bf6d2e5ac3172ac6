"""Carrying runs of one phase into the next (issue 32, Codabench's auto_migrate_to_this_phase,
on the organiser's request): new submissions of the next phase scored again from the stored
bytes, run numbers continuing its own, counted against its limits (what exceeds them refused
and named), audited, and marked "carried from" on the team's page. Expected scores are
scipy's over the uploaded files, never the server's."""

from __future__ import annotations

import html
from datetime import timedelta
from pathlib import Path

import pytest
from scipy.stats import spearmanr

from serve_kit import (
    OPENS,
    TRIAL_END,
    Clock,
    campaign_toml,
    make_server,
    page_csrf,
    pair_file,
    phase_toml,
    register,
    upload,
)

pytest.importorskip("fastapi")
CAMPAIGN = campaign_toml(
    "relay",
    phase_toml("trial", ["mc30", "rg65"], runs=3),
    phase_toml("final", ["mc30"], TRIAL_END, TRIAL_END + timedelta(days=10), runs=2),
)


@pytest.fixture
def relay(tmp_path: Path, serve_db: str):
    clock = Clock(OPENS + timedelta(days=1))
    server = make_server(serve_db, tmp_path / "srv", clock, CAMPAIGN)
    yield server, clock
    server.db.dispose()


def _rows(server, phase: str) -> list:
    from sqlalchemy import select

    from simeval.serve.db.models import Phase, Submission, Team

    with server.db.reading() as s:
        return s.execute(
            select(Team.name, Submission)
            .join(Team, Submission.team_id == Team.id)
            .join(Phase, Submission.phase_id == Phase.id)
            .where(Phase.name == phase)
            .order_by(Team.name, Submission.target, Submission.run)
        ).all()


def _console(server, clock) -> str:
    from simeval.serve.service.organisers import add_organiser

    token = add_organiser(server.db, "Ada", clock.now)
    csrf = page_csrf(server.client, "/organiser")
    r = server.client.post("/organiser/login", data={"csrf": csrf, "token": token},
                           follow_redirects=False)  # fmt: skip
    assert r.status_code == 303
    return page_csrf(server.client, "/organiser")


def test_every_teams_runs_are_carried_rescored_and_limited(relay, mc30, rg65) -> None:
    from simeval.serve.service.organisers import audit_log

    server, clock = relay
    client = server.client
    truth = [g for _, _, g in mc30]
    expected = {}
    alpha, beta = register(client, "alpha", "relay"), register(client, "beta", "relay")
    for team, token, seeds in (("alpha", alpha, (1, 2, 3)), ("beta", beta, (4,))):
        for seed in seeds:
            data, scores = pair_file(mc30, seed)
            assert upload(client, token, data, target="mc30").status_code == 201
            expected[(team, seed)] = spearmanr(truth, scores).statistic
    assert upload(client, alpha, pair_file(rg65, 9)[0], target="rg65").status_code == 201
    before = {(team, sub.target, sub.run): sub for team, sub in _rows(server, "trial")}

    csrf = _console(server, clock)
    page = client.get("/organiser/campaigns/relay").text
    assert "Carry runs into final" in page
    r = client.post("/organiser/campaigns/relay/phases/final/carry",
                    data={"csrf": csrf, "source": "trial", "team": ""})  # fmt: skip
    assert r.status_code == 200, r.text
    text = html.unescape(r.text)
    assert "final: 3 run(s) carried from trial" in text
    # final allows 2 runs: alpha's third is refused, and named
    assert "alpha run 3 mc30: no runs left: 2 of 2 used on mc30 in final" in text

    carried = {(team, sub.run): sub for team, sub in _rows(server, "final")}
    assert sorted(carried) == [("alpha", 1), ("alpha", 2), ("beta", 1)]
    for (team, run), sub in carried.items():
        source = before[(team, "mc30", run)]
        assert sub.carried_from == source.id and sub.id != source.id
        assert sub.target == "mc30" and sub.sha256 == source.sha256
        stored = server.files / "submissions"
        new, old = stored / sub.id / "upload", stored / source.id / "upload"
        assert new.read_bytes() == old.read_bytes()
        assert new.stat().st_ino == old.stat().st_ino  # the same bytes, linked, not copied
        seed = {("alpha", 1): 1, ("alpha", 2): 2, ("beta", 1): 4}[(team, run)]
        (record,) = sub.results
        assert record["metrics"]["spearman"] == pytest.approx(expected[(team, seed)], abs=1e-12)
    board = client.get("/api/campaigns/relay/phases/final/leaderboard").json()
    assert sorted(row[1] for row in board["rows"]) == ["alpha run 1", "alpha run 2", "beta run 1"]

    entry = audit_log(server.db)[0]
    assert (entry.actor, entry.action) == ("organiser:Ada", "carry")
    assert entry.detail["source"] == "trial" and entry.detail["team"] == "every team"
    assert entry.detail["carried"] == [
        "alpha run 1 mc30 → run 1", "alpha run 2 mc30 → run 2", "beta run 1 mc30 → run 1"
    ]  # fmt: skip

    # carried again: nothing twice
    r = client.post("/organiser/campaigns/relay/phases/final/carry",
                    data={"csrf": csrf, "source": "trial", "team": "beta"})  # fmt: skip
    assert "0 run(s) carried" in r.text and "beta run 1 mc30: carried into final already" in r.text

    # the team sees where its runs came from
    client.post("/organiser/logout", data={"csrf": csrf})
    client.post("/login", data={"csrf": page_csrf(client, "/campaigns/relay"), "token": beta})
    assert "carried from trial" in client.get("/mine").text
    mine = client.get("/api/submissions", headers={"authorization": f"Bearer {beta}"}).json()
    assert [v["carried_from"] for v in mine if v["phase"] == "final"] == [
        before[("beta", "mc30", 1)].id
    ]


def test_one_team_is_carried_and_its_disqualified_run_is_not(relay, mc30) -> None:
    from simeval.serve.service.carry import carry_runs
    from simeval.serve.service.editing import exclude_run

    server, clock = relay
    alpha = register(server.client, "alpha", "relay")
    beta = register(server.client, "beta", "relay")
    for token in (alpha, alpha, beta):
        assert upload(server.client, token, pair_file(mc30, 7)[0], target="mc30").status_code == 201
    exclude_run(server.db, "relay", "trial", "alpha", 1, "disqualified", "copied", clock.now)
    done = carry_runs(
        server.app.state.service, "relay", "trial", "final", "alpha", clock.now, "command line"
    )
    assert done.carried == ["alpha run 2 mc30 → run 1"]
    assert done.refused == ["alpha run 1 mc30: disqualified or withdrawn in trial"]
    assert [team for team, _ in _rows(server, "final")] == ["alpha"]


def test_a_carry_is_refused_with_its_reason(relay, mc30) -> None:
    from simeval.errors import InputError
    from simeval.serve.service.carry import carry_runs

    server, clock = relay
    service = server.app.state.service
    with pytest.raises(InputError, match="carry runs into another phase"):
        carry_runs(service, "relay", "trial", "trial", None, clock.now, "command line")
    with pytest.raises(InputError, match="'nobody' has no scored run in relay/trial"):
        carry_runs(service, "relay", "trial", "final", "nobody", clock.now, "command line")
    clock.now = TRIAL_END + timedelta(days=11)
    with pytest.raises(InputError, match="final closed at 2025-02-11 00:00 UTC: extend it first"):
        carry_runs(service, "relay", "trial", "final", None, clock.now, "command line")


def test_the_commands_carry_and_set_the_daily_limit_and_policy(tmp_path, serve_db, mc30) -> None:
    """The commands run on the real clock: phases around now."""
    from datetime import UTC, datetime

    from typer.testing import CliRunner

    from simeval.cli import app

    now = datetime.now(UTC).replace(microsecond=0)
    campaign = campaign_toml(
        "relay",
        phase_toml("trial", ["mc30"], now - timedelta(days=1), now + timedelta(days=5)),
        phase_toml("final", ["mc30"], now - timedelta(days=1), now + timedelta(days=9)),
    )
    clock = Clock(now)
    server = make_server(serve_db, tmp_path / "srv", clock, campaign)
    token = register(server.client, "alpha", "relay")
    assert upload(server.client, token, pair_file(mc30, 5)[0], target="mc30").status_code == 201
    folder, db = str(server.folder), ["--db", server.url]

    def run(*args: str):
        return CliRunner().invoke(app, ["serve", *args, *db], env={"COLUMNS": "200"})

    r = run("phase", folder, "-c", "relay", "-p", "final", "--per-day", "1", "--combine",
            "mean-rank")  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "per_day: None -> 1" in r.output and "combine: sum -> mean-rank" in r.output
    r = run("carry", folder, "-c", "relay", "--from", "trial", "-p", "final", "--team", "alpha")
    assert r.exit_code == 0, r.output
    assert "carried: alpha run 1 mc30 → run 1" in r.output
    assert "1 run(s) carried into final, 0 not" in r.output
    ((team, sub),) = _rows(server, "final")
    assert team == "alpha" and sub.run == 1 and sub.carried_from is not None
    r = run("carry", folder, "-c", "relay", "--from", "final", "-p", "final")
    assert r.exit_code == 2 and "final: carry runs into another phase" in r.output
    server.db.dispose()
