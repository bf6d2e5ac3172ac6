"""Abuse resistance of the shared-task server, issue 28's points 7-10, each as the attack it
stops (on SQLite and PostgreSQL where the database matters: ``serve_db``):

7. every route reads a bounded body (413), a multipart body cut before its closing boundary
   is refused (400) and its partial file discarded;
8. scrypt runs in a thread, without a database connection, once per check whether the key
   exists or not; the event loop answers while tokens are hashed; token checks are rate
   limited per client;
9. CSRF values are bound to the session (a page on another port of the host cannot forge a
   form); ``X-Forwarded-For`` counts only from ``--trust-proxy``; registration can be closed
   or capped; rejected uploads are capped per team and day and their bytes pruned; team names
   are normalised and look-alikes refused;
10. a corrupt zip is the client's error; an upload timeout; CSV export escapes formulas;
    security headers; the Host header is not reflected; no ``/openapi.json``; token rotation;
    a team with no runs left is refused before its body is read.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import io
import re
import secrets
import threading
import time
import zipfile
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
import httpx
from fastapi.testclient import TestClient

from serve_kit import (
    CAMPAIGN,
    OPENS,
    Clock,
    Server,
    bad_file,
    csrf_value,
    live,
    make_server,
    mine,
    page_csrf,
    pair_file,
    post_scope,
    register,
    stop,
    upload,
)
from simeval.serve.service.security import RateLimit
from test_serve_security import (
    CSRF_COOKIE,
    FORM_END,
    SESSION_COOKIE,
    TRIAL_CAP,
    asgi,
    auth,
    client_at,
    file_head,
    flood,
    form_cookies,
    form_field,
    rows,
    stored,
    upload_form,
)

SMALL_BODY = 16 * 1024  # the cap of a JSON body or a form without a file
ONE_TARGET = CAMPAIGN.replace('targets = ["mc30", "rg65", "sts12-msrvid"]', 'targets = ["mc30"]')


@pytest.fixture
def clock() -> Clock:
    return Clock(OPENS + timedelta(days=1))


@pytest.fixture
def srv(tmp_path: Path, clock: Clock, serve_db: str) -> Server:
    return make_server(serve_db, tmp_path / "server", clock)


def server_with(
    url: str, folder: Path, clock: Clock, campaign: str = CAMPAIGN, **options: Any
) -> Server:
    """:func:`serve_kit.make_server` with ``create_app``'s other options."""
    from simeval.serve.app import create_app

    base = make_server(url, folder, clock, campaign)
    stop(base.app)
    app = create_app(url, folder / "files", clock=clock, **{"rate_limits": {}, **options})
    return Server(url, folder, base.db, app, TestClient(app))


def never_read() -> Iterator[bytes]:
    """A body that fails the test when the server reads it."""
    raise AssertionError("the server read the body")
    yield b""  # pragma: no cover


# ---- 7. bounded bodies


@pytest.mark.parametrize("length", ["none", "honest"])
def test_the_registration_api_reads_at_most_a_small_body(srv, length):
    """Today's code read a JSON body of any size (request.json()): 400 MiB took 1.89 GB."""
    headers = {"content-type": "application/json"}
    if length == "honest":
        headers["content-length"] = str(400 * 2**20)
    chunks = [b'{"team": "alpha", "pad": "', *flood(2_000_000)]
    x = asgi(srv.app, "/api/campaigns/lex25/teams", chunks, headers)
    assert x.status == 413, x.text
    assert x.pulled <= (0 if length == "honest" else SMALL_BODY + 1000)
    assert register(srv.client, "alpha")  # a small body still registers


