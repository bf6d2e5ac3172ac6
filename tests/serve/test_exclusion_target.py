"""A run disqualified or withdrawn on one target of its phase (issue 46): its other targets'
cells stay on the board, scored as before; the excluded target's cell is empty and named in
the board's list of exclusions; a whole-run exclusion is as it was. Expected scores are
scipy's over the uploaded files, never the server's."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy.stats import spearmanr

from serve_kit import (
    OPENS,
    Clock,
    campaign_toml,
    make_server,
    pair_file,
    phase_toml,
    register,
    upload,
)
from simeval.errors import InputError

pytest.importorskip("fastapi")


def test_the_migration_keeps_an_exclusion_of_0013_a_whole_run_one(serve_db) -> None:
    """A database of schema 0013 with an exclusion row: after the upgrade the row holds no
    target (every target), and a second whole-run row of the same run is refused by the
    database while one row per target is allowed."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import MetaData, insert, select
    from sqlalchemy.exc import IntegrityError

    from simeval.serve.db import MIGRATIONS, Database

    db = Database(serve_db)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with db.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0013_organiser_admin")
    tables = MetaData()
    tables.reflect(db.engine)
    assert "target" not in tables.tables["exclusion"].c
    when = OPENS.replace(tzinfo=None)
    t = tables.tables
    with db.engine.begin() as c:
        c.execute(
            insert(t["campaign"]).values(
                id=1, name="c", title="", registry=[], created=when, registration="open"
            )
        )
        c.execute(
            insert(t["phase"]).values(
                id=1,
                campaign_id=1,
                name="p",
                targets=["a", "b"],
                opens=when,
                deadline=when,
                runs=1,
                max_bytes=10,
                hidden=False,
            )
        )
        c.execute(
            insert(t["team"]).values(
                id=1,
                campaign_id=1,
                name="x",
                token_key="k",
                token_salt="s",
                token_hash="h",
                created=when,
            )
        )
        c.execute(
            insert(t["exclusion"]).values(
                phase_id=1, team_id=1, run=1, kind="disqualified", reason="old", at=when
            )
        )
    db.dispose()
    db = Database(serve_db)  # migrated to the newest
    try:
        tables = MetaData()
        tables.reflect(db.engine)
        exclusion = tables.tables["exclusion"]
        with db.engine.connect() as c:
            rows = c.execute(select(exclusion.c.run, exclusion.c.target, exclusion.c.reason))
            assert [tuple(r) for r in rows] == [(1, None, "old")]
        row = {"phase_id": 1, "team_id": 1, "run": 1, "kind": "withdrawn", "reason": "r",
               "at": when}  # fmt: skip
        with db.engine.begin() as c:  # one row per target of the same run
            c.execute(insert(exclusion).values(**row, target="a"))
            c.execute(insert(exclusion).values(**row, target="b"))
        for target in ("a", None):
            with pytest.raises(IntegrityError), db.engine.begin() as c:
                c.execute(insert(exclusion).values(**row, target=target))
    finally:
        db.dispose()


BOARD = "/api/campaigns/lex25/phases/trial/leaderboard"
TWO = campaign_toml("lex25", phase_toml("trial", ["mc30", "rg65"]))


@pytest.fixture
def two(tmp_path: Path, serve_db: str, mc30, rg65) -> Iterator[tuple[Any, Clock, dict]]:
    """A server whose phase ``trial`` has two targets, mc30 and rg65; alpha and beta each
    sent run 1 on both (seeded scores), and each file's Spearman rho computed by scipy:
    ``{(team, target): rho}``."""
    clock = Clock(OPENS + timedelta(days=1))
    server = make_server(serve_db, tmp_path / "srv", clock, TWO)
    rho = {}
    for team, seed in (("alpha", 1), ("beta", 2)):
        token = register(server.client, team)
        for target, pairs in (("mc30", mc30), ("rg65", rg65)):
            data, scores = pair_file(pairs, seed)
            assert upload(server.client, token, data, target=target).status_code == 201
            rho[(team, target)] = spearmanr([g for *_, g in pairs], scores).statistic
    yield server, clock, rho
    server.db.dispose()


def _cells(board: dict) -> dict[str, dict[str, Any]]:
    """``{system: {column: value}}`` of a JSON board."""
    return {row[1]: dict(zip(board["columns"], row, strict=True)) for row in board["rows"]}


