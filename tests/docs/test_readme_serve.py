"""The README's "Run a shared task" section, run as written: its campaign file, the organiser's
two commands (a real `simeval serve run` process on 127.0.0.1), the participant's commands,
the error it quotes, and publish/export/leaderboard after the deadline. Expected scores come
from scipy on the submitted file and the gold; the exported leaderboard equals offline
scoring of the same files. The PostgreSQL set-up is run too where Debian's cluster can be
started (as root; CI)."""

from __future__ import annotations

import contextlib
import csv
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from scipy.stats import spearmanr

import readme_text
from serve_kit import free_port

pytest.importorskip("fastapi")

SECTION = readme_text.section("## Run a shared task")
# the split phase's block is read by tests/serve/test_public_private.py, the curl upload's
# block run by tests/serve/test_docs_upload_curl.py, the export for the overview paper's by
# tests/serve/test_export_paper.py
CAMPAIGN, _SPLIT = readme_text.blocks(SECTION, "toml")
ORGANISER, PARTICIPANT, _CURL, AFTER, _PAPER, POSTGRES = readme_text.blocks(SECTION, "bash")
BIN = Path(sys.executable).parent


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}", **extra}
    env["SIMEVAL_CACHE_DIR"] = str(tmp_path / "cache")
    env["COLUMNS"] = "100"
    return env


def bash(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-eo", "pipefail", "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _wait_for(url: str, process: subprocess.Popen, seconds: float = 120) -> None:
    import httpx

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the server exited: {process.stderr.read()}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise AssertionError(f"no answer from {url} in {seconds} s")


def _stop(process: subprocess.Popen) -> str:
    os.killpg(process.pid, signal.SIGTERM)
    try:
        _, stderr = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        _, stderr = process.communicate()
    return stderr


@contextlib.contextmanager
def serve_block(block: str, cwd: Path, env: dict[str, str], port: int) -> Iterator[str]:
    """Run a block whose last command is `simeval serve run` (it keeps running) and yield the
    server's address once it answers; stop it afterwards."""
    process = subprocess.Popen(
        ["bash", "-eo", "pipefail", "-c", block],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_for(f"{url}/campaigns/lex25", process)
        yield url
    finally:
        _stop(process)


def on_port(text: str, port: int) -> str:
    return text.replace(":8000", f":{port}").replace("--port 8000", f"--port {port}")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str], int]]:
    (tmp_path / "campaign.toml").write_text(CAMPAIGN, encoding="utf-8")
    port = free_port()
    env = _env(tmp_path)
    with serve_block(on_port(ORGANISER, port), tmp_path, env, port):
        yield tmp_path, env, port


