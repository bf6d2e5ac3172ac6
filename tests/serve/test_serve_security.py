"""Security tests of the shared-task server, one (or a few) per guarantee of issue 18's item 4,
"Nothing lost, nobody where they don't belong", on SQLite and on PostgreSQL (``serve_db``):

1. a stored submission keeps the file, its sha256, the team, the time and the result record;
2. an upload is fully recorded or not at all, also when the server is killed (a real
   ``simeval serve run`` child process, SIGKILL) mid-upload or between rename and commit;
3. late uploads are refused on the server's clock, also when the deadline passes mid-upload;
4. a team can neither read nor overwrite another team's files or scores; tokens are per
   campaign;
5. CSRF on every form, cookies HttpOnly and SameSite=Strict;
6. size caps enforced while streaming: the server stops pulling the body past the cap (counted
   at the ASGI boundary, where the server asks for each chunk);
7. no path from a client's file name reaches the disk, and names are shown escaped;
8. rate limits on login and upload, per client address;
9. no token, token secret, CSRF value, session cookie or database password in any log line.

Expected values come from the bytes sent (hashlib), offline ``simeval.api.score`` on the same
bytes, scipy, or the files on disk; never from the server's own answers alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import json
import logging
import os
import re
import secrets
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from scipy.stats import spearmanr

pytest.importorskip("fastapi")
import httpx
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.orm import selectinload

from serve_kit import (
    CAMPAIGN,
    OPENS,
    TEST_OPENS,
    TRIAL_END,
    Clock,
    Server,
    bad_file,
    campaign_toml,
    csrf_value,
    free_port,
    make_server,
    page_csrf,
    pair_file,
    phase_toml,
    post_scope,
    quarantined,
    register,
    stop,
    upload,
    yp130_pairs,
)
from simeval.serve.app import create_app
from simeval.serve.db.models import Phase, Submission, Team, utc
from simeval.serve.service.campaigns import Targets, create_campaign
from simeval.serve.service.security import RateLimit

TRIAL_CAP = 100_000  # max_bytes of the trial phase in serve_kit.CAMPAIGN
MANY_RUNS = CAMPAIGN.replace("runs = 2\n", "runs = 30\n", 1)  # trial: room for many uploads
CSRF_COOKIE, SESSION_COOKIE = "simeval_csrf", "simeval_team"  # the names pages document


@pytest.fixture
def clock() -> Clock:
    return Clock(OPENS + timedelta(days=1))


@pytest.fixture
def srv(tmp_path: Path, clock: Clock, serve_db: str) -> Server:
    assert MANY_RUNS != CAMPAIGN
    return make_server(serve_db, tmp_path / "server", clock, campaign=MANY_RUNS)


def auth(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def rows(server: Server) -> list[Submission]:
    """Every submission row, oldest first, with its team loaded."""
    with server.db.session() as s:
        query = select(Submission).options(selectinload(Submission.team))
        return list(s.scalars(query.order_by(Submission.received, Submission.id)))


def stored(server: Server) -> tuple[list[str], list[str]]:
    """(folders in submissions/, entries in tmp/) of the server's storage."""
    files = server.files
    return (
        sorted(p.name for p in (files / "submissions").iterdir()),
        sorted(p.name for p in (files / "tmp").iterdir()),
    )


def client_at(app: Any, address: str = "127.0.0.1", **kwargs: Any) -> TestClient:
    """A test client that the app sees at ``address`` (no traffic: ASGI in process)."""
    return TestClient(
        app,
        client=(address, 50000),
        follow_redirects=False,
        raise_server_exceptions=False,
        **kwargs,
    )


# ---- the ASGI boundary: how many body bytes the server pulled


@dataclass
class Exchange:
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    pulled: int  # bytes of the request body the app asked for before it answered

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def json(self) -> Any:
        return json.loads(self.body)


def asgi(
    app: Any,
    path: str,
    chunks: Iterable[bytes],
    headers: dict[str, str],
    query: str = "",
    address: str = "127.0.0.1",
) -> Exchange:
    """POST ``chunks`` to ``app`` as a streamed body, one ASGI message a chunk, pulled lazily,
    counting the bytes the app takes before it answers."""

    async def run() -> Exchange:
        pending = iter(chunks)
        pulled = 0
        ended = False
        answered = asyncio.Event()
        status, out_headers, body = 0, [], bytearray()

        async def receive() -> dict[str, Any]:
            nonlocal pulled, ended
            if ended:  # the body is over: the client stays until the answer is sent
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(answered.wait(), timeout=60)
                return {"type": "http.disconnect"}
            chunk = next(pending, None)
            if chunk is None:
                ended = True
                return {"type": "http.request", "body": b"", "more_body": False}
            pulled += len(chunk)
            return {"type": "http.request", "body": chunk, "more_body": True}

        async def send(message: dict[str, Any]) -> None:
            nonlocal status, out_headers
            if message["type"] == "http.response.start":
                status = message["status"]
                out_headers = [(k.decode().lower(), v.decode()) for k, v in message["headers"]]
            elif message["type"] == "http.response.body":
                body.extend(message.get("body", b""))
                if not message.get("more_body"):
                    answered.set()

        scope = post_scope(path, query, headers, address)
        await app(scope, receive, send)
        return Exchange(status, out_headers, bytes(body), pulled)

    return asyncio.run(run())


BOUNDARY = "simeval-security-boundary"
FORM_TYPE = f"multipart/form-data; boundary={BOUNDARY}"
FORM_END = f"\r\n--{BOUNDARY}--\r\n".encode()


def form_field(name: str, value: str) -> bytes:
    head = f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
    return head.encode() + value.encode() + b"\r\n"


def file_head(filename: str) -> bytes:
    return (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
        "Content-Type: text/csv\r\n\r\n"
    ).encode()


def form_cookies(token: str, csrf: str) -> dict[str, str]:
    return {"cookie": f"{SESSION_COOKIE}={token}; {CSRF_COOKIE}={csrf}", "content-type": FORM_TYPE}