def test_every_post_route_stops_reading_past_its_cap(srv):
    from datetime import UTC, datetime

    from simeval.serve.service.organisers import add_organiser

    token = register(srv.client, "alpha")
    organiser = add_organiser(srv.db, "Ada", datetime.now(UTC))  # the console's routes read too
    csrf = "c" * 32
    from simeval.serve.app import ROUTERS  # the app's routes (FastAPI nests included routers)

    routes = [*srv.app.routes, *(r for router in ROUTERS for r in router.routes)]
    posts = sorted(
        r.path for r in routes if "POST" in (getattr(r, "methods", None) or ()) and r.path != "/"
    )
    assert len(posts) >= 6
    for path in posts:
        concrete = path.format(campaign="lex25", phase="trial")
        headers = {**form_cookies(token, csrf), **auth(token)}
        headers["cookie"] += f"; simeval_organiser={organiser}"
        if "/api/" in path:
            headers["content-type"] = "application/json"
        x = asgi(srv.app, concrete, flood(3_000_000), headers, query="target=mc30")
        assert x.status in (400, 413), (path, x.status, x.text[:200])
        assert x.pulled <= TRIAL_CAP + 64 * 1024 + 1000, path
    assert rows(srv) == [] and stored(srv) == ([], [])
    assert any(p.startswith("/organiser/") for p in posts)


