"""docs/operating-a-server.md, run as written: a backup of a running server (SQLite, and
PostgreSQL where a server is given), restored into a fresh folder (and a fresh database) and
started; the uploads recorded before the backup are all there, byte for byte, the stamps still
match, and the leaderboard (every cell of its page, and the JSON API's answer, rank tiers
included) equals the one the live server showed, whose scores are scipy's."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import httpx
import pytest

import readme_text
from serve_kit import free_port, pair_file
from test_deploy import wait_serving
from test_serve_security import CliServer, auth, wait_for

pytest.importorskip("fastapi")

PAGE = readme_text.doc("operating-a-server.md")
SQLITE, POSTGRES, TEAMS, ORGANISERS, EDITS = readme_text.blocks(PAGE, "bash")
BIN = Path(sys.executable).parent


def bash(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-eo", "pipefail", "-c", script],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def environment(**extra: str) -> dict[str, str]:
    import simeval

    env = {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}", **extra}
    src = str(Path(simeval.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
    return env


BOARD = "/campaigns/live25/phases/now"  # the live campaign's leaderboard page


def boards(http: httpx.Client) -> tuple[list[list[str]], dict]:
    """The live campaign's leaderboard as its page shows it (every cell of the table, head
    included) and as the JSON API answers it."""
    import re
    from html import unescape

    page = http.get(BOARD).text
    table = re.search(r'<table class="[^"]*\bboard\b.*?</table>', page, flags=re.S)
    assert table, page[:2000]
    cells = [
        [unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(
            r"<t[hd][^>]*>(.*?)</t[hd]>", row, flags=re.S)]
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table.group(0), flags=re.S)
    ]  # fmt: skip
    answer = http.get(f"/api{BOARD}/leaderboard")
    assert answer.status_code == 200, answer.text
    return cells, answer.json()


def tiered_boards(http: httpx.Client) -> tuple[list[list[str]], dict]:
    """The leaderboard (:func:`boards`) once its rank tiers are shown: the server computes
    them in the background from the runs' per-item files and shows the strict board until
    then, so a restored server shows them only if it has every run's items."""
    found: list[tuple[list[list[str]], dict]] = []

    def tiered() -> bool:
        found[:] = [boards(http)]
        return "tier" in found[0][0][0]

    wait_for(tiered, "the board's rank tiers", seconds=120)
    return found[0]


def restored(
    block_line: str, cwd: Path, env: dict[str, str], token: str
) -> tuple[list[dict], tuple[list[list[str]], dict]]:
    """Start the restored server as the page's last line does; the team's submissions and
    the leaderboard (:func:`boards`)."""
    port = free_port()
    line = block_line.replace("--port 8000", f"--port {port}")
    log = cwd / f"restored-{port}.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            ["bash", "-c", line], cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        wait_serving(process, base + "/", log, "the restored server")
        with httpx.Client(base_url=base, trust_env=False, timeout=30) as http:
            return http.get("/api/submissions", headers=auth(token)).json(), tiered_boards(http)
    finally:
        os.killpg(process.pid, 15)
        process.wait(timeout=30)


def team_with_upload(http: httpx.Client, team: str, data: bytes) -> tuple[str, dict]:
    """Register ``team`` in the live campaign and upload ``data`` to mc30: (token, answer)."""
    token = http.post("/api/campaigns/live25/teams", json={"team": team}).json()["token"]
    params = {"target": "mc30", "filename": "run.csv"}
    r = http.post("/api/phases/now/submissions", params=params, content=data, headers=auth(token))
    assert r.status_code == 201, r.text
    return token, r.json()


def a_board(http: httpx.Client, mc30: list, seeds: range) -> dict[str, float]:
    """Teams beta, gamma, … with one mc30 run each (seeded scores), ranked on the live board;
    each run's Spearman's rho by scipy, by the board's system name."""
    from scipy.stats import spearmanr

    expected = {}
    for k, seed in enumerate(seeds):
        team = f"team{k}"
        data, scores = pair_file(mc30, seed)
        _, answer = team_with_upload(http, team, data)
        rho = spearmanr([g for *_, g in mc30], scores).statistic
        expected[f"{team} run {answer['run']}"] = float(rho)
    return expected


