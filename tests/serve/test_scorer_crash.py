"""A scoring process (``--scorers N``) killed while uploads are scored (issue 46): every
upload is answered 201, and is then stored and scored once, or 503 with ``Retry-After`` and
nothing kept; never 500, never a dropped connection; the server scores again afterwards.

The server is the app ``simeval serve run --scorers 2`` serves (``create_app(scorers=2)``
under uvicorn on loopback); four teams upload RUSSE-size files continuously (a scorer spends
a few tenths of a second on each, so a kill lands mid-work) while the test kills a scoring
process with SIGKILL, three times, each after the server has scored again."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import signal
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy.stats import spearmanr
from sqlalchemy import select

from serve_kit import (
    OPENS,
    Clock,
    campaign_toml,
    live,
    make_server,
    mine,
    pair_file,
    phase_toml,
    register,
    upload,
)

pytest.importorskip("httpx")

TEAMS, KILLS = 4, 3
CAMPAIGN = campaign_toml("lex25", phase_toml("trial", ["russe"], runs=10_000, max_bytes=2_000_000))
# a RUSSE run's records: its four test sets and the suite's sum (docs: the russe target)
MEMBERS = ("russe-hj", "russe-rt", "russe-ae", "russe-ae2", "russe")
WAIT = 120  # seconds the server may take to score again after a kill (a new pool loads RUSSE)


@dataclass
class Answer:
    team: str
    sha256: str
    status: int | None  # None: the connection failed
    retry_after: str | None = None
    id: str | None = None
    run: int | None = None
    failure: str = ""


def russe_files(data_dir: Path, n: int) -> list[bytes]:
    """``n`` RUSSE test files (word1,word2,sim) with seeded random scores."""
    with (data_dir / "russe" / "test.csv").open(encoding="utf-8", newline="") as f:
        pairs = [(a, b) for a, b, *_ in list(csv.reader(f))[1:]]
    out = []
    for seed in range(n):
        scores = np.random.default_rng(seed).random(len(pairs)).round(6).tolist()
        score = {p: s for p, s in zip(pairs, scores, strict=True)}  # a repeated pair: one score
        text = io.StringIO()
        writer = csv.writer(text, lineterminator="\n")
        writer.writerow(["word1", "word2", "sim"])
        writer.writerows((a, b, score[(a, b)]) for a, b in pairs)
        out.append(text.getvalue().encode())
    return out


def uploading(base: str, team: str, files: list[bytes], stop: threading.Event, out: list) -> None:
    """Register ``team``, then upload ``files`` in turn until ``stop``, keeping each answer."""
    import httpx

    with httpx.Client(base_url=base, timeout=WAIT, trust_env=False) as http:
        token = http.post("/api/campaigns/lex25/teams", json={"team": team}).json()["token"]
        k = 0
        while not stop.is_set():
            data = files[k % len(files)]
            answer = Answer(team, hashlib.sha256(data).hexdigest(), None)
            try:
                r = http.post(
                    "/api/phases/trial/submissions",
                    params={"filename": "run.csv"},
                    content=data,
                    headers={"authorization": f"Bearer {token}"},
                )
                answer.status, answer.retry_after = r.status_code, r.headers.get("retry-after")
                if r.status_code == 201:
                    answer.id, answer.run = r.json()["id"], r.json()["run"]
                else:
                    answer.failure = r.text[:300]
            except httpx.HTTPError as exc:  # a dropped connection
                answer.failure = repr(exc)
            out.append(answer)
            k += 1


def scored_since(answers: list[Answer], n: int, teams: int = 1) -> bool:
    """Whether ``teams`` teams each had an upload scored among the answers from ``n`` on."""
    return len({a.team for a in answers[n:] if a.status == 201}) >= teams


def wait_until(ready: Any, what: str) -> None:
    end = time.monotonic() + WAIT
    while not ready():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


@pytest.mark.slow
def test_a_killed_scoring_process_fails_no_upload(tmp_path: Path, serve_db: str, data_dir: Path):
    from simeval.serve.db.models import SCORED, Submission, Team

    server = make_server(
        serve_db, tmp_path / "srv", Clock(OPENS + timedelta(days=1)), CAMPAIGN, scorers=2
    )
    scorers = server.app.state.service.scorers
    files = russe_files(data_dir, 3)
    answers: list[Answer] = []
    stop = threading.Event()
    killed: list[int] = []
    with live(server.app) as base:
        threads = [
            threading.Thread(target=uploading, args=(base, f"team{i}", files, stop, answers))
            for i in range(TEAMS)
        ]
        for t in threads:
            t.start()
        try:
            for _ in range(KILLS):
                wait_until(lambda: scored_since(answers, 0), "a first scored upload")
                wait_until(lambda: len([p for p in scorers.pids() if p not in killed]) == 2,
                           "two scoring processes")  # fmt: skip
                alive = [p for p in scorers.pids() if p not in killed]
                time.sleep(0.3)  # mid-work: each scorer has an upload from the four teams
                os.kill(alive[0], signal.SIGKILL)
                killed.append(alive[0])
                # every team's upload in the dead pool is answered before the next kill
                n = len(answers)
                wait_until(lambda n=n: scored_since(answers, n, TEAMS), "uploads after a kill")
        finally:
            stop.set()
            for t in threads:
                t.join(timeout=WAIT)

    bad = [a for a in answers if a.status not in (201, 503)]
    assert not bad, bad[:5]  # never 500, never a dropped connection
    # each kill met uploads in its pool (four teams, two scorers): scored again, none lost
    assert [a for a in answers if a.status == 503] == []
    assert scorers.restarts == KILLS  # each kill broke the pool once; it was replaced once

    accepted = [a for a in answers if a.status == 201]
    with server.db.reading() as s:
        rows = s.execute(select(Submission, Team.name).join(Team)).all()
    by_id = {sub.id: (sub, team) for sub, team in rows}
    assert len(by_id) == len(rows) == len(accepted)  # a row per 201, none more
    for a in accepted:
        sub, team = by_id[a.id]
        assert (team, sub.run, sub.status, sub.sha256) == (a.team, a.run, SCORED, a.sha256)
        benchmarks = [r["benchmark"] for r in sub.results]
        assert sorted(benchmarks) == sorted(MEMBERS)  # scored once: no record twice
        stored = server.files / "submissions" / a.id
        assert hashlib.sha256((stored / "upload").read_bytes()).hexdigest() == a.sha256
        assert len((stored / "results.jsonl").read_text().splitlines()) == len(MEMBERS)
    for team in {a.team for a in accepted}:
        runs = sorted(sub.run for sub, name in by_id.values() if name == team)
        assert runs == list(range(1, len(runs) + 1))
    assert {p.name for p in (server.files / "submissions").iterdir()} == set(by_id)
    assert not any((server.files / "tmp").iterdir())  # nothing half-done left behind
    server.db.dispose()


class Pool:
    """A scoring pool in this process: ``broken`` ones fail every job as a pool whose process
    died does (after leaving a half-written results file in the job's folder), the others
    score it here."""

    def __init__(self, broken: bool) -> None:
        self.broken = broken
        self._processes: dict[int, Any] = {}

    def submit(self, fn: Any, job: Any) -> Future:
        from concurrent.futures.process import BrokenProcessPool

        done: Future = Future()
        if self.broken:
            (Path(job.folder) / "results.jsonl").write_text('{"half": ', encoding="utf-8")
            done.set_exception(BrokenProcessPool("a process was terminated abruptly"))
        else:
            done.set_result(fn(job))
        return done

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        pass


def pools(monkeypatch: Any, *broken: bool) -> list[Pool]:
    """The scoring pools the server starts, in turn: broken or not."""
    import simeval.serve.service.scoring as scoring

    made = [Pool(b) for b in broken]
    left = iter(made)
    monkeypatch.setattr(scoring, "spawn_pool", lambda processes: next(left))
    return made


def one_scorer(tmp_path: Path, serve_db: str) -> Any:
    return make_server(serve_db, tmp_path / "srv", Clock(OPENS + timedelta(days=1)), scorers=1)


def test_an_upload_whose_scoring_process_died_is_scored_again(
    tmp_path, serve_db, monkeypatch, mc30
):
    pools(monkeypatch, True, False)
    server = one_scorer(tmp_path, serve_db)
    token = register(server.client, "alpha")
    data, scores = pair_file(mc30, 1)
    r = upload(server.client, token, data, target="mc30")
    assert r.status_code == 201, r.text
    assert server.app.state.service.scorers.restarts == 1
    stored = server.files / "submissions" / r.json()["id"]
    records = [json.loads(x) for x in (stored / "results.jsonl").read_text().splitlines()]
    assert [x["benchmark"] for x in records] == ["mc30"]  # the dead process's half line gone
    expected = spearmanr([g for *_, g in mc30], scores)[0]
    assert records[0]["metrics"]["spearman"] == pytest.approx(expected, abs=1e-12)
    server.db.dispose()


def test_an_upload_whose_scoring_dies_twice_is_answered_503_and_nothing_is_kept(
    tmp_path, serve_db, monkeypatch, mc30
):
    pools(monkeypatch, True, True, False)
    server = one_scorer(tmp_path, serve_db)
    token = register(server.client, "alpha")
    data, _ = pair_file(mc30, 1)
    r = upload(server.client, token, data, target="mc30")
    assert r.status_code == 503, r.text
    assert r.headers["retry-after"] == "60"
    assert "nothing was kept and no run was used" in r.json()["error"]
    assert mine(server.client, token) == []
    assert not any((server.files / "tmp").iterdir())
    assert not (server.files / "submissions").exists() or not any(
        (server.files / "submissions").iterdir()
    )
    again = upload(server.client, token, data, target="mc30")  # the third pool scores
    assert (again.status_code, again.json()["run"]) == (201, 1)  # the 503 used no run
    server.db.dispose()


def test_the_servers_workers_run_below_its_priority():
    """Issue 46: scorers and the tiers' process run ``NICE`` steps nicer than the server, so
    that the server's one process answers readers first when scoring fills the cores."""
    import os

    from simeval.serve.service.processes import NICE, spawn_pool

    assert NICE > 0
    pool = spawn_pool(1)
    try:
        theirs = pool.submit(os.nice, 0).result(timeout=60)
    finally:
        pool.shutdown()
    assert theirs == min(19, os.nice(0) + NICE)
