"""The shared-task server under load, on SQLite and on PostgreSQL: ``benchmarks/serve_load.py``
at full size (50 teams each send 5 RUSSE-size files at once to a real ``simeval serve run`` on
127.0.0.1; 3 runs allowed). The script checks its own guarantees and exits 0; this test
counts again without it: the answers it kept, the database read with plain SQL, the stored
files, the leaderboard from a server over the same database, and offline
:func:`simeval.api.score` of every file sent (expected sums and ranks computed here)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import subprocess
import sys
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "serve_load.py"
TEAMS, UPLOADS, RUNS = 50, 5, 3
MEMBERS = ["russe-hj", "russe-rt", "russe-ae", "russe-ae2"]
OFFLINE: dict[str, dict[str, float]] = {}  # sha256 of a file -> its main score by benchmark
TARGET: list[Any] = []  # the russe suite, loaded by the first offline()


def script() -> Any:
    """benchmarks/serve_load.py as a module (its checks, without a server)."""
    spec = importlib.util.spec_from_file_location("serve_load", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["serve_load"] = module  # dataclasses look their module up
    if str(SCRIPT.parent) not in sys.path:  # its helper modules, as when run as a script
        sys.path.insert(0, str(SCRIPT.parent))
    spec.loader.exec_module(module)
    return module


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def offline(path: Path) -> dict[str, float]:
    """Offline scores of a sent file (the same files go to both databases: scored once)."""
    from simeval.api import load_target, score

    key = sha256(path.read_bytes())
    if key not in OFFLINE:
        if not TARGET:
            TARGET.append(load_target("russe"))  # once, not once a file
        OFFLINE[key] = {r.benchmark: r.score for r in score(TARGET[0], path)}
    return OFFLINE[key]


def database_rows(url: str) -> list[dict]:
    """Every submission with its team's and phase's names, read with plain SQL."""
    from sqlalchemy import create_engine, text

    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    engine = create_engine(url)
    try:
        with engine.connect() as con:
            rows = con.execute(
                text(
                    "SELECT s.id, t.name AS team, p.name AS phase, s.run, s.status, s.sha256,"
                    " s.size FROM submission s JOIN team t ON s.team_id = t.id"
                    " JOIN phase p ON s.phase_id = p.id"
                )
            )
            return [dict(r._mapping) for r in rows]
    finally:
        engine.dispose()


@pytest.mark.slow
def test_fifty_teams_upload_five_russe_files_at_once(serve_db: str, tmp_path: Path) -> None:
    folder = tmp_path / "load"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--db", serve_db, "--keep", str(folder)],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=ROOT,
    )
    out = done.stdout
    print(out)  # the numbers, shown by pytest -rP
    assert done.returncode == 0, out[-3000:] + done.stderr[-3000:]
    # the printed lines
    assert f"{TEAMS} teams x {UPLOADS} uploads at once" in out
    assert f"{TEAMS * RUNS} scored (201), {TEAMS * (UPLOADS - RUNS)} refused (409)" in out
    assert re.search(r"^throughput: \d+\.\d uploads scored per minute$", out, re.M)
    assert re.search(r"^latency of a scored upload: p50 \d+\.\d\d s, p95 \d+\.\d\d s$", out, re.M)
    assert re.search(r"^ratio, server throughput / offline score throughput: \d+\.\d\d$", out, re.M)
    assert out.rstrip().endswith("offline score (abs 1e-12): ok") and "FAILED" not in out

    # what the client sent and got: 250 different files, each answered once; per team
    # exactly 3 scored (runs 1, 2, 3) and 2 refused
    sent = {p.name: p.read_bytes() for p in (folder / "sent").iterdir()}
    answers = [json.loads(x) for x in (folder / "answers.jsonl").read_text().splitlines()]
    assert len(sent) == TEAMS * UPLOADS and len({sha256(d) for d in sent.values()}) == len(sent)
    assert sorted(a["file"] for a in answers) == sorted(sent)
    statuses = Counter((a["team"], a["status"]) for a in answers)
    assert statuses == Counter(
        {(f"team{i}", 201): RUNS for i in range(TEAMS)}
        | {(f"team{i}", 409): UPLOADS - RUNS for i in range(TEAMS)}
    )
    accepted = {a["id"]: a for a in answers if a["status"] == 201}
    assert len(accepted) == TEAMS * RUNS  # no id answered twice

    # the database: exactly one scored row per 201 (none lost, none extra, none rejected)
    rows = database_rows(serve_db)
    assert sorted(r["id"] for r in rows) == sorted(accepted)
    runs: dict[str, list[int]] = {}
    files = folder / "server" / "files"
    for r in rows:
        a = accepted[r["id"]]
        data = sent[a["file"]]
        assert (r["team"], r["phase"], r["status"], r["run"]) == (
            a["team"],
            "trial",
            "scored",
            a["run"],
        )
        assert (r["sha256"], r["size"]) == (sha256(data), len(data))
        assert (files / "submissions" / r["id"] / "upload").read_bytes() == data
        runs.setdefault(r["team"], []).append(r["run"])
    assert {team: sorted(x) for team, x in runs.items()} == {
        f"team{i}": [1, 2, 3] for i in range(TEAMS)
    }
    assert sorted(p.name for p in (files / "submissions").iterdir()) == sorted(accepted)
    assert list((files / "tmp").iterdir()) == []

    # the leaderboard, from a server over the same database and files, against offline scores
    from fastapi.testclient import TestClient

    from simeval.serve.app import create_app

    client = TestClient(create_app(serve_db, files))
    board = client.get("/api/campaigns/load/phases/trial/leaderboard").json()
    assert board["columns"] == ["rank", "system", *MEMBERS, "sum"]
    assert len(board["rows"]) == TEAMS * RUNS
    by_system = {f"{a['team']} run {a['run']}": a["file"] for a in accepted.values()}
    expected = {s: offline(folder / "sent" / f) for s, f in by_system.items()}
    sums = {s: sum(e[m] for m in MEMBERS) for s, e in expected.items()}
    for rank, system, *cells, total in board["rows"]:
        assert cells == [pytest.approx(expected[system][m], abs=1e-12) for m in MEMBERS]
        assert total == pytest.approx(sums[system], abs=1e-12)
        assert total == pytest.approx(expected[system]["russe"], abs=1e-12)
        assert rank == 1 + sum(x > sums[system] + 1e-12 for x in sums.values())
    assert sorted(r[1] for r in board["rows"]) == sorted(by_system)


def test_the_scripts_checks_catch_a_wrong_count_and_a_wrong_cell() -> None:
    """Two teams, two runs each, scores made up here: the board built from them passes; a
    third 201, an unexpected status, a cell off by 1e-9, a wrong rank or a missing row fail."""
    load = script()
    answers = [
        load.Answer(f"team{t}", f"team{t}-{k}.csv", "0" * 64, 201 if k < 2 else 409, 1.0)
        for t in range(2)
        for k in range(3)
    ]
    for a in answers:
        a.run = int(a.file[-5]) + 1 if a.status == 201 else None
    assert load.check_answers(answers, runs=2, uploads=3) == []
    assert load.check_answers(answers, runs=1, uploads=3) == [
        "team0: 2 uploads scored, expected 1",
        "team1: 2 uploads scored, expected 1",
    ]
    answers[2].status = 500
    assert load.check_answers(answers, runs=2, uploads=3) == ["team0-2.csv: HTTP 500"]
    answers[2].status = 409

    scores = {}
    for a in answers:
        seed = int(a.file[4]) * 3 + int(a.file[-5])
        parts = [round(0.1 * seed + 0.01 * j, 6) for j in range(4)]
        scores[a.file] = {**dict(zip(MEMBERS, parts, strict=True)), "russe": sum(parts)}
    systems = sorted(
        ((f"{a.team} run {a.run}", scores[a.file]) for a in answers if a.status == 201),
        key=lambda x: -x[1]["russe"],
    )
    rows = [[i + 1, s, *(v[m] for m in MEMBERS), v["russe"]] for i, (s, v) in enumerate(systems)]
    board = {"columns": ["rank", "system", *MEMBERS, "sum"], "rows": rows}
    assert load.check_board(board, answers, scores) == ([], 4 * 6)
    rows[1][3] += 1e-9
    assert len(load.check_board(board, answers, scores)[0]) == 1
    rows[1][3] -= 1e-9
    rows[0][0] = 2
    assert load.check_board(board, answers, scores)[0] == [
        f"{rows[0][1]}: rank 2, by the offline sums 1"
    ]
    rows[0][0] = 1
    board["rows"] = rows[1:]
    assert load.check_board(board, answers, scores)[0] == ["3 leaderboard rows for 4 scored runs"]


def test_an_upload_that_meets_a_dropped_connection_is_counted_not_raised(tmp_path: Path) -> None:
    """Issue 46: the 50-team run died on ``httpx.ReadError``. An upload whose connection the
    server drops is an answer of no status, named in the checks (not sent again: it may have
    been stored); and the clients drop idle connections before the server's keep-alive ends,
    the race that dropped one."""
    import asyncio

    import httpx

    from simeval.serve.app import KEEP_ALIVE_SECONDS

    load = script()
    assert load.limits().keepalive_expiry < KEEP_ALIVE_SECONDS

    async def dropped() -> Any:
        async def close(reader: Any, writer: Any) -> None:
            await reader.read(100)
            writer.close()

        server = await asyncio.start_server(close, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        path = tmp_path / "team0-0.csv"
        path.write_bytes(b"word1,word2,sim\n")
        teams = load.Teams(f"http://127.0.0.1:{port}", {"team0": [path]})
        async with server, httpx.AsyncClient(base_url=teams.url) as client:
            teams.clients, teams.tokens = {"team0": client}, {"team0": "t"}
            return await teams.send("team0", path)

    answer = asyncio.run(dropped())
    assert answer.status == load.NO_ANSWER and answer.error in {"ReadError", "RemoteProtocolError"}
    assert load.check_answers([answer], runs=1, uploads=1) == [
        f"team0-0.csv: no answer ({answer.error})",
        "team0: 0 uploads scored, expected 1",
    ]


def test_an_upload_admitted_before_the_runs_were_taken_is_refused_unscored(
    tmp_path: Path, serve_db: str, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three mc30 uploads of one team admitted together (0 of 2 runs used then), recorded one
    after another: two are scored, the third is refused (409) before scoring and not kept."""
    import simeval.kinds.scoring
    from serve_kit import OPENS, Clock, gold, make_server, pair_file, register
    from simeval.serve.service.submit import Refused

    server = make_server(serve_db, tmp_path / "server", Clock(OPENS + timedelta(days=1)))
    service = server.app.state.service
    team = service.authenticate(register(server.client, "alpha"))
    tickets = [service.admit(team, "trial", "mc30") for _ in range(3)]
    pairs = gold(data_dir / "mc30" / "EN-MC-30.txt")
    real, scored = simeval.kinds.scoring.score_submission, []
    patched = lambda *a, **k: scored.append(1) or real(*a, **k)  # noqa: E731
    monkeypatch.setattr(simeval.kinds.scoring, "score_submission", patched)
    runs = []
    for seed, ticket in enumerate(tickets):
        upload = service.storage.new_upload(ticket.max_bytes)
        upload.write(pair_file(pairs, seed)[0])
        upload.finish()
        try:
            runs.append(service.record(ticket, upload, "run.csv")[0].run)
        except Refused as exc:
            runs.append(exc.status)
    assert runs == [1, 2, 409] and len(scored) == 2
    assert len(list((server.files / "submissions").iterdir())) == 2
    assert list((server.files / "tmp").iterdir()) == []