def upload_form(
    app: Any, token: str, data: Iterable[bytes], filename: str = "run.csv", target: str = "mc30"
) -> Exchange:
    """The web page's upload form (trial phase), its CSRF value made for the cookie and the
    session."""
    csrf = secrets.token_urlsafe(24)
    value = csrf_value(app, csrf, token)
    chunks = [form_field("csrf", value), form_field("target", target), file_head(filename)]
    return asgi(
        app,
        "/campaigns/lex25/phases/trial/upload",
        itertools.chain(chunks, data, [FORM_END]),  # lazily: the data may be a generator
        form_cookies(token, csrf),
    )


# ---- 1. a stored submission keeps everything


def test_a_stored_submission_keeps_bytes_hash_team_time_and_result(srv, clock, rg65, tmp_path):
    from simeval.api import score
    from simeval.results.items import read_items

    register(srv.client, "alpha")
    token = register(srv.client, "beta")
    clock.now = OPENS + timedelta(days=3, hours=4, minutes=5, seconds=6, microseconds=789)
    data, _ = pair_file(rg65, 7)
    r = upload(srv.client, token, data, target="rg65", filename="beta-run.csv")
    assert r.status_code == 201, r.text
    sid = r.json()["id"]

    assert (srv.files / "submissions" / sid / "upload").read_bytes() == data
    digest = hashlib.sha256(data).hexdigest()
    with srv.db.session() as s:
        row = s.get_one(Submission, sid)
        team, phase = row.team.name, row.phase.name
    assert row.sha256 == digest and r.json()["sha256"] == digest
    assert row.size == len(data)
    assert (team, phase, row.target, row.run, row.status) == ("beta", "trial", "rg65", 1, "scored")
    assert utc(row.received) == clock.now  # the injected clock, to the microsecond
    assert row.client_name == "beta-run.csv"

    offline_file = tmp_path / "offline.csv"
    offline_file.write_bytes(data)
    (offline,) = score("rg65", offline_file)
    (record,) = row.results
    assert record["benchmark"] == "rg65" and record["main_metric"] == offline.main_metric
    assert record["metrics"].keys() == offline.metrics.keys()
    for name, value in offline.metrics.items():
        assert record["metrics"][name] == pytest.approx(value, abs=1e-12, nan_ok=True) or (
            record["metrics"][name] is None and value != value
        )
    assert record["coverage"] == offline.coverage
    assert record["system"]["sha256"] == digest and record["system"]["file"] == "beta-run.csv"
    items = read_items(srv.files / "submissions" / sid / record["items_file"])
    assert set(items) == set(offline.items) and len(items["gold"]) == len(rg65)

    # nothing lives only in the server's memory: a new server over the same database and
    # folder answers the same
    stop(srv.app)
    again = TestClient(create_app(srv.url, srv.files, clock=clock, rate_limits={}))
    assert again.get(f"/api/submissions/{sid}", headers=auth(token)).json() == r.json()


# ---- 2. all or nothing, even when the server is killed


LIVE_CAMPAIGN = """
name = "live25"

[[phase]]
name = "now"
targets = ["mc30"]
opens = {opens}
deadline = {deadline}
runs = 3
max_bytes = 100_000
"""


def wait_for(condition: Callable[[], Any], what: str, seconds: float = 60) -> Any:
    """Poll ``condition`` until it is true (at most ``seconds``, every 20 ms)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


class CliServer:
    """``simeval serve run FOLDER --db URL --port P`` as a child process on 127.0.0.1 (the real
    clock); its stdout and stderr go to ``log``."""

    def __init__(self, folder: Path, url: str, log: Path) -> None:
        self.folder, self.url, self.log = folder, url, log
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None

    def create_campaign(self) -> None:
        """``simeval serve campaign`` with one phase open from yesterday to tomorrow."""
        from typer.testing import CliRunner

        from simeval.cli import app

        now = datetime.now(UTC).replace(microsecond=0)
        path = self.folder.parent / "live.toml"
        path.write_text(
            LIVE_CAMPAIGN.format(
                opens=(now - timedelta(days=1)).isoformat(),
                deadline=(now + timedelta(days=1)).isoformat(),
            ),
            encoding="utf-8",
        )
        done = CliRunner().invoke(app, ["serve", "campaign", str(self.folder), str(path), *self.db])
        assert done.exit_code == 0, done.output

    @property
    def db(self) -> list[str]:
        return ["--db", self.url]

    @contextlib.contextmanager
    def running(self) -> Iterator[httpx.Client]:
        import simeval

        env = dict(os.environ)
        src = str(Path(simeval.__file__).resolve().parents[1])  # the code under test
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
        argv = ["serve", "run", str(self.folder), *self.db, "--port", str(self.port)]
        code = (
            f"import sys; from simeval.cli import main; sys.argv = ['simeval', *{argv!r}]; main()"
        )
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-c", code], stdout=log, stderr=subprocess.STDOUT, env=env
            )
        client = httpx.Client(base_url=self.base, trust_env=False, timeout=60)
        try:
            wait_for(self._ready, "the server to start")
            yield client
        finally:
            client.close()
            self.stop()

    def _ready(self) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:
            raise AssertionError(f"the server exited:\n{self.log.read_text()}")
        try:
            return httpx.get(self.base + "/", trust_env=False, timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()


def start_upload(port: int, token: str, data: bytes, part: int) -> socket.socket:
    """An API upload of ``data`` whose Content-Length promises all of it; only ``part``
    bytes of the body are sent."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    head = (
        "POST /api/phases/now/submissions?target=mc30&filename=run.csv HTTP/1.1\r\n"
        f"Host: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n"
        f"Content-Type: text/csv\r\nContent-Length: {len(data)}\r\n\r\n"
    )
    sock.sendall(head.encode() + data[:part])
    return sock


