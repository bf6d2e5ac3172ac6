"""``benchmarks/serve_throughput.py`` run briefly (3 teams uploading SimLex-size files for 2 s
to a real ``simeval serve run`` over 1,000 stored runs, so the board is answered from its
last build while the next is built): the script's own checks pass, and this test counts
again without it: the answers it kept, the database read with plain SQL, and the leaderboard
of a server over the same folder against Spearman's rho from scipy on every file sent. The
figures docs/speed.md gives are those of the script's full size (its commands there)."""

from __future__ import annotations

import csv
import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from scipy.stats import spearmanr

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "serve_throughput.py"
TEAMS, STORED = 3, 1_000


def test_teams_uploading_continuously_while_the_board_is_read(data_dir: Path, tmp_path: Path):
    folder = tmp_path / "run"
    argv = [sys.executable, str(SCRIPT), "--size", "simlex", "--teams", str(TEAMS)]
    argv += ["--seconds", "2", "--stored", str(STORED), "--files", "2", "--keep", str(folder)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert out.rstrip().endswith("(abs 1e-12): ok") and "FAILED" not in out
    scored = int(re.search(r"^uploads scored: (\d+), \d+\.\d per second", out, re.M)[1])
    assert re.search(r"^upload latency: p50 \d+\.\d\d s, p95 \d+\.\d\d s", out, re.M)
    assert re.search(r"^leaderboard under load: p50 \d+\.\d ms, p95 \d+\.\d ms", out, re.M)
    page = r"^leaderboard page \(HTML\) under load: p50 \d+\.\d ms, p95 \d+\.\d ms \((\d+) reads"
    assert int(re.search(page, out, re.M)[1]) > 0
    assert re.search(r"^ratio, server uploads/s / offline files/s: \d+\.\d\d$", out, re.M)
    assert max(map(len, out.splitlines())) <= 80

    answers = [json.loads(x) for x in (folder / "answers.jsonl").read_text().splitlines()]
    assert {a["status"] for a in answers} == {201}
    assert scored <= len(answers) <= scored + TEAMS  # the warm-up's uploads are not timed
    with sqlite3.connect(folder / "server" / "serve.db") as con:
        rows = con.execute(
            "SELECT s.id, t.name, s.run, s.status, s.sha256 FROM submission s"
            " JOIN team t ON s.team_id = t.id WHERE t.name NOT LIKE 'stored%'"
        ).fetchall()
        stored = con.execute("SELECT count(*) FROM submission").fetchone()[0] - len(rows)
    assert stored == STORED
    assert sorted(r[0] for r in rows) == sorted(a["id"] for a in answers)
    by_id = {a["id"]: a for a in answers}
    for sid, team, run, status, sha in rows:
        assert (team, run, status, sha) == (
            by_id[sid]["team"], by_id[sid]["run"], "scored", by_id[sid]["sha256"]
        )  # fmt: skip

    from fastapi.testclient import TestClient

    from simeval.serve.app import create_app

    with (data_dir / "simlex999" / "SimLex-999.txt").open(encoding="utf-8") as f:
        gold = [float(r[3]) for r in list(csv.reader(f, delimiter="\t"))[1:]]
    files = folder / "server" / "files"
    app = create_app(f"sqlite:///{folder / 'server' / 'serve.db'}", files)
    with TestClient(app) as client:
        board = client.get("/api/campaigns/load/phases/trial/leaderboard").json()
    assert len(board["rows"]) == STORED + len(answers)
    cells = {row[1]: row[board["columns"].index("simlex999")] for row in board["rows"]}
    for a in answers:
        with (folder / "sent" / a["file"]).open(encoding="utf-8") as f:
            sent = [float(r[2]) for r in list(csv.reader(f))[1:]]
        expected = spearmanr(gold, sent)[0]
        assert cells[f"{a['team']} run {a['run']}"] == pytest.approx(expected, abs=1e-12)


def test_serve_run_takes_the_uploads_a_client_may_send_a_minute(tmp_path: Path, monkeypatch):
    """``--uploads-per-minute`` sets the upload limit of each client address (after its burst
    of 10); 0 lifts it, which the benchmark needs: 20 teams at 20 a minute make 6.7 a second.
    Counted here on a stopped clock: the default takes 10 at once and refuses the 11th."""
    import uvicorn
    from typer.testing import CliRunner

    import simeval.serve.app as serve_app
    from simeval.cli import app as cli
    from simeval.serve.service.security import RateLimiter

    seen: dict = {}
    monkeypatch.setattr(serve_app, "create_app", lambda *a, **k: seen.update(k) or object())
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: None)
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "serve.db").touch()  # a server's folder (create_app is not run here)

    def allowed(*options: str) -> int:
        r = CliRunner().invoke(cli, ["serve", "run", str(folder), *options])
        assert r.exit_code == 0, r.output
        limiter = RateLimiter(seen["rate_limits"], clock=lambda: 0.0)
        return sum(limiter.allow("127.0.0.2", "upload") for _ in range(100))

    def reads(*options: str) -> int:
        allowed(*options)
        limiter = RateLimiter(seen["rate_limits"], clock=lambda: 0.0)
        return sum(limiter.allow("127.0.0.2", "read") for _ in range(100))

    assert allowed() == 10
    assert allowed("--uploads-per-minute", "0") == 100
    assert allowed("--uploads-per-minute", "600") == 10  # the burst: the clock stands still
    assert reads() == 60  # the default read budget's burst
    assert reads("--reads-per-minute", "0") == 100
    assert allowed("--reads-per-minute", "0") == 10  # the upload budget is its own