def test_scoring_processes_answer_as_the_server_process_does(
    tmp_path: Path, serve_db: str, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server whose uploads are scored by 2 processes (``--scorers 2``): a good file's
    scores and item rows, and a bad file's error, equal offline scoring of the same bytes."""
    from fastapi.testclient import TestClient

    from serve_kit import (
        BAD_LINE,
        OPENS,
        Clock,
        bad_file,
        gold,
        make_server,
        pair_file,
        stop,
        upload,
    )
    from simeval.api import score
    from simeval.errors import InputError
    from simeval.results.items import read_items
    from simeval.results.store import load_results
    from simeval.serve.app import create_app

    clock = Clock(OPENS + timedelta(days=1))
    made = make_server(serve_db, tmp_path / "server", clock)
    stop(made.app)
    app = create_app(serve_db, made.files, clock=clock, rate_limits={}, scorers=2)
    pairs = gold(data_dir / "mc30" / "EN-MC-30.txt")
    good, bad = pair_file(pairs, 5)[0], bad_file(pairs)
    monkeypatch.chdir(tmp_path)
    Path("run.csv").write_bytes(good)
    Path("bad.csv").write_bytes(bad)
    (offline,) = score("mc30", Path("run.csv"))
    with pytest.raises(InputError) as refused:
        score("mc30", Path("bad.csv"))
    try:
        client = TestClient(app)
        token = client.post("/api/campaigns/lex25/teams", json={"team": "alpha"}).json()["token"]
        r = upload(client, token, good, target="mc30")
        assert r.status_code == 201, r.text
        assert r.json()["results"][0]["metrics"] == pytest.approx(offline.metrics, abs=1e-12)
        kept = made.files / "submissions" / r.json()["id"]  # a results folder of the store
        (record,) = load_results(kept)
        items = read_items(kept / record["items_file"])
        assert items["score"].tolist() == offline.items["score"].tolist()
        r = upload(client, token, bad, target="mc30", filename="bad.csv")
        assert r.status_code == 422
        assert (r.json()["error"], r.json()["line"]) == (str(refused.value), BAD_LINE)
    finally:
        app.state.service.close()