def submission_ids(url: str) -> list[str]:
    from simeval.serve.db import Database

    db = Database(url)
    try:
        with db.session() as s:
            return sorted(s.scalars(select(Submission.id)))
    finally:
        db.dispose()


@contextlib.contextmanager
def write_lock(url: str) -> Iterator[None]:
    """Hold the database so that the server's next transaction on ``submission`` waits."""
    if url.startswith("sqlite"):
        con = sqlite3.connect(url.removeprefix("sqlite:///"), isolation_level=None, timeout=30)
        con.execute("BEGIN IMMEDIATE")  # the server's BEGIN IMMEDIATE waits for it
        try:
            yield
        finally:
            con.execute("ROLLBACK")
            con.close()
    else:
        import psycopg

        con = psycopg.connect(url)
        # writers wait; plain reads pass, as on SQLite (the count before scoring is one)
        con.execute("LOCK TABLE submission IN EXCLUSIVE MODE")
        try:
            yield
        finally:
            con.rollback()
            con.close()


@pytest.mark.slow
def test_killed_mid_upload_records_nothing(tmp_path, serve_db, mc30):
    folder = tmp_path / "live"
    live = CliServer(folder, serve_db, tmp_path / "server.log")
    live.create_campaign()
    tmp, kept = folder / "files" / "tmp", folder / "files" / "submissions"
    data = pair_file(mc30, 1)[0]
    with live.running() as http:
        r = http.post("/api/campaigns/live25/teams", json={"team": "alpha"})
        token = r.json()["token"]
        sock = start_upload(live.port, token, data, len(data) // 2)
        (partial,) = wait_for(lambda: list(tmp.iterdir()), "the upload to begin")
        live.kill()  # half the body sent, the server waiting for the rest
        sock.close()
    assert partial.is_dir()  # what the killed server left: an unfinished upload, no row
    assert submission_ids(serve_db) == []
    with live.running() as http:  # restarted
        assert list(tmp.iterdir()) == [] and list(kept.iterdir()) == []
        assert "quarantined 1 upload(s)" in live.log.read_text()  # the organiser is told
        ((when, listed),) = quarantined(folder / "files").items()  # moved, not deleted
        assert listed == [f"tmp/{partial.name}"]
        assert (folder / "files" / "quarantine" / when / "tmp" / partial.name).is_dir()
        assert http.get("/api/submissions", headers=auth(token)).json() == []
        r = http.post(
            "/api/phases/now/submissions",
            params={"target": "mc30", "filename": "run.csv"},
            content=data,
            headers=auth(token),
        )
        assert r.status_code == 201 and r.json()["run"] == 1
    assert (kept / r.json()["id"] / "upload").read_bytes() == data
    assert submission_ids(serve_db) == [r.json()["id"]]


@pytest.mark.slow
def test_killed_between_rename_and_commit_records_nothing(tmp_path, serve_db, mc30):
    """The database is held by the test, so the server scores the upload, renames it into
    submissions/ and then waits to commit its row: it is killed right there."""
    folder = tmp_path / "live"
    live = CliServer(folder, serve_db, tmp_path / "server.log")
    live.create_campaign()
    tmp, kept = folder / "files" / "tmp", folder / "files" / "submissions"
    first, second = pair_file(mc30, 1)[0], pair_file(mc30, 2)[0]

    def send(http: httpx.Client, token: str, data: bytes) -> httpx.Response:
        params = {"target": "mc30", "filename": "run.csv"}
        return http.post("/api/phases/now/submissions", params=params, content=data,
                         headers=auth(token))  # fmt: skip

    with live.running() as http:
        token = http.post("/api/campaigns/live25/teams", json={"team": "alpha"}).json()["token"]
        run1 = send(http, token, first).json()["id"]
        sock = start_upload(live.port, token, second, 10)
        (pending,) = wait_for(lambda: list(tmp.iterdir()), "the upload to begin")
        with write_lock(serve_db):
            sock.sendall(second[10:])
            wait_for((kept / pending.name).is_dir, "the upload to be renamed into place")
            live.kill()
        sock.close()
    assert (kept / pending.name / "upload").read_bytes() == second  # renamed, then killed
    assert submission_ids(serve_db) == [run1]  # ... before its row was committed
    with live.running() as http:
        assert sorted(p.name for p in kept.iterdir()) == [run1] and list(tmp.iterdir()) == []
        assert "quarantined 1 upload(s)" in live.log.read_text()
        ((when, listed),) = quarantined(folder / "files").items()
        assert listed == [f"submissions/{pending.name}"]
        moved = folder / "files" / "quarantine" / when / "submissions" / pending.name
        assert (moved / "upload").read_bytes() == second
        mine = http.get("/api/submissions", headers=auth(token)).json()
        assert [(m["id"], m["run"]) for m in mine] == [(run1, 1)]
        r = send(http, token, second)
        assert r.status_code == 201 and r.json()["run"] == 2
    assert submission_ids(serve_db) == sorted([run1, r.json()["id"]])


# ---- 3. late uploads, on the server's clock


@pytest.mark.parametrize("via", ["api", "form"])
def test_an_upload_that_ends_after_the_deadline_is_refused(srv, clock, mc30, via):
    token = register(srv.client, "alpha")
    clock.now = TRIAL_END - timedelta(seconds=1)
    data = pair_file(mc30, 1)[0]

    def body() -> Iterator[bytes]:  # the deadline passes on the server's clock mid-upload
        yield data[:100]
        clock.now = TRIAL_END + timedelta(seconds=1)
        yield data[100:]

    client_says = {"date": "Wed, 01 Jan 2025 00:00:00 GMT"}  # a client's clock counts for nothing
    if via == "api":
        x = asgi(
            srv.app,
            "/api/phases/trial/submissions",
            body(),
            {**auth(token), **client_says},
            query="target=mc30&filename=late.csv",
        )
    else:
        x = upload_form(srv.app, token, body())
    assert x.status == 403 and "closed" in x.text
    assert x.pulled >= len(data)  # it was all received, and refused
    assert rows(srv) == [] and stored(srv) == ([], [])
    clock.now = TRIAL_END - timedelta(seconds=1)
    assert upload(srv.client, token, data, target="mc30").json()["run"] == 1  # no run was used


# ---- 4. nobody where they don't belong


def test_a_team_cannot_read_another_teams_submission(srv, mc30):
    client = srv.client
    a, b = register(client, "alpha"), register(client, "beta")
    r = upload(client, a, pair_file(mc30, 1)[0], target="mc30", filename="alpha-private.csv")
    sid = r.json()["id"]
    assert client.get(f"/api/submissions/{sid}", headers=auth(a)).status_code == 200
    assert client.get(f"/api/submissions/{sid}", headers=auth(b)).status_code == 404
    assert client.get("/api/submissions", headers=auth(b)).json() == []
    as_b = client_at(srv.app, cookies={SESSION_COOKIE: b})
    mine = as_b.get("/mine")
    assert mine.status_code == 200 and sid not in mine.text and "alpha-private" not in mine.text
    as_a = client_at(srv.app, cookies={SESSION_COOKIE: a})
    assert "alpha-private.csv" in as_a.get("/mine").text
    for path in (  # no URL serves a stored file
        f"/submissions/{sid}",
        f"/submissions/{sid}/upload",
        f"/files/submissions/{sid}/upload",
        f"/api/submissions/{sid}/upload",
        f"/api/submissions/{sid}/file",
    ):
        assert as_a.get(path).status_code == 404
        assert as_b.get(path, headers=auth(b)).status_code == 404


def test_hidden_scores_are_shown_to_nobody_before_publication(srv, clock, data_dir):
    client = srv.client
    a, b = register(client, "alpha"), register(client, "beta")
    clock.now = TEST_OPENS + timedelta(hours=1)
    yp130 = yp130_pairs(data_dir)
    data, scores = pair_file(yp130, 3)
    expected = spearmanr([g for *_, g in yp130], scores).statistic
    r = upload(client, a, data, phase="test")
    assert r.status_code == 201 and r.json()["hidden"]
    shown = {f"{expected:.4f}", f"{expected:.3f}", repr(float(expected))[:8]}
    for token in (a, b):
        as_team = client_at(srv.app, cookies={SESSION_COOKIE: token})
        answers = [
            client.get("/api/submissions", headers=auth(token)),
            client.get(f"/api/submissions/{r.json()['id']}", headers=auth(token)),
            client.get("/api/campaigns/lex25/phases/test/leaderboard"),
            as_team.get("/campaigns/lex25/phases/test"),
            as_team.get("/campaigns/lex25"),
            as_team.get("/mine"),
        ]
        for answer in answers:
            assert not any(s in answer.text for s in shown), answer.url
            assert "spearman" not in answer.text, answer.url


def test_same_name_or_same_content_never_overwrites_another_team(srv, mc30):
    client = srv.client
    a, b = register(client, "alpha"), register(client, "beta")
    data_a = pair_file(mc30, 1)[0]
    first = upload(client, a, data_a, target="mc30", filename="run.csv").json()
    path_a = srv.files / "submissions" / first["id"] / "upload"
    before = (path_a.read_bytes(), hashlib.sha256(path_a.read_bytes()).hexdigest())
    assert before == (data_a, hashlib.sha256(data_a).hexdigest())

    same_name = upload(client, b, pair_file(mc30, 2)[0], target="mc30", filename="run.csv").json()
    same_bytes = upload(client, b, data_a, target="mc30", filename="run.csv").json()
    again_a = upload(client, a, data_a, target="mc30", filename="run.csv").json()
    ids = [first["id"], same_name["id"], same_bytes["id"], again_a["id"]]
    assert len(set(ids)) == 4
    assert (path_a.read_bytes(), hashlib.sha256(path_a.read_bytes()).hexdigest()) == before
    by_id = {}
    with srv.db.session() as s:
        for sub in s.scalars(select(Submission)):
            by_id[sub.id] = (sub.team.name, sub.run, sub.sha256)
    digest_a = hashlib.sha256(data_a).hexdigest()
    assert by_id[first["id"]] == ("alpha", 1, digest_a)
    assert by_id[same_bytes["id"]] == ("beta", 2, digest_a)
    assert by_id[again_a["id"]] == ("alpha", 2, digest_a)
    assert by_id[same_name["id"]][:2] == ("beta", 1)
    assert sorted(stored(srv)[0]) == sorted(ids)


def test_no_route_writes_to_a_submission(srv, mc30):
    client = srv.client
    a, b = register(client, "alpha"), register(client, "beta")
    sid = upload(client, a, pair_file(mc30, 1)[0], target="mc30").json()["id"]
    path = srv.files / "submissions" / sid / "upload"
    before = path.read_bytes()
    from simeval.serve.app import ROUTERS  # the app's routes (FastAPI nests included routers)

    routes = [*srv.app.routes, *(r for router in ROUTERS for r in router.routes)]
    named = [r for r in routes if "{submission_id}" in getattr(r, "path", "")]
    assert named
    for route in named:
        assert route.methods <= {"GET", "HEAD"}, route.path
    other = pair_file(mc30, 2)[0]
    for token in (a, b):
        for method in ("PUT", "POST", "PATCH", "DELETE"):
            r = client.request(
                method, f"/api/submissions/{sid}", content=other, headers=auth(token)
            )
            assert r.status_code == 405, (method, r.status_code)
    assert path.read_bytes() == before
    assert [(s.id, s.sha256) for s in rows(srv)] == [(sid, hashlib.sha256(before).hexdigest())]


OTHER_CAMPAIGN = campaign_toml("other", phase_toml("trial", ["mc30"]))


def test_a_token_works_only_in_its_own_campaign(srv, mc30, tmp_path):
    """Phase names collide across campaigns ("trial" in both): a team's upload goes to its own
    campaign's phase, never another's, whatever the URL says."""
    path = tmp_path / "other.toml"
    path.write_text(OTHER_CAMPAIGN, encoding="utf-8")
    create_campaign(srv.db, path, OPENS, Targets())
    client = srv.client
    mine = register(client, "alpha")  # lex25
    theirs = register(client, "alpha", campaign="other")  # the same name, another campaign
    with srv.db.session() as s:
        trials = select(Phase.campaign_id, Phase.id).where(Phase.name == "trial")
        trial_ids = {campaign_id: phase_id for campaign_id, phase_id in s.execute(trials)}
        other_id = s.scalar(select(Team.campaign_id).where(Team.token_key == theirs.split("_")[1]))

    r = upload(client, theirs, pair_file(mc30, 1)[0], target="mc30")
    assert r.status_code == 201
    (row,) = rows(srv)
    assert row.phase_id == trial_ids[other_id] and row.team.campaign_id == other_id
    board = client.get("/api/campaigns/lex25/phases/trial/leaderboard").json()
    assert board["rows"] == []  # nothing landed in lex25's trial
    assert client.get("/api/submissions", headers=auth(mine)).json() == []
    r = upload(client, theirs, pair_file(mc30, 2)[0], phase="test")  # only lex25 has it
    assert r.status_code == 404
    r = upload(client, mine, pair_file(mc30, 5)[0], target="mc30")  # lex25's team: lex25's trial
    (lex25_id,) = set(trial_ids) - {other_id}
    assert [s.phase_id for s in rows(srv) if s.id == r.json()["id"]] == [trial_ids[lex25_id]]

    page = client_at(srv.app, cookies={SESSION_COOKIE: theirs, CSRF_COOKIE: "c" * 32})
    r = page.post(
        "/campaigns/lex25/phases/trial/upload",
        data={"csrf": "c" * 32, "target": "mc30"},
        files={"file": ("run.csv", pair_file(mc30, 3)[0], "text/csv")},
    )
    assert r.status_code == 401
    assert "Upload" not in page.get("/campaigns/lex25").text  # no upload form for lex25

    key, secret = mine.split("_", 2)[1:]
    forged = [
        f"st_{key}_{secret[:-4]}AAAA",  # the right key, another secret
        f"st_{secrets.token_hex(6)}_{secret}",  # the right secret, an unknown key
        f"st_{key}_",
        mine.upper(),
        "st__",
        "",
        "Bearer",
        secret,
    ]
    for token in forged:
        assert upload(client, token, pair_file(mc30, 4)[0], target="mc30").status_code == 401
        assert client.get("/api/submissions", headers=auth(token)).status_code == 401
    assert len(rows(srv)) == 2


# ---- 5. CSRF


def test_cookies_are_httponly_and_samesite_strict(srv):
    http = client_at(srv.app)
    answers = [http.get("/campaigns/lex25")]
    csrf = page_csrf(http)
    answers.append(http.post("/campaigns/lex25/register", data={"team": "web", "csrf": csrf}))
    token = http.cookies[SESSION_COOKIE]
    answers.append(http.post("/logout", data={"csrf": page_csrf(http)}))
    http.cookies.delete(SESSION_COOKIE)
    answers.append(http.post("/login", data={"token": token, "csrf": page_csrf(http)}))
    cookies = [c for r in answers for c in r.headers.get_list("set-cookie")]
    assert {c.split("=", 1)[0] for c in cookies} == {CSRF_COOKIE, SESSION_COOKIE}
    assert len(cookies) >= 4
    for cookie in cookies:
        flags = [part.strip().lower() for part in cookie.split(";")[1:]]
        assert "httponly" in flags and "samesite=strict" in flags and "path=/" in flags, cookie
    https = client_at(srv.app, base_url="https://testserver")
    r = https.post("/login", data={"token": token, "csrf": page_csrf(https)})
    # over https the session cookie is Secure, and __Host- prefixed: the browser never sends
    # it in clear, and takes it only from this host over https for path / (no tossing)
    host = f"__Host-{SESSION_COOKIE}="
    (session,) = [c for c in r.headers.get_list("set-cookie") if c.startswith(host)]
    assert "secure" in [part.strip().lower() for part in session.split(";")]


def test_a_tossed_session_cookie_signs_nobody_in_over_https(srv):
    """Cookie tossing: a page on another port of the host (plain http) sets
    ``simeval_team=<the attacker's token>``; over https the server reads only the
    ``__Host-`` cookie, which such a page cannot set, so the victim is not signed in as the
    attacker's team (the attacker review signed a browser in this way over http)."""
    token = register(srv.client, "mallory")
    https = client_at(srv.app, base_url="https://testserver")
    https.cookies.set(SESSION_COOKIE, token)
    assert "Signed in as" not in https.get("/campaigns/lex25").text
    https.cookies.set(f"__Host-{SESSION_COOKIE}", token)
    assert "mallory" in https.get("/campaigns/lex25").text


GOOD_CSRF = "k2-Vd7bQy1_QmEzZ3sT0Q8xJwRr4a9Lm"
CSRF_FAILS = {  # (cookie, form field): every way the double submit can fail
    "no field": (GOOD_CSRF, None),
    "no cookie": (None, GOOD_CSRF),
    "mismatch": (GOOD_CSRF, "x" + GOOD_CSRF[1:]),
    "non-ascii": (GOOD_CSRF, "é" + GOOD_CSRF[1:]),
    "both empty": ("", ""),
}


def csrf_post(app: Any, path: str, cookie: str | None, field: str | None, **kw: Any) -> Any:
    """POST a form with the given CSRF cookie and field (None: left out), plus ``kw``'s
    cookies, fields and files."""
    cookies = dict(kw.pop("cookies", {}))
    if cookie is not None:
        cookies[CSRF_COOKIE] = cookie
    data = dict(kw.pop("data", {}))
    if field is not None:
        data["csrf"] = field
    return client_at(app, cookies=cookies).post(path, data=data, **kw)


def session_cookies(response: Any) -> list[str]:
    return [c for c in response.headers.get_list("set-cookie") if c.startswith(SESSION_COOKIE)]


def team_count(server: Server) -> int:
    with server.db.session() as s:
        return s.scalar(select(func.count()).select_from(Team))


@pytest.mark.parametrize("form", ["register", "login", "logout", "upload"])
def test_csrf_refuses_every_form_that_fails_the_double_submit(srv, mc30, form):
    token = register(srv.client, "alpha")
    signed_in = {SESSION_COOKIE: token}
    file = {"file": ("run.csv", pair_file(mc30, 1)[0], "text/csv")}
    forms = {
        "register": ("/campaigns/lex25/register", {"data": {"team": "web"}}),
        "login": ("/login", {"data": {"token": token}}),
        "logout": ("/logout", {"cookies": signed_in}),
        "upload": (
            "/campaigns/lex25/phases/trial/upload",
            {"cookies": signed_in, "data": {"target": "mc30"}, "files": file},
        ),
    }
    path, kw = forms[form]
    for case, (cookie, field) in CSRF_FAILS.items():
        r = csrf_post(srv.app, path, cookie, field, **kw)
        assert r.status_code == 403, (case, r.status_code, r.text[:300])
        assert session_cookies(r) == [], case  # no sign-in, no sign-out
        assert team_count(srv) == 1 and rows(srv) == [] and stored(srv) == ([], []), case
    session = kw.get("cookies", {}).get(SESSION_COOKIE)  # the same form, the value the server made
    r = csrf_post(srv.app, path, GOOD_CSRF, csrf_value(srv.app, GOOD_CSRF, session), **kw)
    assert r.status_code in (200, 303), r.text
    changed = {
        "register": lambda: team_count(srv) == 2 and len(session_cookies(r)) == 1,
        "login": lambda: [f"{SESSION_COOKIE}={token}" in c for c in session_cookies(r)] == [True],
        "logout": lambda: len(session_cookies(r)) == 1 and token not in r.headers["set-cookie"],
        "upload": lambda: len(rows(srv)) == 1,
    }
    assert changed[form]()


# ---- 6. size caps while streaming


def flood(size: int = 1_000_000, chunk: int = 1000) -> Iterator[bytes]:
    for _ in range(size // chunk):  # ten times the trial phase's cap
        yield b"1" * chunk


@pytest.mark.parametrize("length", ["none", "lying", "honest"])
def test_api_upload_stops_reading_at_the_cap(srv, length):
    token = register(srv.client, "alpha")
    headers = auth(token)
    if length == "lying":
        headers["content-length"] = "500"  # smaller than the body
    elif length == "honest":
        headers["content-length"] = "1000000"
    x = asgi(srv.app, "/api/phases/trial/submissions", flood(), headers, query="target=mc30")
    assert x.status == 413, x.text
    assert x.pulled <= TRIAL_CAP + 1000  # one chunk past the cap at most
    if length == "honest":
        assert x.pulled == 0  # refused on the header, before the body
    assert rows(srv) == [] and stored(srv) == ([], [])


@pytest.mark.parametrize("length", ["none", "lying"])
def test_form_upload_stops_reading_at_the_cap(srv, length):
    token = register(srv.client, "alpha")
    csrf = secrets.token_urlsafe(24)
    head = [form_field("csrf", csrf), form_field("target", "mc30"), file_head("big.csv")]
    headers = form_cookies(token, csrf)
    if length == "lying":
        headers["content-length"] = "500"
    x = asgi(srv.app, "/campaigns/lex25/phases/trial/upload", [*head, *flood(), FORM_END], headers)
    assert x.status == 413, x.text
    assert x.pulled <= TRIAL_CAP + sum(map(len, head)) + 1000
    assert rows(srv) == [] and stored(srv) == ([], [])


FORM_SLACK = 64 * 1024  # what a form may add to its file: fields, part headers, boundaries


@pytest.mark.parametrize("padding", ["fields", "after the end"])
def test_form_stops_reading_what_is_not_the_file(srv, mc30, padding):
    """A small file with a megabyte of other fields, or of bytes after the closing boundary:
    the server stops reading soon after the cap, whatever carries the bytes."""
    token = register(srv.client, "alpha")
    csrf = secrets.token_urlsafe(24)
    head = [form_field("csrf", csrf), form_field("target", "mc30"), file_head("run.csv")]
    file = [pair_file(mc30, 1)[0], FORM_END]
    if padding == "fields":
        pad = (form_field(f"pad{i}", "p" * 1000) for i in range(1000))
        chunks: Iterable[bytes] = [*head[:2], *pad, head[2], *file]
    else:
        chunks = [*head, *file, *flood()]
    x = asgi(srv.app, "/campaigns/lex25/phases/trial/upload", chunks, form_cookies(token, csrf))
    assert x.status == 413, x.text
    assert x.pulled <= TRIAL_CAP + FORM_SLACK + 1100
    assert rows(srv) == [] and stored(srv) == ([], [])


@pytest.mark.parametrize("path", ["/login", "/campaigns/lex25/register", "/logout"])
@pytest.mark.parametrize("kind", ["urlencoded", "multipart"])
def test_small_forms_stop_reading_early(srv, path, kind):
    """Register, sign-in and sign-out take a few short fields: a megabyte is refused after at
    most 64 KiB, and never spooled to disk or memory whole."""
    csrf = secrets.token_urlsafe(24)
    if kind == "urlencoded":
        ctype = "application/x-www-form-urlencoded"
        chunks: Iterable[bytes] = [f"csrf={csrf}&team=web&pad=".encode(), *flood()]
    else:
        ctype = FORM_TYPE
        chunks = [form_field("csrf", csrf), form_field("team", "web"), file_head("x"), *flood()]
    headers = {"cookie": f"{CSRF_COOKIE}={csrf}", "content-type": ctype}
    x = asgi(srv.app, path, chunks, headers)
    assert x.status in (400, 413), (x.status, x.text[:300])
    assert x.pulled <= FORM_SLACK + 1000
    assert team_count(srv) == 0


# ---- 7. client file names


EVIL_NAMES = [
    "../../x.csv",
    "/etc/passwd",
    "C:\\x.csv",
    "..\\..\\win.ini",
    "a\x00b.csv",
    "..",
    "",
    "n" * 3000 + ".csv",
    "<img src=x onerror=alert(1)>.csv",
    "line\r\nSet-Cookie: simeval_team=stolen",
    "serve.db",
    "upload",
]


def new_paths(root: Path, before: set[Path]) -> set[str]:
    """Files and folders under ``root`` that were not in ``before`` (SQLite's own files
    aside), as paths relative to ``root``."""
    now = {p for p in root.rglob("*") if not p.name.startswith("serve.db")}
    return {str(p.relative_to(root)) for p in now - before}


def kept_layout(sid: str, root: Path) -> set[str]:
    """What the storage layout (module storage) allows one scored submission to add: the
    upload, the results store's file (and its lock) and the items named by the server's
    record ids (16 hex digits, never the client's)."""
    base = f"server/files/submissions/{sid}"
    ids = [json.loads(x)["id"] for x in (root / base / "results.jsonl").read_text().splitlines()]
    assert all(re.fullmatch(r"[0-9a-f]{16}", i) for i in ids), ids
    store = [f"{base}/results.jsonl", f"{base}/results.jsonl.lock"]
    return {
        base,
        f"{base}/upload",
        f"{base}/items",
        *store,
        *(f"{base}/items/{i}.tsv.gz" for i in ids),
    }


def check_shown(name: str) -> None:
    """A name as shown: one printable line, no folder, at most 100 characters."""
    assert name and len(name) <= 100, name
    assert not any(c in name for c in "/\\\x00\r\n"), name
    assert name.isprintable() and name not in (".", "..")


def test_api_file_names_never_reach_the_disk(srv, mc30, tmp_path):
    token = register(srv.client, "alpha")
    for i, evil in enumerate(EVIL_NAMES):
        before = set(tmp_path.rglob("*"))
        r = upload(srv.client, token, pair_file(mc30, i)[0], target="mc30", filename=evil)
        assert r.status_code == 201, (evil, r.text)
        check_shown(r.json()["file"])
        assert new_paths(tmp_path, before) <= kept_layout(r.json()["id"], tmp_path), evil
    assert not (tmp_path / "x.csv").exists() and not (srv.folder / "x.csv").exists()
    mine = client_at(srv.app, cookies={SESSION_COOKIE: token}).get("/mine").text
    assert "&lt;img src=x onerror=alert(1)&gt;.csv" in mine and "<img" not in mine


def test_form_file_names_never_reach_the_disk_and_are_shown_escaped(srv, mc30, tmp_path):
    token = register(srv.client, "alpha")
    names = [n for n in EVIL_NAMES if "\r" not in n]  # a header cannot hold a line break
    seen: set[str] = set()
    for i, evil in enumerate(names):
        before = set(tmp_path.rglob("*"))
        x = upload_form(srv.app, token, [pair_file(mc30, i)[0]], filename=evil)
        assert x.status == 200, (evil, x.text)
        assert "<img" not in x.text
        (sub,) = [s for s in rows(srv) if s.id not in seen]
        seen.add(sub.id)
        assert new_paths(tmp_path, before) <= kept_layout(sub.id, tmp_path), evil
        check_shown(sub.client_name)
    html_name = "<img src=x onerror=alert(1)>.csv"
    x = upload_form(srv.app, token, [bad_file(mc30)], filename=html_name)
    assert x.status == 200 and "onerror=alert(1)&gt;.csv:4:" in x.text and "<img" not in x.text
    mine = client_at(srv.app, cookies={SESSION_COOKIE: token}).get("/mine").text
    assert "&lt;img src=x onerror=alert(1)&gt;.csv" in mine and "<img" not in mine


# ---- 8. rate limits


def test_rate_limit_on_login_per_client(tmp_path, serve_db, clock):
    s = make_server(serve_db, tmp_path / "server", clock, rate_limits={"login": RateLimit(2, 1e-9)})
    token = register(s.client, "alpha")

    def login(address: str, token: str) -> Any:
        csrf = secrets.token_urlsafe(24)
        http = client_at(s.app, address, cookies={CSRF_COOKIE: csrf})
        return http.post("/login", data={"token": token, "csrf": csrf_value(s.app, csrf)})

    first, wrong, third = (login("127.0.0.2", t) for t in (token, "st_000000000000_x", token))
    assert (first.status_code, wrong.status_code, third.status_code) == (303, 401, 429)
    assert session_cookies(third) == []  # a refused sign-in signs nobody in
    assert login("127.0.0.3", token).status_code == 303  # another client, its own bucket
    assert login("127.0.0.2", token).status_code == 429


def test_rate_limit_on_upload_per_client(tmp_path, serve_db, clock, mc30):
    s = make_server(serve_db, tmp_path / "server", clock, MANY_RUNS, {"upload": RateLimit(2, 1e-9)})
    a, b = register(s.client, "alpha"), register(s.client, "beta")
    here = client_at(s.app, "127.0.0.2")
    codes = [upload(here, a, pair_file(mc30, i)[0], target="mc30").status_code for i in range(2)]
    assert codes == [201, 201]
    refused = asgi(
        s.app,
        "/api/phases/trial/submissions",
        [pair_file(mc30, 3)[0]],
        auth(b),  # another team from the same address: the bucket is the address's
        query="target=mc30",
        address="127.0.0.2",
    )
    assert refused.status == 429 and refused.pulled == 0  # refused before the body is read
    form = upload_form(s.app, a, [pair_file(mc30, 4)[0]])  # form and API share the bucket
    assert form.status == 200  # ... of its own address: asgi() comes from 127.0.0.1
    there = asgi(
        s.app,
        "/campaigns/lex25/phases/trial/upload",
        [form_field("csrf", "c" * 32), file_head("run.csv"), pair_file(mc30, 5)[0], FORM_END],
        form_cookies(a, "c" * 32),
        address="127.0.0.2",
    )
    assert there.status == 429 and there.pulled == 0
    elsewhere = client_at(s.app, "127.0.0.3")
    assert upload(elsewhere, b, pair_file(mc30, 6)[0], target="mc30").status_code == 201
    teams = sorted(sub.team.name for sub in rows(s))
    assert teams == ["alpha", "alpha", "alpha", "beta"]  # the refused ones left no row
    assert len(stored(s)[0]) == 4 and stored(s)[1] == []


# ---- 9. logs without secrets


def secrets_of(tokens: list[str], csrf: list[str]) -> list[str]:
    """Every secret string of the session: tokens, their secret parts, CSRF values."""
    parts = [t.split("_", 2)[2] for t in tokens if t.count("_") >= 2]
    return [s for s in (*tokens, *parts, *csrf) if len(s) >= 16]


def test_logs_hold_no_secret_in_process(srv, mc30, caplog):
    caplog.set_level(logging.DEBUG)  # every logger: simeval, sqlalchemy, httpx, starlette
    http = client_at(srv.app)
    api_token = register(srv.client, "alpha")
    csrf = [page_csrf(http)]
    http.post("/campaigns/lex25/register", data={"team": "web", "csrf": csrf[-1]})
    web_token = http.cookies[SESSION_COOKIE]
    csrf.append(page_csrf(http))
    http.post("/logout", data={"csrf": csrf[-1]})
    csrf.append(page_csrf(http))
    assert http.post("/login", data={"token": web_token, "csrf": csrf[-1]}).status_code == 303
    upload(srv.client, api_token, pair_file(mc30, 1)[0], target="mc30")
    upload(srv.client, api_token, bad_file(mc30), target="mc30")
    wrong = web_token[:-6] + "wrong0"
    csrf.append(page_csrf(http))
    assert http.post("/login", data={"token": wrong, "csrf": csrf[-1]}).status_code == 401
    assert upload(srv.client, wrong, pair_file(mc30, 2)[0], target="mc30").status_code == 401
    text = caplog.text + "".join(repr(r.args) for r in caplog.records)
    assert "registered" in text and "submission" in text  # the log was captured
    for secret in secrets_of([api_token, web_token, wrong], [*csrf, http.cookies[CSRF_COOKIE]]):
        assert secret not in text


@pytest.mark.slow
def test_logs_hold_no_secret_in_the_live_server(tmp_path, serve_db, mc30):
    """Everything the ``simeval serve run`` process prints (uvicorn's access log and
    simeval's own lines) through register, form sign-in, Bearer uploads and a failed login."""
    url, password = serve_db, ""
    if url.startswith("postgresql://"):  # a password in the URL (the test server ignores it)
        password = "pw" + secrets.token_hex(12)
        url = url.replace("postgresql://simeval@", f"postgresql://simeval:{password}@", 1)
    folder = tmp_path / "live"
    log = tmp_path / "server.log"
    live = CliServer(folder, url, log)
    live.create_campaign()
    with live.running() as http:
        api_token = http.post("/api/campaigns/live25/teams", json={"team": "alpha"}).json()["token"]
        csrf = [page_csrf(http, "/campaigns/live25")]
        r = http.post("/campaigns/live25/register", data={"team": "web", "csrf": csrf[-1]})
        assert r.status_code == 200
        web_token = http.cookies[SESSION_COOKIE]
        csrf.append(page_csrf(http, "/campaigns/live25"))
        http.post("/logout", data={"csrf": csrf[-1]})
        http.cookies.delete(SESSION_COOKIE)
        csrf.append(page_csrf(http, "/campaigns/live25"))
        assert http.post("/login", data={"token": web_token, "csrf": csrf[-1]}).status_code == 303
        params = {"target": "mc30", "filename": "run.csv"}
        for token, data in ((api_token, pair_file(mc30, 1)[0]), (web_token, bad_file(mc30))):
            http.post("/api/phases/now/submissions", params=params, content=data,
                      headers=auth(token))  # fmt: skip
        wrong = web_token[:-6] + "wrong0"
        csrf.append(page_csrf(http, "/campaigns/live25"))
        assert http.post("/login", data={"token": wrong, "csrf": csrf[-1]}).status_code == 401
        csrf.append(http.cookies[CSRF_COOKIE])
        r = http.get("/api/submissions", headers=auth(wrong))
        assert r.status_code == 401
    text = log.read_text(encoding="utf-8", errors="replace")
    assert '"POST /login HTTP/1.1" 303' in text  # uvicorn's access log was captured
    assert "team web registered in live25" in text  # and simeval's own lines
    assert re.search(r"submission [0-9a-f]{32} by alpha to now/mc30: scored run 1", text)
    found = [s for s in secrets_of([api_token, web_token, wrong], csrf) if s in text]
    assert found == []
    if password:
        assert password not in text


def test_rate_limit_buckets_stay_bounded_and_keep_busy_clients_limited() -> None:
    """Many client addresses cannot grow the limiter without bound: refilled buckets are
    forgotten first, so a client still out of tokens stays limited."""
    from simeval.serve.service.security import RateLimit, RateLimiter

    now = [0.0]
    limiter = RateLimiter({"login": RateLimit(burst=1, per_minute=1)}, lambda: now[0], 50)
    assert limiter.allow("busy", "login")
    for i in range(200):  # 200 new addresses, one login each, while "busy" keeps trying
        now[0] += 0.01
        assert limiter.allow(f"10.0.0.{i}", "login")
        assert not limiter.allow("busy", "login")  # never forgotten while it is the latest
        assert len(limiter._buckets) <= 50
    now[0] += 120  # two minutes on, every bucket has refilled: the next pruning forgets them
    limiter._prune(now[0])
    assert limiter._buckets == {}