def _mc30_gold(data_dir: Path) -> dict[tuple[str, str], float]:
    lines = (data_dir / "mc30" / "EN-MC-30.txt").read_text(encoding="utf-8").splitlines()
    return {(a, b): float(g) for a, b, g in (line.split("\t") for line in lines if line)}


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.mark.slow
def test_campaign_participant_publish_export_as_the_readme_shows(server, data_dir: Path) -> None:
    from simeval.api import score

    folder, env, port = server
    done = bash(on_port(PARTICIPANT, port) + '\necho "token: $TOKEN"', folder, env)
    assert done.returncode == 0, done.stderr
    token = re.search(r"^token: (st_\S+)$", done.stdout, flags=re.M).group(1)
    assert "run 1 of 3 on mc30" in done.stdout and "run 1 of 3 on mc30" in SECTION
    inputs = _rows(folder / "mc30.csv")  # the phase's input file: the pairs, no gold
    gold = _mc30_gold(data_dir)
    # every pair once, in an order drawn from the campaign's secret (MC-30 is sorted by gold)
    assert sorted((r["word1"], r["word2"]) for r in inputs) == sorted(gold)
    assert [(r["word1"], r["word2"]) for r in inputs] != list(gold)
    assert all(r["sim"] == "" for r in inputs)
    run = _rows(folder / "run1.csv")
    expected = spearmanr(
        [gold[(r["word1"], r["word2"])] for r in run], [float(r["sim"]) for r in run]
    ).statistic
    (quoted,) = re.findall(r"`mc30  spearman  ([0-9.]+)`", SECTION)
    assert quoted == f"{expected:.4f}"
    assert f"mc30  spearman  {expected:.4f}" in done.stdout

    # the error the README quotes, as `simeval score` prints it, and no run used
    lines = (folder / "run1.csv").read_text(encoding="utf-8").splitlines()
    a, b, _ = lines[2].split(",")
    lines[2] = f"{a},{b},oops"
    (folder / "run1.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    submit_cmd = re.search(r"^simeval submit .*$", PARTICIPANT, flags=re.M).group(0)
    bad = bash(on_port(submit_cmd, port), folder, {**env, "TOKEN": token})
    offline = bash("simeval score file mc30 run1.csv", folder, env)
    (quoted_error,) = re.findall(r"`(error: run1\.csv:3: [^`]+)`", SECTION)
    assert bad.returncode == offline.returncode == 2
    assert quoted_error in offline.stderr and bad.stderr == offline.stderr

    # the test phase: a RUSSE run, validated and counted, its scores hidden
    team = bash(
        f"simeval register lex25 --team gamma --server http://127.0.0.1:{port}", folder, env
    )
    assert bash("simeval predict orthographic:kind=prefix -s russe --out russe.csv", folder, env)
    hidden = bash(
        f"simeval submit russe.csv --server http://127.0.0.1:{port} --token {team.stdout.strip()}"
        " --phase test",
        folder,
        env,
    )
    assert hidden.returncode == 0, hidden.stderr
    assert "run 1 of 2 on russe" in hidden.stdout and "hidden" in hidden.stdout
    assert "spearman" not in hidden.stdout

    # time passes: the test phase's deadline is behind us (the organiser's clock is the real one)
    with sqlite3.connect(folder / "srv" / "serve.db") as con:
        past = (datetime.now(UTC) - timedelta(minutes=1)).replace(tzinfo=None)
        con.execute("update phase set deadline = ? where name = 'test'", (past.isoformat(" "),))
    after = bash(AFTER, folder, env)
    assert after.returncode == 0, after.stderr
    uploads = _rows(folder / "final" / "submissions.csv")
    assert sorted((u["team"], u["phase"], u["status"]) for u in uploads) == [
        ("alpha", "trial", "rejected"),
        ("alpha", "trial", "scored"),
        ("gamma", "test", "scored"),
    ]
    assert len(list((folder / "final" / "submissions").iterdir())) == 3
    offline_russe = score("russe", folder / "russe.csv")
    board = (folder / "final" / "test" / "leaderboard.csv").read_text(encoding="utf-8")
    assert "gamma run 1" in board and "gamma run 1" in after.stdout
    header = next(line for line in after.stdout.splitlines() if "system" in line)
    printed = next(line for line in after.stdout.splitlines() if "gamma run 1" in line)
    shown = dict(zip(header.strip("|").split("|"), printed.strip("|").split("|"), strict=True))
    shown = {k.strip(): v.strip().strip("*") for k, v in shown.items()}  # bold: best
    checked = 0
    for result in offline_russe:
        if result.benchmark in shown:
            assert shown[result.benchmark] == f"{result.score:.4f}", result.benchmark
            checked += 1
    assert checked == 4  # RUSSE's four parts, as RUSSE's Table 5 shows them


def _cluster_online() -> bool | None:
    """Whether Debian's 15/main cluster runs (None: no such cluster, or not root)."""
    if os.geteuid() != 0 or shutil.which("pg_ctlcluster") is None:
        return None
    found = subprocess.run(["pg_lsclusters", "-h"], capture_output=True, text=True).stdout
    status = [line.split()[3] for line in found.splitlines() if line.split()[:2] == ["15", "main"]]
    return None if not status else status[0] == "online"


def _psql(sql: str) -> str:
    return subprocess.run(
        ["runuser", "-u", "postgres", "--", "psql", "-tA", "-c", sql],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


@pytest.mark.slow
def test_postgresql_set_up_as_the_readme_shows(tmp_path: Path) -> None:
    """The README's PostgreSQL block on Debian's own cluster (left as it was found: started
    only if it was down, and the database and user it creates dropped), then a participant's
    upload lands in PostgreSQL."""
    online = _cluster_online()
    if online is None:
        if os.environ.get("SIMEVAL_REQUIRE_POSTGRES"):
            pytest.fail("Debian's PostgreSQL cluster 15/main is needed (run as root)")
        pytest.skip("needs root and Debian's PostgreSQL cluster 15/main")
    block = POSTGRES
    if online:  # `pg_ctlcluster … start` refuses a running cluster; the rest is the same
        if _psql("select count(*) from pg_roles where rolname = 'simeval'") != "0":
            pytest.skip("the running cluster already has a role simeval: not ours to drop")
        block = "\n".join(line for line in POSTGRES.splitlines() if "pg_ctlcluster" not in line)
    (tmp_path / "campaign.toml").write_text(CAMPAIGN, encoding="utf-8")
    port = free_port()
    env = _env(tmp_path)
    try:
        with serve_block(on_port(block, port), tmp_path, env, port):
            done = bash(on_port(PARTICIPANT, port), tmp_path, env)
            assert done.returncode == 0, done.stderr
            assert "run 1 of 3 on mc30" in done.stdout
        assert _psql("select count(*) from pg_database where datname = 'lex25'") == "1"
        rows = subprocess.run(
            [
                "runuser",
                "-u",
                "postgres",
                "--",
                "psql",
                "-tA",
                "-d",
                "lex25",
                "-c",
                "select t.name, s.target, s.status, s.run from submission s join team t"
                " on t.id = s.team_id",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        assert rows == ["alpha|mc30|scored|1"]
        assert not (tmp_path / "srv" / "serve.db").exists()  # the files only: no SQLite
    finally:
        if _cluster_online():
            _psql("DROP DATABASE IF EXISTS lex25 WITH (FORCE)")
            _psql("DROP ROLE IF EXISTS simeval")
        if not online:
            subprocess.run(["pg_ctlcluster", "15", "main", "stop"], check=False)