def test_a_run_disqualified_on_one_target_keeps_its_other_cell(two) -> None:
    """alpha run 1 disqualified on rg65: its row stays, its mc30 cell is scipy's rho and its
    rg65 cell empty, ranked after beta (which has both targets: a run missing a target ranks
    after every run that has them all); beta's cells are unchanged; the tiers leave alpha's
    rg65 file out; the JSON names the target, the page says it with the reason; reinstated
    on rg65, alpha's cell is back."""
    from simeval.serve.service.editing import exclude_run, reinstate_run
    from simeval.serve.service.organisers import audit_log

    server, clock, rho = two
    exclude_run(server.db, "lex25", "trial", "alpha", 1, "disqualified", "tuned on rg65",
                clock.now, target="rg65")  # fmt: skip
    board = server.client.get(BOARD).json()
    cells = _cells(board)
    assert [row[1] for row in board["rows"]] == ["beta run 1", "alpha run 1"]
    assert cells["alpha run 1"]["mc30"] == pytest.approx(rho[("alpha", "mc30")], abs=1e-12)
    assert cells["alpha run 1"]["rg65"] is None
    for target in ("mc30", "rg65"):
        assert cells["beta run 1"][target] == pytest.approx(rho[("beta", target)], abs=1e-12)
    assert board["excluded"] == [{"system": "alpha run 1", "target": "rg65",
                                  "kind": "disqualified", "reason": "tuned on rg65"}]  # fmt: skip
    service = server.app.state.service  # the rank tiers read the files the board ranks
    p, table = service.leaderboard("lex25", "trial")
    runs, _ = service.tier_runs(p.id, table)
    tiered = sorted((system, r["benchmark"]) for system, records, _ in runs for r in records)
    assert tiered == [("alpha run 1", "mc30"), ("beta run 1", "mc30"), ("beta run 1", "rg65")]
    page = server.client.get("/campaigns/lex25/phases/trial").text
    assert "alpha run 1 on rg65 (its other targets ranked): <strong>disqualified</strong>" in page
    assert "tuned on rg65" in page
    (entry,) = audit_log(server.db, 1)
    assert entry.action == "disqualify"
    assert entry.detail == {"phase": "trial", "run": "alpha run 1", "reason": "tuned on rg65",
                            "target": "rg65"}  # fmt: skip
    reinstate_run(server.db, "lex25", "trial", "alpha", 1, clock.now, target="rg65")
    board = server.client.get(BOARD).json()
    assert _cells(board)["alpha run 1"]["rg65"] == pytest.approx(rho[("alpha", "rg65")])
    assert board["excluded"] == []


def test_a_whole_run_exclusion_still_takes_the_row_away(two) -> None:
    """Without a target the run leaves the board as before, its item's target null; with an
    exclusion of one target as well, the whole run's wins and both are listed."""
    from simeval.serve.service.editing import exclude_run, reinstate_run

    server, clock, rho = two
    exclude_run(server.db, "lex25", "trial", "alpha", 1, "withdrawn", "asked", clock.now)
    exclude_run(server.db, "lex25", "trial", "alpha", 1, "disqualified", "copied", clock.now,
                target="mc30")  # fmt: skip
    board = server.client.get(BOARD).json()
    assert [row[1] for row in board["rows"]] == ["beta run 1"]
    assert _cells(board)["beta run 1"]["rg65"] == pytest.approx(rho[("beta", "rg65")])
    assert board["excluded"] == [
        {"system": "alpha run 1", "target": None, "kind": "withdrawn", "reason": "asked"},
        {"system": "alpha run 1", "target": "mc30", "kind": "disqualified", "reason": "copied"},
    ]
    reinstate_run(server.db, "lex25", "trial", "alpha", 1, clock.now)  # the whole run's only
    board = server.client.get(BOARD).json()
    cells = _cells(board)["alpha run 1"]
    assert cells["mc30"] is None
    assert cells["rg65"] == pytest.approx(rho[("alpha", "rg65")], abs=1e-12)


def test_excluding_again_on_a_target_changes_its_one_row(two) -> None:
    """The lookup finds the exclusion of the same target (and the whole run's apart): a
    second call changes the kind and reason, no second row, one audit entry per change."""
    from sqlalchemy import func, select

    from simeval.serve.db.models import Exclusion
    from simeval.serve.service.editing import exclude_run, exclusions
    from simeval.serve.service.organisers import audit_log

    server, clock, _ = two
    for target in ("rg65", None):
        for kind, reason in (("disqualified", "a"), ("withdrawn", "b"), ("withdrawn", "b")):
            exclude_run(server.db, "lex25", "trial", "beta", 1, kind, reason, clock.now,
                        target=target)  # fmt: skip
    with server.db.reading() as s:
        assert s.scalar(select(func.count()).select_from(Exclusion)) == 2
    phase_id = server.app.state.service.phase(1, "trial").id
    assert exclusions(server.db, phase_id) == {
        ("beta run 1", None): ("withdrawn", "b"),
        ("beta run 1", "rg65"): ("withdrawn", "b"),
    }
    assert [e.action for e in audit_log(server.db, 1)] == ["withdraw", "disqualify"] * 2


