"""Re-scoring a campaign after an upgrade (issue 32): every stored submission scored again
from its bytes; a dry run changes nothing; applied, the board shows today's scores, the old
ones stay in the history and the change is audited. The "old scorer" is simulated by writing
a wrong score into a submission's stored records, as an earlier simeval might have."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from scipy.stats import spearmanr

from serve_kit import OPENS, Clock, make_server, pair_file, register, upload

pytest.importorskip("fastapi")


def _tamper(server, submission_id: str, wrong: float) -> None:
    """Write ``wrong`` as the mc30 Spearman of a submission: in its store file and the row."""
    from simeval.serve.db.models import Submission

    service = server.app.state.service
    service.board_tiers.settle()  # no board built from the rows as they were is kept after
    with server.db.session() as s:
        row = s.get(Submission, submission_id)
        path = service.storage.root / row.results_file
        records = [json.loads(line) for line in path.read_text().splitlines() if line]
        for r in records:
            r["metrics"]["spearman"] = wrong
            r["versions"]["simeval"] = "0.0.1-old"
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
        row.results = records
    # a change behind the server's back: a board built since the upload (its tiers' refresh,
    # settled above, builds one at once) is stale, and so are the records it kept
    service.boards.clear()


def test_rescore_shows_what_moved_and_applied_restores_todays_scores(srv, mc30) -> None:
    from simeval.serve.service.organisers import audit_log
    from simeval.serve.service.rescoring import history, rescore_campaign

    server, clock = srv
    client, service = server.client, server.app.state.service
    gold = [g for *_, g in mc30]
    data, scores = pair_file(mc30, 5)
    token = register(client, "alpha")
    first = upload(client, token, data, target="mc30").json()
    other = upload(client, register(client, "beta"), pair_file(mc30, 6)[0], target="mc30")
    assert other.status_code == 201
    truth = spearmanr(gold, scores)[0]
    _tamper(server, first["id"], 0.5)
    board = client.get("/api/campaigns/lex25/phases/trial/leaderboard").json()
    column = board["columns"].index("mc30")
    shown = {row[1]: row[column] for row in board["rows"]}
    assert shown["alpha run 1"] == 0.5  # the old scorer's number, on the board

    dry = rescore_campaign(service, "lex25", clock.now, "organiser:Ada", False, "upgrade")
    assert dry.submissions == 2 and not dry.refused
    assert [(c.system, c.benchmark, c.before) for c in dry.moved] == [("alpha run 1", "mc30", 0.5)]
    assert dry.moved[0].after == pytest.approx(truth, abs=1e-12)
    board = client.get("/api/campaigns/lex25/phases/trial/leaderboard").json()
    assert {row[1]: row[column] for row in board["rows"]}["alpha run 1"] == 0.5  # unchanged
    assert audit_log(server.db) == []
    rescored = service.storage.folder(first["id"]) / "rescored"
    assert not any(rescored.iterdir())  # the dry run left no scratch folder

    done = rescore_campaign(service, "lex25", clock.now, "organiser:Ada", True, "upgrade")
    assert len(done.moved) == 1
    board = client.get("/api/campaigns/lex25/phases/trial/leaderboard").json()
    assert {row[1]: row[column] for row in board["rows"]}["alpha run 1"] == pytest.approx(
        truth, abs=1e-12
    )
    old = history(server.db, first["id"])
    assert len(old) == 1 and old[0].reason == "upgrade" and old[0].actor == "organiser:Ada"
    assert old[0].results[0]["metrics"]["spearman"] == 0.5
    assert old[0].results[0]["versions"]["simeval"] == "0.0.1-old"
    assert (service.storage.root / old[0].results_file).is_file()  # the old file is kept
    import simeval

    mine = client.get("/api/submissions", headers={"authorization": f"Bearer {token}"}).json()
    assert mine[0]["results"][0]["score"] == pytest.approx(truth, abs=1e-12)
    from simeval.serve.db.models import Submission

    with server.db.reading() as s:
        record = s.get(Submission, first["id"]).results[0]
    assert record["versions"]["simeval"] == simeval.__version__
    assert any(path.endswith("EN-MC-30.txt") for path in record["data"])  # the gold's sha256
    entry = audit_log(server.db)[0]
    assert entry.action == "re-score"
    assert entry.detail == {"reason": "upgrade", "submissions": 2, "moved": 1, "refused": 0}
    again = rescore_campaign(service, "lex25", clock.now, "organiser:Ada", False, "check")
    assert again.moved == []  # today's scores, scored again, do not move


def test_the_rescore_command_dry_runs_then_applies(tmp_path: Path, mc30) -> None:
    from typer.testing import CliRunner

    from simeval.cli import app

    clock = Clock(OPENS + timedelta(days=1))
    server = make_server(f"sqlite:///{tmp_path / 'serve.db'}", tmp_path, clock)
    data, scores = pair_file(mc30, 7)
    sid = upload(server.client, register(server.client, "alpha"), data, target="mc30").json()["id"]
    _tamper(server, sid, 0.25)
    server.app.state.service.close()
    server.db.dispose()
    server.app.state.lock.release()
    server.app.state.db_lock.release()
    truth = spearmanr([g for *_, g in mc30], scores)[0]
    dry = CliRunner().invoke(app, ["serve", "rescore", str(tmp_path), "-c", "lex25"],
                             env={"COLUMNS": "200"})  # fmt: skip
    assert dry.exit_code == 0, dry.output
    assert f"alpha run 1  mc30  mc30  spearman  0.250000 -> {truth:.6f}" in dry.output
    assert "would re-score (dry run; --apply keeps it): 1 submission(s), 1 score(s) moved" in (
        dry.output
    )
    applied = CliRunner().invoke(
        app, ["serve", "rescore", str(tmp_path), "-c", "lex25", "--apply"], env={"COLUMNS": "200"}
    )
    assert applied.exit_code == 0 and "re-scored: 1 submission(s), 1 score(s) moved" in (
        applied.output
    )
    again = CliRunner().invoke(app, ["serve", "rescore", str(tmp_path), "-c", "lex25"],
                               env={"COLUMNS": "200"})  # fmt: skip
    assert "0 score(s) moved" in again.output


def test_the_console_rescores_with_a_dry_run_first(srv, mc30) -> None:
    from serve_kit import page_csrf
    from simeval.serve.service.organisers import add_organiser

    server, clock = srv
    client = server.client
    data, scores = pair_file(mc30, 8)
    sid = upload(client, register(client, "alpha"), data, target="mc30").json()["id"]
    _tamper(server, sid, 0.125)
    token = add_organiser(server.db, "Ada", clock.now)
    csrf = page_csrf(client, "/organiser")
    client.post("/organiser/login", data={"csrf": csrf, "token": token})
    csrf = page_csrf(client, "/organiser/campaigns/lex25")
    assert "Re-score all" in client.get("/organiser/campaigns/lex25").text
    r = client.post("/organiser/campaigns/lex25/rescore", data={"csrf": csrf, "action": "dry"})
    truth = spearmanr([g for *_, g in mc30], scores)[0]
    assert r.status_code == 200 and "Would re-score" in r.text and "0.125000" in r.text
    assert f"{truth:.6f}" in r.text and "Apply: keep the new scores" in r.text
    r = client.post("/organiser/campaigns/lex25/rescore",
                    data={"csrf": csrf, "action": "apply", "reason": "simeval 0.9"})  # fmt: skip
    assert r.status_code == 200 and "Re-scored: 1 submission(s), 1 score(s) moved" in r.text
    page = client.get("/organiser/campaigns/lex25").text
    assert "re-score" in page and "simeval 0.9" in page  # the audit log
