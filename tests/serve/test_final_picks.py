"""Final runs of a split phase (issue 32, item 2): a team picks up to ``final_runs`` of its
runs, by the API or on its page; until it does, its last ``final_runs`` are final; picks are
refused after the deadline, beyond the limit, for runs it has not got, and in a phase without
a private board."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from serve_kit import TRIAL_END, Clock, gold, page_csrf, pair_file, register, upload
from split_kit import YP130, split_server


@pytest.fixture
def split(tmp_path: Path, serve_db: str) -> Iterator[tuple[Any, Clock]]:
    yield from split_server(tmp_path, serve_db)


def _runs(server, token: str, n: int, data_dir) -> None:
    pairs = gold(data_dir / YP130)
    for seed in range(n):
        r = upload(server.client, token, pair_file(pairs, seed)[0], "dev")
        assert r.status_code == 201, r.text


def test_picks_default_to_the_last_runs_and_keep_to_the_limit(split, data_dir) -> None:
    server, clock = split
    c = server.client
    token = register(c, "alpha", "priv25")
    auth = {"authorization": f"Bearer {token}"}
    got = c.get("/api/phases/dev/final", headers=auth).json()
    assert got == {"phase": "dev", "final": [], "runs": [], "picked": False, "limit": 2}
    _runs(server, token, 3, data_dir)
    got = c.get("/api/phases/dev/final", headers=auth).json()
    assert got["final"] == [2, 3] and got["runs"] == [1, 2, 3] and not got["picked"]
    r = c.put("/api/phases/dev/final", json={"runs": [1, 2, 3]}, headers=auth)
    assert r.status_code == 422 and "at most 2" in r.json()["error"]
    r = c.put("/api/phases/dev/final", json={"runs": [4]}, headers=auth)
    assert r.status_code == 422 and "no scored run 4" in r.json()["error"]
    r = c.put("/api/phases/dev/final", json={"runs": ["1"]}, headers=auth)
    assert r.status_code == 422
    r = c.put("/api/phases/dev/final", json={"runs": [1]}, headers=auth)
    assert r.status_code == 200 and r.json()["final"] == [1] and r.json()["picked"]
    r = c.put("/api/phases/dev/final", json={"runs": [3, 1, 3]}, headers=auth)
    assert r.json()["final"] == [1, 3]
    r = c.put("/api/phases/dev/final", json={"runs": []}, headers=auth)  # back to the default
    assert r.json()["final"] == [2, 3] and not r.json()["picked"]
    r = c.put("/api/phases/open/final", json={"runs": []}, headers=auth)
    assert r.status_code == 422 and "no private leaderboard" in r.json()["error"]
    assert c.put("/api/phases/dev/final", json={"runs": [1]}).status_code == 401
    clock.now = TRIAL_END + timedelta(minutes=1)
    r = c.put("/api/phases/dev/final", json={"runs": [1]}, headers=auth)
    assert r.status_code == 403 and "closed" in r.json()["error"]
    assert c.get("/api/phases/dev/final", headers=auth).json()["final"] == [2, 3]


def test_a_team_picks_its_final_runs_on_its_page(split, data_dir) -> None:
    server, clock = split
    c = server.client
    token = register(c, "alpha", "priv25")
    _runs(server, token, 3, data_dir)
    c.post("/login", data={"csrf": page_csrf(c, "/campaigns/priv25"), "token": token})
    page = c.get("/mine").text
    assert "Final runs" in page and "run 2, run 3 (your last 2 (the default))" in page
    assert 'name="run-3" value="yes" checked' in page and 'name="run-1" value="yes">' in page
    form = {"csrf": page_csrf(c, "/mine"), "run-1": "yes"}
    r = c.post("/campaigns/priv25/phases/dev/final", data=form, follow_redirects=False)
    assert r.status_code == 303
    assert "Final: run 1 (picked by your team)" in c.get("/mine").text
    r = c.post("/campaigns/priv25/phases/dev/final", data={"run-1": "yes"})
    assert r.status_code == 403  # no CSRF value
    form = {"csrf": page_csrf(c, "/mine"), "run-x": "yes"}
    assert c.post("/campaigns/priv25/phases/dev/final", data=form).status_code == 422
    clock.now = TRIAL_END + timedelta(minutes=1)
    page = c.get("/mine").text
    assert "Final: run 1 (picked by your team)" in page and 'class="finals"' not in page


def test_simeval_submit_and_final_from_the_command_line(split, data_dir, tmp_path) -> None:
    from typer.testing import CliRunner

    from serve_kit import live
    from simeval.cli import app as cli

    server, _ = split
    token = register(server.client, "alpha", "priv25")
    pairs = gold(data_dir / YP130)
    path = tmp_path / "run.csv"
    path.write_bytes(pair_file(pairs, 5)[0])
    runner = CliRunner()
    env = {"SIMEVAL_TOKEN": token, "COLUMNS": "80"}
    with live(server.app) as base:
        where = ["--server", base, "--phase", "dev"]
        for _ in range(3):
            done = runner.invoke(cli, ["submit", str(path), *where], env=env)
            assert done.exit_code == 0, done.output
        assert "yp130  public spearman  " in done.output
        done = runner.invoke(cli, ["final", *where], env=env)
        assert done.output == "final runs of dev: run 2, run 3 (your last 2)\n"
        done = runner.invoke(cli, ["final", "1", "3", *where], env=env)
        assert done.output == "final runs of dev: run 1, run 3 (picked)\n"
        done = runner.invoke(cli, ["final", "1", "2", "3", *where], env=env)
        assert done.exit_code == 2 and "pick at most 2 final run(s) in dev" in done.output
        done = runner.invoke(cli, ["final", "--reset", *where], env=env)
        assert done.output == "final runs of dev: run 2, run 3 (your last 2)\n"