def test_an_unknown_target_or_a_target_without_the_run_is_refused(two, mc30) -> None:
    from simeval.serve.service.editing import exclude_run, reinstate_run

    server, clock, _ = two
    token = register(server.client, "gamma")
    assert upload(server.client, token, pair_file(mc30, 5)[0], target="mc30").status_code == 201
    with pytest.raises(InputError, match=r"lex25/trial has no target 'yp130'; its targets: "
                       r"mc30, rg65"):  # fmt: skip
        exclude_run(server.db, "lex25", "trial", "alpha", 1, "disqualified", "x", clock.now,
                    target="yp130")  # fmt: skip
    with pytest.raises(InputError, match=r"gamma has no scored run 1 on rg65 in lex25/trial; "
                       r"its run 1 is on mc30"):  # fmt: skip
        exclude_run(server.db, "lex25", "trial", "gamma", 1, "disqualified", "x", clock.now,
                    target="rg65")  # fmt: skip
    with pytest.raises(InputError, match="alpha run 1 on rg65 of lex25/trial is not excluded"):
        reinstate_run(server.db, "lex25", "trial", "alpha", 1, clock.now, target="rg65")
    assert server.client.get(BOARD).json()["excluded"] == []


def test_the_command_line_excludes_on_one_target(two) -> None:
    from typer.testing import CliRunner

    from simeval.cli import app

    server, _, rho = two
    common = [str(server.folder), "-c", "lex25", "-p", "trial", "--team", "beta", "--run", "1",
              "--db", server.url]  # fmt: skip

    def run(*args: str) -> Any:
        return CliRunner().invoke(app, ["serve", *args], env={"COLUMNS": "200"})

    r = run("exclude", *common, "--reason", "broke a rule", "--target", "mc30")
    assert r.exit_code == 0, r.output
    assert "beta run 1 on mc30: disqualified" in r.output
    cells = _cells(server.client.get(BOARD).json())["beta run 1"]
    assert cells["mc30"] is None
    assert cells["rg65"] == pytest.approx(rho[("beta", "rg65")], abs=1e-12)
    r = run("exclude", *common, "--reason", "x", "--target", "nope")
    assert r.exit_code != 0 and "no target 'nope'; its targets: mc30, rg65" in r.output
    r = run("reinstate", *common, "--target", "mc30")
    assert r.exit_code == 0 and "beta run 1 on mc30: ranked again" in r.output
    assert server.client.get(BOARD).json()["excluded"] == []


def test_the_console_form_picks_a_target(two) -> None:
    """The console's form offers "every target" first, then the phase's targets; sent with
    rg65 it answers 303 to the campaign page, which says so once; the board keeps the run's
    mc30 cell; the listed exclusion's *Rank again* ranks it on rg65 again."""
    import re

    from serve_kit import page_csrf
    from simeval.serve.service.organisers import add_organiser

    server, clock, rho = two
    client = server.client
    csrf = page_csrf(client, "/organiser")
    token = add_organiser(server.db, "Ada", clock.now)
    r = client.post("/organiser/login", data={"csrf": csrf, "token": token},
                    follow_redirects=False)  # fmt: skip
    assert r.status_code == 303
    csrf = page_csrf(client, "/organiser")
    console = "/organiser/campaigns/lex25"
    page = client.get(console).text
    form = page.split(f'action="{console}/phases/trial/runs"')[1].split("</form>")[0]
    targets = form.split('name="target"')[1].split("</select>")[0]
    assert re.findall(r"<option[^>]*>([^<]+)</option>", targets) == ["every target", "mc30",
                                                                      "rg65"]  # fmt: skip
    data = {"csrf": csrf, "action": "disqualify", "system": "alpha run 1", "target": "rg65",
            "reason": "late"}  # fmt: skip
    r = client.post(f"{console}/phases/trial/runs", data=data, follow_redirects=False)
    assert r.status_code == 303
    shown = client.get(r.headers["location"]).text
    assert "alpha run 1 on rg65: disqualified" in shown
    assert 'name="target" value="rg65">alpha run 1 on rg65: <strong>disqualified</strong>' in shown
    cells = _cells(client.get(BOARD).json())["alpha run 1"]
    assert cells["rg65"] is None
    assert cells["mc30"] == pytest.approx(rho[("alpha", "mc30")], abs=1e-12)
    data = {"csrf": csrf, "action": "reinstate", "system": "alpha run 1", "target": "rg65"}
    r = client.post(f"{console}/phases/trial/runs", data=data)
    assert r.status_code == 200 and "alpha run 1 on rg65: ranked again" in r.text
    assert client.get(BOARD).json()["excluded"] == []