def test_a_multipart_body_cut_before_its_closing_boundary_is_refused(srv, mc30):
    token = register(srv.client, "alpha")
    csrf = secrets.token_urlsafe(24)
    value = csrf_value(srv.app, csrf, token)
    data = pair_file(mc30, 1)[0]
    head = [form_field("csrf", value), form_field("target", "mc30"), file_head("run.csv")]
    path = "/campaigns/lex25/phases/trial/upload"
    cut = asgi(srv.app, path, [*head, data[: len(data) // 2]], form_cookies(token, csrf))
    assert cut.status == 400 and "closing boundary" in cut.text
    assert rows(srv) == [] and stored(srv) == ([], [])  # the partial file is gone
    whole = asgi(srv.app, path, [*head, data, FORM_END], form_cookies(token, csrf))
    assert whole.status == 200, whole.text
    assert len(rows(srv)) == 1


# ---- 8. hashing off the event loop, once per check, rate limited


def test_a_token_costs_one_scrypt_off_the_loop_without_a_connection(srv, monkeypatch):
    from simeval.serve.service import security

    token = register(srv.client, "alpha")
    key = token.split("_")[1]
    pool = srv.app.state.db.engine.pool
    calls: list[tuple[bool, int]] = []
    real = security.hash_secret

    def counted(secret: str, salt: str) -> str:
        try:
            asyncio.get_running_loop()
            on_loop = True
        except RuntimeError:
            on_loop = False
        calls.append((on_loop, pool.checkedout()))
        return real(secret, salt)

    monkeypatch.setattr(security, "hash_secret", counted)
    unknown = f"st_{secrets.token_hex(6)}_{secrets.token_urlsafe(32)}"
    wrong = f"st_{key}_{secrets.token_urlsafe(32)}"
    for forged in (unknown, wrong):
        calls.clear()
        r = srv.client.get("/api/submissions", headers=auth(forged))
        assert r.status_code == 401
        assert calls == [(False, 0)], forged  # one scrypt, in a thread, no connection held
    calls.clear()
    assert srv.client.get("/api/submissions", headers=auth(token)).status_code == 200
    assert srv.client.get("/api/submissions", headers=auth(token)).status_code == 200
    assert calls == [(False, 0)]  # the second request hit the cache of checked tokens
    http = client_at(srv.app)
    value = page_csrf(http)
    calls.clear()
    assert http.post("/login", data={"token": unknown, "csrf": value}).status_code == 401
    assert calls == [(False, 0)]


@pytest.mark.slow
def test_the_event_loop_answers_while_tokens_are_hashed(srv, monkeypatch):
    """Every hash is held until the leaderboard has answered (or 20 s): with scrypt on the
    event loop the leaderboard cannot answer while a hash is held."""
    from simeval.serve.service import security

    release = threading.Event()
    started = threading.Semaphore(0)
    real = security.hash_secret

    def held(secret: str, salt: str) -> str:
        started.release()
        release.wait(20)
        return real(secret, salt)

    # the team's token is hashed before the hash is held (held, registering waited 20 s)
    key = register(srv.client, "alpha").split("_")[1]
    monkeypatch.setattr(security, "hash_secret", held)
    with live(srv.app) as base:
        codes: list[int] = []

        def bad_login(i: int) -> None:
            forged = f"st_{key}_{secrets.token_urlsafe(32)}{i}"
            r = httpx.get(f"{base}/api/submissions", headers=auth(forged), timeout=60)
            codes.append(r.status_code)

        burst = [threading.Thread(target=bad_login, args=(i,)) for i in range(8)]
        for t in burst:
            t.start()
        assert started.acquire(timeout=20)  # a hash is running (held)
        try:
            board = httpx.get(f"{base}/api/campaigns/lex25/phases/trial/leaderboard", timeout=10)
            answered = board.status_code == 200 and not release.is_set()
        except httpx.TimeoutException:
            answered = False
        release.set()
        for t in burst:
            t.join(60)
    assert answered  # while the hashes were held
    assert sorted(codes) == [401] * 8


def test_token_checks_are_rate_limited_per_client(tmp_path, serve_db, clock):
    limits = {"auth": RateLimit(burst=2, per_minute=1e-9)}
    s = make_server(serve_db, tmp_path / "server", clock, rate_limits=limits)
    token = register(s.client, "alpha")
    here, there = client_at(s.app, "127.0.0.2"), client_at(s.app, "127.0.0.3")
    assert here.get("/api/submissions", headers=auth(token)).status_code == 200  # 1 check
    forged = f"st_{token.split('_')[1]}_{secrets.token_urlsafe(32)}"
    codes = [here.get("/api/submissions", headers=auth(forged)).status_code for _ in range(3)]
    assert codes == [401, 429, 429]
    assert here.get("/api/submissions", headers=auth(token)).status_code == 200  # cached: free
    assert there.get("/api/submissions", headers=auth(forged)).status_code == 401


def test_ipv6_clients_share_a_bucket_per_64(tmp_path, serve_db, clock):
    """A host holds a whole /64: a new address per request must not mean a new bucket."""
    limits = {"auth": RateLimit(burst=2, per_minute=1e-9)}
    s = make_server(serve_db, tmp_path / "server", clock, rate_limits=limits)
    forged = f"st_{secrets.token_hex(6)}_{secrets.token_urlsafe(32)}"

    def check(address: str) -> int:
        return client_at(s.app, address).get("/api/submissions", headers=auth(forged)).status_code

    codes = [check(f"2001:db8:0:7::{i:x}") for i in range(1, 5)]
    assert codes == [401, 401, 429, 429]
    assert check("2001:db8:0:8::1") == 401  # another /64, another bucket


def test_board_reads_are_rate_limited_per_client(tmp_path, serve_db, clock, mc30):
    """The leaderboard, HTML and JSON, takes ``read`` requests from a client: 3 at once, then
    6 a minute, so the 4th waits 10 s (a token every 60/6 s), said in ``Retry-After``.
    Another client has its own budget; uploads and other pages count apart."""
    limits = {"read": RateLimit(burst=3, per_minute=6)}
    s = make_server(serve_db, tmp_path / "server", clock, rate_limits=limits)
    token = register(s.client, "alpha")
    here, there = client_at(s.app, "127.0.0.2"), client_at(s.app, "127.0.0.3")
    board, page = "/api/campaigns/lex25/phases/trial/leaderboard", "/campaigns/lex25/phases/trial"
    assert [here.get(path).status_code for path in (board, page, board)] == [200] * 3
    for path in (board, page):
        r = here.get(path)
        assert r.status_code == 429, r.text
        assert int(r.headers["retry-after"]) in (9, 10)  # 10 s less what refilled meanwhile
    assert [there.get(path).status_code for path in (board, page)] == [200, 200]
    data, _ = pair_file(mc30, 1)
    r = here.post(
        "/api/phases/trial/submissions",
        params={"filename": "run.csv", "target": "mc30"},
        content=data,
        headers=auth(token),
    )
    assert r.status_code == 201, r.text
    assert here.get("/campaigns/lex25").status_code == 200


def test_board_reads_have_a_default_budget():
    """Reads are limited unless told otherwise; a page polled every few seconds never
    meets the limit, a client reading in a loop does."""
    from simeval.serve.routers.web import RATE_LIMITS

    read = RATE_LIMITS["read"]
    assert read.burst >= 30 and 60 <= read.per_minute <= 600


# ---- 9. CSRF bound to the session


def test_a_page_on_another_port_cannot_forge_an_upload(srv, mc30):
    """The attacker's page at http://127.0.0.1:8080 shares the host's cookies (cookies ignore
    ports, and SameSite counts it as the same site): it fetches its own CSRF cookie and form
    value, sets that cookie in the victim's browser and posts the form there, with the
    victim's session cookie attached."""
    victim = register(srv.client, "victim")
    attacker = client_at(srv.app)
    value = page_csrf(attacker)  # the attacker's own, valid for an anonymous browser
    planted = attacker.cookies[CSRF_COOKIE]
    path = "/campaigns/lex25/phases/trial/upload"
    body = [form_field("target", "mc30"), file_head("run.csv"), pair_file(mc30, 1)[0], FORM_END]
    for forged in (planted, value):  # the old double submit, and the server's own value
        for browser in ({}, {"sec-fetch-site": "same-site", "origin": "http://127.0.0.1:8080"}):
            headers = {**form_cookies(victim, planted), **browser}
            x = asgi(srv.app, path, [form_field("csrf", forged), *body], headers)
            assert x.status == 403, (forged == planted, browser, x.status)
    assert rows(srv) == [] and stored(srv) == ([], [])
    own = asgi(  # the victim's own page: its value, made for its session
        srv.app,
        path,
        [form_field("csrf", csrf_value(srv.app, planted, victim)), *body],
        {**form_cookies(victim, planted), "sec-fetch-site": "same-origin"},
    )
    assert own.status == 200, own.text


def test_sign_in_from_another_origin_is_refused(srv):
    token = register(srv.client, "alpha")
    http = client_at(srv.app)
    value = page_csrf(http)
    r = http.post(
        "/login", data={"token": token, "csrf": value}, headers={"sec-fetch-site": "same-site"}
    )
    assert r.status_code == 403 and SESSION_COOKIE not in r.headers.get("set-cookie", "")
    r = http.post(
        "/login", data={"token": token, "csrf": value}, headers={"sec-fetch-site": "same-origin"}
    )
    assert r.status_code == 303


# ---- 9. X-Forwarded-For only from named proxies


def cli_server(tmp_path: Path, serve_db: str, *options: str) -> tuple[Any, dict[str, Any]]:
    """What ``simeval serve run`` hands uvicorn: (app, uvicorn's options), run_cmd's own
    code path with uvicorn.run replaced."""
    import uvicorn
    from typer.testing import CliRunner

    from simeval.cli import app as cli
    from simeval.errors import InputError
    from simeval.serve.db import Database
    from simeval.serve.service.campaigns import Targets, create_campaign

    folder = tmp_path / "cli"
    folder.mkdir(exist_ok=True)
    (folder / "c.toml").write_text(CAMPAIGN, encoding="utf-8")
    db = Database(serve_db)
    with contextlib.suppress(InputError):  # made by an earlier call of this test
        create_campaign(db, folder / "c.toml", OPENS, Targets())
    db.dispose()
    seen: dict[str, Any] = {}

    def run(app: Any, **kwargs: Any) -> None:
        seen.update(kwargs, app=app)

    original = uvicorn.run
    uvicorn.run = run
    try:
        done = CliRunner().invoke(cli, ["serve", "run", str(folder), "--db", serve_db, *options])
    finally:
        uvicorn.run = original
    assert done.exit_code == 0, done.output
    return seen.pop("app"), seen


def logins(base: str, forwarded: list[str]) -> list[int]:
    """A failed sign-in per X-Forwarded-For value, all from 127.0.0.1."""
    with httpx.Client(base_url=base, trust_env=False, timeout=30) as http:
        value = page_csrf(http)
        return [
            http.post(
                "/login",
                data={"token": "st_000000000000_x", "csrf": value},
                headers={"x-forwarded-for": f},
            ).status_code
            for f in forwarded
        ]


@pytest.mark.slow
def test_x_forwarded_for_counts_only_from_a_named_proxy(tmp_path, serve_db):
    """Default limits: 10 sign-ins at once per client. Today uvicorn believed the header
    from any loopback client, so a local client got a bucket per made-up address."""
    app, options = cli_server(tmp_path, serve_db)
    options = {
        k: v for k, v in options.items() if k not in ("host", "port", "log_config", "log_level")
    }
    with live(app, **options) as base:
        codes = logins(base, [f"10.0.0.{i}" for i in range(12)])
    assert codes[:10] == [401] * 10 and codes[10:] == [429, 429]

    app, options = cli_server(tmp_path, serve_db, "--trust-proxy", "127.0.0.1,10.9.0.0/16")
    options = {
        k: v for k, v in options.items() if k not in ("host", "port", "log_config", "log_level")
    }
    with live(app, **options) as base:
        assert logins(base, [f"10.0.0.{i}" for i in range(12)]) == [401] * 12  # a bucket each
        # a client's own X-Forwarded-For is to the left of what the proxy appends: the
        # right-most address that is not a trusted proxy is the client's
        spoofed = [f"10.0.0.{i}, 203.0.113.7, 10.9.0.1" for i in range(12)]
        codes = logins(base, spoofed)
    assert codes[:10] == [401] * 10 and codes[10:] == [429, 429]


# ---- 9. registration closed or capped


def test_registration_can_be_closed_and_capped(tmp_path, serve_db, clock):
    from typer.testing import CliRunner

    from simeval.cli import app as cli
    from simeval.errors import InputError

    closed = CAMPAIGN.replace(
        'title = "Word similarity 2025"\n', 'title = "W"\nregistration = "closed"\n'
    )
    s = make_server(serve_db, tmp_path / "server", clock, campaign=closed)
    r = s.client.post("/api/campaigns/lex25/teams", json={"team": "alpha"})
    assert r.status_code == 403 and "closed" in r.json()["error"]
    http = client_at(s.app)
    r = http.post("/campaigns/lex25/register", data={"team": "web", "csrf": page_csrf(http)})
    assert r.status_code == 403
    folder = ["serve", "registration", str(tmp_path / "server"), "-c", "lex25", "--db", serve_db]
    done = CliRunner().invoke(cli, [*folder, "--set", "open", "--max-teams", "2"])
    assert done.exit_code == 0 and "registration open, at most 2 teams" in done.output
    register(s.client, "alpha")
    register(s.client, "beta")
    r = s.client.post("/api/campaigns/lex25/teams", json={"team": "gamma"})
    assert r.status_code == 403 and "2 teams" in r.json()["error"]

    from simeval.serve.service.campaigns import read_registration

    for doc, message in (({"registration": "maybe"}, "open"), ({"max_teams": 0}, "≥ 1")):
        with pytest.raises(InputError, match=message):
            read_registration(doc, Path("c.toml"))


def test_the_team_cap_holds_under_concurrent_registrations(tmp_path, serve_db, clock):
    capped = CAMPAIGN.replace('title = "Word similarity 2025"\n', 'title = "W"\nmax_teams = 3\n')
    s = make_server(serve_db, tmp_path / "server", clock, campaign=capped)
    codes: list[int] = []

    def go(i: int) -> None:
        r = s.client.post("/api/campaigns/lex25/teams", json={"team": f"team{i}"})
        codes.append(r.status_code)

    threads = [threading.Thread(target=go, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(codes) == [201] * 3 + [403] * 5


# ---- 9. rejected uploads per team and day, pruned


def test_rejected_uploads_are_capped_per_day_and_pruned(tmp_path, serve_db, clock, mc30):
    from simeval.serve.service.export import export

    s = server_with(
        serve_db, tmp_path / "server", clock, rejected_per_day=3, keep_rejected=(2, 7.0)
    )
    token = register(s.client, "alpha")
    for i in range(3):
        clock.now += timedelta(minutes=1)
        r = upload(s.client, token, bad_file(mc30), target="mc30", filename=f"=bad{i}.csv")
        assert r.status_code == 422
    x = asgi(s.app, "/api/phases/trial/submissions", never_read(), auth(token), "target=mc30")
    assert x.status == 429 and "rejected" in x.text  # refused before the body
    assert upload(s.client, token, pair_file(mc30, 1)[0], target="mc30").status_code == 429
    rejected = [sub for sub in rows(s) if sub.status == "rejected"]
    assert len(rejected) == 3  # every row stays ...
    kept = [sub.id for sub in rejected if s.files.joinpath("submissions", sub.id).exists()]
    assert kept == [sub.id for sub in rejected[1:]]  # ... the bytes of the latest 2 only
    clock.now += timedelta(days=1, minutes=1)  # a day later: allowed again
    r = upload(s.client, token, pair_file(mc30, 1)[0], target="mc30")
    assert r.status_code == 201, r.text
    clock.now += timedelta(days=8)  # a week on, the next rejection prunes the old ones
    assert upload(s.client, token, bad_file(mc30), target="mc30").status_code == 422
    still = [p.name for p in (s.files / "submissions").iterdir()]
    assert len(still) == 2 and r.json()["id"] in still  # the scored one and the newest

    out = tmp_path / "export"
    export(s.db, s.app.state.service.storage, "lex25", out)
    table = list(csv.DictReader(io.StringIO((out / "submissions.csv").read_text("utf-8"))))
    assert [t["stored"] for t in table] == ["pruned", "pruned", "pruned", "yes", "yes"]
    assert sorted(p.name for p in (out / "submissions").iterdir()) == sorted(still)
    assert table[0]["client_name"] == "'=bad0.csv"  # 10. a formula is escaped
    assert table[0]["error"].startswith("'=bad0.csv:4:")


# ---- 9. team names


def test_team_names_are_normalised_and_look_alikes_refused(srv):
    def reg(name: str) -> httpx.Response:
        return srv.client.post("/api/campaigns/lex25/teams", json={"team": name})

    for bad in ("alpha\n", " alpha", "al\u200bpha", "al pha", "\u0430lpha", "-x", "a" * 65):
        assert reg(bad).status_code == 422, bad  # control, format, space, mixed scripts
    assert reg("alpha").status_code == 201
    for twin in ("ALPHA", "\uff41\uff4c\uff50\uff48\uff41", "Alpha"):
        assert reg(twin).status_code == 409, twin
    assert reg("copex").status_code == 201
    assert reg("\u0441\u043e\u0440\u0435\u0445").status_code == 409  # Cyrillic сорех
    r = reg("Команда-1")  # a Russian team name is welcome
    assert r.status_code == 201 and r.json()["team"] == "Команда-1"
    r = reg("ｔｅａｍ２")  # stored as its NFKC form
    assert r.status_code == 201 and r.json()["team"] == "team2"


def test_a_campaign_name_with_a_trailing_newline_is_refused():
    from simeval.errors import InputError
    from simeval.serve.service.campaigns import check_name

    with pytest.raises(InputError):
        check_name("lex25\n", "campaign name")


# ---- 10. the low ones


STS12_CAMPAIGN = CAMPAIGN.replace(
    'targets = ["mc30", "rg65", "sts12-msrvid"]', 'targets = ["sts12"]'
).replace("max_bytes = 100_000", "max_bytes = 200_000")


def test_a_corrupt_zip_is_the_clients_error(tmp_path, serve_db, clock):
    import random

    s = server_with(serve_db, tmp_path / "server", clock, STS12_CAMPAIGN, rejected_per_day=0)
    token = register(s.client, "alpha")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in ("MSRpar", "MSRvid", "SMTeuroparl", "surprise.OnWN", "surprise.SMTnews"):
            zf.writestr(f"STS.output.{name}.txt", "".join(f"{i % 5}.{i % 7}\n" for i in range(750)))
    good = buffer.getvalue()
    codes = set()
    for seed in range(30):
        rng = random.Random(seed)
        data = bytearray(good)
        for _ in range(3):
            data[rng.randrange(len(data))] = rng.randrange(256)
        r = upload(s.client, token, bytes(data), target="sts12", filename="run.zip")
        codes.add(r.status_code)
        assert r.status_code in (201, 422), (seed, r.status_code, r.text[:300])
    assert 422 in codes
    assert stored(s)[1] == []


def stalled(first: bytes) -> Any:
    """An ASGI receive that sends ``first`` and then never sends more."""
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": first, "more_body": True}
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    return receive


def run_stalled(app: Any, path: str, headers: dict[str, str], first: bytes, query: str) -> int:
    async def go() -> int:
        status = 0

        async def send(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]

        scope = post_scope(path, query, headers)
        await asyncio.wait_for(app(scope, stalled(first), send), 30)
        return status

    return asyncio.run(go())


def test_a_stalled_upload_times_out_and_leaves_nothing(tmp_path, serve_db, clock, mc30):
    s = server_with(serve_db, tmp_path / "server", clock, upload_seconds=0.5)
    token = register(s.client, "alpha")
    data = pair_file(mc30, 1)[0]
    began = time.monotonic()
    api = run_stalled(
        s.app, "/api/phases/trial/submissions", auth(token), data[:100], "target=mc30"
    )
    csrf = "c" * 32
    head = form_field("csrf", csrf_value(s.app, csrf, token)) + file_head("run.csv") + data[:100]
    form = run_stalled(
        s.app, "/campaigns/lex25/phases/trial/upload", form_cookies(token, csrf), head, ""
    )
    assert (api, form) == (408, 408)
    assert time.monotonic() - began < 20
    assert rows(s) == [] and stored(s) == ([], [])


def test_pages_carry_security_headers(srv):
    page = client_at(srv.app).get("/campaigns/lex25")
    csp = page.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp and "default-src 'none'" in csp
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["x-frame-options"] == "DENY"
    import base64
    import hashlib

    for tag in ("script", "style"):  # the page's own inline script and style are allowed
        (inline,) = re.findall(rf"<{tag}>(.*?)</{tag}>", page.text, re.S)
        digest = base64.b64encode(hashlib.sha256(inline.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in csp, tag
    api = srv.client.get("/api/campaigns/lex25/phases/trial/leaderboard")
    assert api.headers["x-content-type-options"] == "nosniff"


def test_the_host_header_is_not_reflected(srv):
    http = client_at(srv.app, base_url="http://evil.example")
    for path in ("/campaigns/lex25/", "/campaigns/lex25", "/", "/nothing/", "/api/submissions/"):
        r = http.get(path)
        assert "evil.example" not in r.text and "evil.example" not in str(r.headers), path


def test_no_openapi_schema_or_docs(srv):
    for path in ("/openapi.json", "/docs", "/redoc"):
        assert srv.client.get(path).status_code == 404


def test_an_organiser_rotates_a_teams_token(srv, serve_db):
    from typer.testing import CliRunner

    from simeval.cli import app as cli

    old = register(srv.client, "alpha")
    assert srv.client.get("/api/submissions", headers=auth(old)).status_code == 200  # cached
    args = ["serve", "rotate-token", str(srv.folder), "-c", "lex25", "--team", "alpha"]
    done = CliRunner().invoke(cli, [*args, "--db", serve_db])
    assert done.exit_code == 0, done.output
    new = done.output.strip()
    assert new.startswith("st_") and new != old
    assert srv.client.get("/api/submissions", headers=auth(old)).status_code == 401  # at once
    assert srv.client.get("/api/submissions", headers=auth(new)).status_code == 200
    missing = CliRunner().invoke(cli, [*args[:-1], "nobody", "--db", serve_db])
    assert missing.exit_code != 0 and "no team" in missing.output


@pytest.mark.parametrize("via", ["api", "form"])
def test_no_runs_left_is_refused_before_the_body_is_read(tmp_path, serve_db, clock, mc30, via):
    s = make_server(serve_db, tmp_path / "server", clock, campaign=ONE_TARGET)
    token = register(s.client, "alpha")
    for i in range(2):  # runs = 2
        assert upload(s.client, token, pair_file(mc30, i)[0]).status_code == 201
    if via == "api":
        x = asgi(s.app, "/api/phases/trial/submissions", never_read(), auth(token), "target=mc30")
    else:
        x = asgi(
            s.app,
            "/campaigns/lex25/phases/trial/upload",
            never_read(),
            form_cookies(token, "c" * 32),
        )
    assert x.status == 409 and "no runs left" in x.text, x.text
    assert x.pulled == 0 and len(rows(s)) == 2 and stored(s)[1] == []


def test_one_target_out_of_runs_leaves_the_form_open_for_the_other(
    tmp_path, serve_db, clock, mc30, rg65
):
    """Two targets, one run each. The web form names its target inside the body, so its early
    check refuses only when EVERY target is used up: with mc30's run used, the form still
    takes an rg65 file and scores it; with both used, it refuses before reading the body."""
    from scipy.stats import spearmanr

    campaign = CAMPAIGN.replace('["mc30", "rg65", "sts12-msrvid"]', '["mc30", "rg65"]')
    campaign = campaign.replace("runs = 2", "runs = 1", 1)
    s = make_server(serve_db, tmp_path / "server", clock, campaign=campaign)
    token = register(s.client, "alpha")
    assert upload(s.client, token, pair_file(mc30, 1)[0], target="mc30").status_code == 201
    again = upload(s.client, token, pair_file(mc30, 2)[0], target="mc30")
    assert again.status_code == 409
    assert "no runs left: 1 of 1 used on mc30 in trial" in again.text, again.text
    data, scores = pair_file(rg65, 3)
    x = upload_form(s.app, token, [data], target="rg65")
    said = re.search(r"no runs left[^<]*", x.text)
    assert x.status == 200 and "scored" in x.text, (x.status, said and said.group())
    (run,) = [m for m in mine(s.client, token) if m["target"] == "rg65"]
    expected = spearmanr([g for *_, g in rg65], scores).statistic
    assert run["results"][0]["score"] == pytest.approx(expected, abs=1e-12)
    csrf = "c" * 32
    x = asgi(s.app, "/campaigns/lex25/phases/trial/upload", never_read(), form_cookies(token, csrf))
    assert x.status == 409 and "no runs left: 1 of 1 used on every target in trial" in x.text
    assert x.pulled == 0


@pytest.mark.parametrize(
    "name",
    [
        "alpha\u3164",  # Hangul filler: drawn as nothing
        "alpha\u034f",  # combining grapheme joiner
        "beta\ufe0f",  # variation selector
        "alpha\u00ad",  # soft hyphen
        "alph\u0585",  # Armenian o beside Latin letters
    ],
)
def test_names_that_read_as_another_are_refused(srv, name):
    """Each of these rendered as an existing name on the leaderboard (the attacker review
    saw two rows both reading `beta run 1`)."""
    r = srv.client.post("/api/campaigns/lex25/teams", json={"team": name})
    assert r.status_code == 422, r.text
    said = r.json()["error"]
    assert "shows as nothing" in said or "look alike" in said, said