def check_board(shown: tuple[list[list[str]], dict], expected: dict[str, float]) -> None:
    """The board (:func:`boards`) ranks every run of ``expected`` with scipy's figure."""
    cells, answer = shown
    head, *rows = cells
    system, score = head.index("system"), next(i for i, h in enumerate(head) if "mc30" in h)
    shown = {r[system]: r[score] for r in rows}
    assert {s: shown.get(s) for s in expected} == {s: f"{r:.4f}" for s, r in expected.items()}
    assert len(answer["rows"]) == len(rows)


@pytest.mark.slow
def test_sqlite_backup_of_a_running_server_restores(tmp_path, mc30):
    lines = [line for line in SQLITE.splitlines() if line.strip()]
    assert lines[0] == "simeval serve backup srv --out backup/monday"
    folder = tmp_path / "srv"
    data = pair_file(mc30, 3)[0]
    live = CliServer(folder, f"sqlite:///{folder / 'serve.db'}", tmp_path / "server.log")
    live.create_campaign()
    env = environment()
    env.pop("SIMEVAL_SERVE_DB", None)
    with live.running() as http:
        token, answer = team_with_upload(http, "alpha", data)
        sid = answer["id"]
        expected = a_board(http, mc30, range(10, 13))
        before = tiered_boards(http)
        done = bash(lines[0], tmp_path, env)  # while the server runs
        assert done.returncode == 0, done.stderr
    check_board(before, expected)
    backup = tmp_path / "backup" / "monday"
    assert (backup / "files" / "submissions" / sid / "upload").read_bytes() == data
    assert oct((backup / "serve.db").stat().st_mode & 0o777) == "0o600"
    assert not (backup / "files" / "server.lock").exists()
    mine, after = restored(lines[1], tmp_path, env, token)
    assert [(m["id"], m["run"], m["sha256"]) for m in mine] == [(sid, 1, answer["sha256"])]
    assert after == before  # the leaderboard, every cell of the page and of the API


def test_postgres_backup_of_a_running_server_restores(tmp_path, mc30):
    base = os.environ.get("SIMEVAL_TEST_POSTGRES")
    if not base:
        if os.environ.get("SIMEVAL_REQUIRE_POSTGRES"):
            pytest.fail("SIMEVAL_TEST_POSTGRES is not set")
        pytest.skip("no PostgreSQL server (set SIMEVAL_TEST_POSTGRES)")
    import psycopg

    name = f"ops_{uuid.uuid4().hex[:10]}"
    root = base.rsplit("/", 1)[0] + "/"
    with psycopg.connect(base, autocommit=True) as con:
        con.execute(f"CREATE DATABASE {name}")
    script = POSTGRES.replace("postgresql://simeval:change-me@127.0.0.1/", root)
    script = script.replace("/lex25_restored", f"/{name}_restored").replace("/lex25", f"/{name}")
    script = script.replace("DATABASE lex25_restored", f"DATABASE {name}_restored")
    lines = [line for line in script.splitlines() if line.strip()]
    try:
        folder = tmp_path / "srv"
        data = pair_file(mc30, 4)[0]
        url = f"{root}{name}"
        live = CliServer(folder, url, tmp_path / "server.log")
        live.create_campaign()
        env = environment()
        with live.running() as http:
            token, answer = team_with_upload(http, "a", data)
            sid = answer["id"]
            expected = a_board(http, mc30, range(20, 23))
            before = tiered_boards(http)
            done = bash("\n".join(lines[:-1]), tmp_path, env)  # backup, restore the dump
            assert done.returncode == 0, done.stderr
        check_board(before, expected)
        backup = tmp_path / "backup" / "monday"
        assert (backup / "files" / "submissions" / sid / "upload").read_bytes() == data
        assert "CREATE TABLE public.submission" in (backup / "serve.sql").read_text()
        env["SIMEVAL_SERVE_DB"] = f"{root}{name}_restored"
        mine, after = restored(lines[-1], tmp_path, env, token)
        assert [(m["id"], m["run"]) for m in mine] == [(sid, 1)]
        assert after == before  # into a fresh database and folder, the same leaderboard
    finally:
        with psycopg.connect(base, autocommit=True) as con:
            for db in (name, f"{name}_restored"):
                con.execute(f"DROP DATABASE IF EXISTS {db} WITH (FORCE)")