def test_a_split_board_drops_only_the_excluded_target(tmp_path: Path, serve_db: str, data_dir,
                                                      mc30) -> None:  # fmt: skip
    """A phase of a public/private split (yp130 and mc30): alpha run 1 withdrawn on mc30
    keeps its public yp130 cell, scipy's rho over the public pairs the test draws itself."""
    from serve_kit import gold
    from split_kit import YP130, drawn_public, seed_of

    campaign = campaign_toml("split25", phase_toml("dev", ["yp130", "mc30"]) +
                             "public_share = 0.3\nfinal_runs = 2\n")  # fmt: skip
    clock = Clock(OPENS + timedelta(days=1))
    server = make_server(serve_db, tmp_path / "srv", clock, campaign)
    try:
        from simeval.serve.service.editing import exclude_run

        pairs = gold(data_dir / YP130)
        token = register(server.client, "alpha", "split25")
        data, scores = pair_file(pairs, 11)
        assert upload(server.client, token, data, "dev", target="yp130").status_code == 201
        mc30_data = pair_file(mc30, 12)[0]
        assert upload(server.client, token, mc30_data, "dev", target="mc30").status_code == 201
        exclude_run(server.db, "split25", "dev", "alpha", 1, "withdrawn", "asked", clock.now,
                    target="mc30")  # fmt: skip
        board = server.client.get("/api/campaigns/split25/phases/dev/leaderboard").json()
        assert board["board"] == "public"
        public = drawn_public(seed_of(server), pairs, 0.3)
        g, s = np.array([x for *_, x in pairs]), np.array(scores)
        cells = _cells(board)["alpha run 1"]
        assert cells["yp130"] == pytest.approx(spearmanr(g[public], s[public]).statistic,
                                               abs=1e-12)  # fmt: skip
        assert cells["mc30"] is None
    finally:
        server.db.dispose()


def test_the_export_and_the_submissions_list_mark_only_the_excluded_file(two, tmp_path) -> None:
    """The export's submissions.csv marks alpha's rg65 file alone, and its final table keeps
    alpha run 1's mc30 score (scipy's) without its rg65 one; the console's submissions list
    marks that one file too."""
    import csv

    from simeval.serve.service.console import submissions
    from simeval.serve.service.editing import exclude_run
    from simeval.serve.service.export import export

    server, clock, rho = two
    exclude_run(server.db, "lex25", "trial", "alpha", 1, "disqualified", "copied", clock.now,
                target="rg65")  # fmt: skip
    export(server.db, server.app.state.service.storage, "lex25", tmp_path / "export")
    rows = list(csv.DictReader((tmp_path / "export" / "submissions.csv").open()))
    marks = {(r["team"], r["target"]): (r["excluded"], r["excluded_reason"]) for r in rows}
    assert marks == {("alpha", "rg65"): ("disqualified", "copied"), ("alpha", "mc30"): ("", ""),
                     ("beta", "rg65"): ("", ""), ("beta", "mc30"): ("", "")}  # fmt: skip
    final = list(csv.DictReader((tmp_path / "export" / "trial" / "leaderboard.csv").open()))
    alpha = next(r for r in final if "alpha run 1" in r.values())
    assert float(alpha["mc30"]) == pytest.approx(rho[("alpha", "mc30")], abs=1e-6)
    assert alpha["rg65"] == ""
    listed, _ = submissions(server.db, "lex25", {})
    assert {(r.team, r.target): r.excluded for r in listed} == {
        ("alpha", "rg65"): "disqualified: copied", ("alpha", "mc30"): "",
        ("beta", "rg65"): "", ("beta", "mc30"): "",
    }  # fmt: skip


def test_a_carry_leaves_only_the_excluded_target_file(tmp_path: Path, serve_db: str, mc30, rg65):
    """alpha run 1 disqualified on rg65 in trial: carried into final, its mc30 file goes and
    its rg65 file stays, refused with the reason."""
    from simeval.serve.service.carry import carry_runs
    from simeval.serve.service.editing import exclude_run

    both = ["mc30", "rg65"]
    clock = Clock(OPENS + timedelta(days=1))
    campaign = campaign_toml("relay", phase_toml("trial", both), phase_toml("final", both))
    server = make_server(serve_db, tmp_path / "srv", clock, campaign)
    try:
        token = register(server.client, "alpha", "relay")
        for target, pairs in (("mc30", mc30), ("rg65", rg65)):
            data = pair_file(pairs, 3)[0]
            assert upload(server.client, token, data, target=target).status_code == 201
        exclude_run(server.db, "relay", "trial", "alpha", 1, "disqualified", "copied",
                    clock.now, target="rg65")  # fmt: skip
        service = server.app.state.service
        done = carry_runs(service, "relay", "trial", "final", "alpha", clock.now, "command line")
        assert done.carried == ["alpha run 1 mc30 → run 1"]
        assert done.refused == ["alpha run 1 rg65: disqualified or withdrawn in trial"]
    finally:
        server.db.dispose()