@pytest.mark.slow
def test_registration_and_token_rotation_as_the_page_shows(tmp_path, mc30):
    """The page's third block, on a campaign with a running server: registration closed,
    reopened with a cap of 40 (what `registration` prints, and what the API then answers),
    and alpha's token rotated (the old one refused, the new one signed in)."""
    lines = [line for line in TEAMS.splitlines() if line.strip()]
    folder = tmp_path / "srv"
    live = CliServer(folder, f"sqlite:///{folder / 'serve.db'}", tmp_path / "server.log")
    live.create_campaign()
    env = environment()
    env.pop("SIMEVAL_SERVE_DB", None)
    as_live = [line.replace("-c lex25", "-c live25") for line in lines]
    with live.running() as http:
        old = http.post("/api/campaigns/live25/teams", json={"team": "alpha"}).json()["token"]
        closed = bash(as_live[0], tmp_path, env)
        assert closed.returncode == 0, closed.stderr
        r = http.post("/api/campaigns/live25/teams", json={"team": "beta"})
        assert r.status_code == 403, r.text
        opened = bash(as_live[1], tmp_path, env)
        assert opened.returncode == 0 and "40" in opened.stdout, opened.stdout
        assert http.post("/api/campaigns/live25/teams", json={"team": "beta"}).status_code == 201
        rotated = bash(as_live[2], tmp_path, env)
        assert rotated.returncode == 0, rotated.stderr
        new = rotated.stdout.strip()
        assert new.startswith("st_") and new != old
        assert http.get("/api/submissions", headers=auth(old)).status_code == 401
        assert http.get("/api/submissions", headers=auth(new)).status_code == 200


@pytest.mark.slow  # seven commands, each a new Python process
def test_the_organiser_commands_as_the_page_shows(tmp_path):
    """The console section's two blocks, on a campaign whose trial is open and whose hidden
    test phase was published: an account added, listed and revoked; the trial extended (runs
    4), then closed; the test phase unpublished; and the audit log holding each change, newest
    first, with the values before and after."""
    from datetime import UTC, datetime

    from serve_kit import Clock, make_server, phase_toml
    from simeval.serve.service.editing import publish

    ends = datetime(2029, 1, 1, tzinfo=UTC)
    test_end = datetime(2025, 2, 10, tzinfo=UTC)
    campaign = (
        'name = "lex25"\n\n'
        + phase_toml("trial", ["mc30"], deadline=ends)
        + "\n"
        + phase_toml("test", ["yp130"], datetime(2025, 2, 2, tzinfo=UTC), test_end)
    )
    folder = tmp_path / "srv"
    server = make_server(f"sqlite:///{folder / 'serve.db'}", folder, Clock(test_end), campaign)
    publish(server.db, "lex25", "test", datetime.now(UTC))
    server.db.dispose()
    server.app.state.lock.release()
    server.app.state.db_lock.release()
    env = environment()
    env.pop("SIMEVAL_SERVE_DB", None)
    added, listed, revoked = (bash(line, tmp_path, env) for line in ORGANISERS.splitlines())
    assert added.returncode == 0 and added.stdout.startswith("so_"), added.stderr
    assert "Ada  active" in listed.stdout and revoked.returncode == 0
    moved, closed, hidden, log = (bash(line, tmp_path, env) for line in EDITS.splitlines())
    assert moved.returncode == 0, moved.stderr
    assert "deadline: 2029-01-01T00:00:00Z -> 2030-03-01T00:00:00Z" in moved.stdout
    assert "runs: 2 -> 4" in moved.stdout
    assert closed.returncode == 0, closed.stderr
    assert closed.stdout.startswith(f"deadline: 2030-03-01T00:00:00Z -> {datetime.now(UTC):%Y-}")
    assert hidden.returncode == 0 and "lex25/test hidden" in hidden.stdout
    entries = log.stdout.strip().splitlines()
    actions = ["unpublish", "edit phase", "edit phase", "publish"]  # the publish made above
    assert [e.split("  ")[2] for e in entries] == actions
    assert all(e.split("  ")[1] == "command line" for e in entries)
