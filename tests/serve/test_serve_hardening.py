"""An attacker's findings against the shared-task server (issue 43, item 3), each as the attack
it stops (on SQLite, and on PostgreSQL where the database matters: ``serve_db``):

1. a team name that looks like a taken one (Greek, Lisu or Cherokee capitals, small capitals,
   ``l`` for ``I``, Latin alpha for ``a``) is refused: names are compared by their Unicode
   TR39 confusables skeleton, case folded; the stored keys of teams made before are
   recomputed by a migration;
2. a deeply nested JSON body is refused with a 4xx JSON error (no 500, no traceback), and
   every answer, a 500 included, carries the security headers;
3. whatever the umask, everything the server writes is 0600 (files) or 0700 (folders), and an
   export into the server's own storage folder is refused;
4. a start refused for the wrong database leaves that database as it found it (no table made).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from serve_kit import OPENS, Clock, make_server

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")


@pytest.fixture
def clock() -> Clock:
    return Clock(OPENS + timedelta(days=1))


# ---- 1. look-alike team names

# (a taken name, a name drawn like it); the letters are named by Unicode's character names
LOOK_ALIKES = [
    ("NOKIA", "\u039d\u039f\u039a\u0399\u0391"),  # GREEK CAPITAL LETTER NU, OMICRON, ...
    ("TEAM", "\u03a4\u0395\u0391\u039c"),  # GREEK CAPITAL LETTER TAU, EPSILON, ALPHA, MU
    ("NOKIA", "\ua4e0\ua4f3\ua4d7\ua4f2\ua4ee"),  # LISU LETTER NA, O, KA, I, A
    ("TEAM", "\u13a2\u13ac\u13aa\u13b7"),  # CHEROKEE LETTER I, GV, GO, LU
    ("alpha", "\u1d00\u029f\u1d18\u029c\u1d00"),  # LATIN LETTER SMALL CAPITAL A, L, P, H, A
    ("NOKIA", "NOKlA"),  # a small L for the capital I
    ("alpha", "aIpha"),  # a capital I for the small L
    ("alpha", "alph\u0251"),  # LATIN SMALL LETTER ALPHA for the a
    ("NOKIA", "nokia"),  # another case, as before
]


def test_look_alike_team_names_are_refused_and_distinct_ones_welcome(srv):
    server, _ = srv

    def reg(name: str) -> int:
        return server.client.post("/api/campaigns/lex25/teams", json={"team": name}).status_code

    for name in ("NOKIA", "TEAM", "alpha"):
        assert reg(name) == 201, name
    for taken, twin in LOOK_ALIKES:
        assert reg(twin) == 409, (taken, twin)
    for name in ("Команда-1", "Команда-2", "team-a", "team-b", "nokla-2", "beta"):
        assert reg(name) == 201, name


def test_stored_name_keys_of_older_teams_are_recomputed(serve_db, tmp_path):
    """Teams registered under the old key (``ΝΟΚΙΑ`` was ``vokia`` then, beside ``NOKIA``'s
    ``nokia``) keep their names; their stored keys are recomputed by the migration, the
    second of two look-alikes left without one (the registration compares every name)."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import MetaData, insert, select

    from simeval.serve.db import MIGRATIONS, Database

    db = Database(serve_db)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with db.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0010_private")
    tables = MetaData()
    tables.reflect(db.engine)
    campaign, team = tables.tables["campaign"], tables.tables["team"]
    when = OPENS.replace(tzinfo=None)
    with db.engine.begin() as c:
        c.execute(insert(campaign).values(id=1, name="lex25", title="", registry=[], created=when))
        old = [("NOKIA", "nokia"), ("\u039d\u039f\u039a\u0399\u0391", "vokia"), ("alpha", "alpha")]
        for n, (name, key) in enumerate(old, start=1):
            c.execute(
                insert(team).values(
                    id=n, campaign_id=1, name=name, name_key=key, token_key=f"k{n}",
                    token_salt="s", token_hash="h", created=when,
                )
            )  # fmt: skip
    db.dispose()
    db = Database(serve_db)  # migrated to the newest
    try:
        with db.engine.connect() as c:
            keys = dict(c.execute(select(team.c.name, team.c.name_key).order_by(team.c.id)).all())
    finally:
        db.dispose()
    # TR39: I and l share the prototype l; Greek capitals take their Latin prototypes
    assert keys == {"NOKIA": "nokla", "\u039d\u039f\u039a\u0399\u0391": None, "alpha": "alpha"}


# ---- 2. deep JSON, and the security headers of every answer

SECURITY = ("content-security-policy", "x-content-type-options", "x-frame-options")


def test_a_deeply_nested_json_body_is_refused_without_a_traceback(srv, caplog):
    server, _ = srv  # the test client raises what the app does not answer: no 500 here
    for body in (b"[" * 8000, b'{"team": ' * 1500, b"[" * 33 + b"]" * 33):
        r = server.client.post(
            "/api/campaigns/lex25/teams",
            content=body,
            headers={"content-type": "application/json"},
        )
        assert 400 <= r.status_code < 500 and "nested" in r.json()["error"], r.text
        assert all(h in r.headers for h in SECURITY)
    r = server.client.post("/api/campaigns/lex25/teams", json={"team": "alpha", "x": [[[1]]]})
    assert r.status_code == 201  # a little nesting is fine
    assert not [rec for rec in caplog.records if rec.exc_info]


def test_every_answer_carries_the_security_headers_a_500_too(srv, monkeypatch):
    from fastapi.testclient import TestClient

    from simeval.serve.routers.web import Web

    server, _ = srv

    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(Web, "register", broken)
    client = TestClient(server.app, raise_server_exceptions=False)
    answers = [
        client.post("/api/campaigns/lex25/teams", json={"team": "alpha"}),  # 500
        client.post("/api/campaigns/lex25/teams", content=b"{"),  # 422, an error handler
        client.get("/api/campaigns/nope/phases/trial/leaderboard"),  # 404
        client.get("/no/such/page"),  # 404 of the router
        client.get("/"),
    ]
    assert answers[0].status_code == 500
    for r in answers:
        assert all(h in r.headers for h in SECURITY), (r.status_code, r.headers)


# ---- 3. private files whatever the umask


@pytest.fixture
def umask_022() -> Iterator[None]:
    """The common umask, under which a plain ``open`` or ``mkdir`` is world-readable."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _shared(root: Path) -> list[str]:
    """Everything below ``root`` (and ``root``) that its group or others may read or enter."""
    found = [root, *root.rglob("*")]
    return [f"{p} {stat.filemode(p.stat().st_mode)}" for p in found if p.stat().st_mode & 0o077]


def test_everything_the_server_writes_is_private_whatever_the_umask(
    umask_022, serve_db, tmp_path, clock, mc30
):
    from serve_kit import bad_file, pair_file, register, upload
    from simeval.serve.service.export import export
    from simeval.serve.service.gold_replace import replace_gold

    files = tmp_path / "srv" / "files"
    stray = files / "tmp" / ("0" * 32)  # an upload a killed server left, as it made it
    stray.mkdir(mode=0o700, parents=True)
    for folder in (files, files / "tmp"):
        folder.chmod(0o700)
    (stray / "upload").write_bytes(b"cut short")
    (stray / "upload").chmod(0o600)
    server = make_server(serve_db, tmp_path / "srv", clock)  # the stray is quarantined
    assert (files / "quarantine").is_dir()
    service = server.app.state.service
    token = register(server.client, "alpha")
    assert upload(server.client, token, pair_file(mc30, 1)[0], target="mc30").status_code == 201
    assert upload(server.client, token, bad_file(mc30), target="mc30").status_code == 422
    gold = tmp_path / "fixed.txt"
    gold.write_text("".join(f"{a}\t{b}\t{g / 2}\n" for a, b, g in mc30), encoding="utf-8")
    replace_gold(service, "lex25", "mc30", gold, "fixed.txt", clock.now, "organiser:Ada")
    assert (files / "gold").is_dir()
    out = tmp_path / "export"
    export(server.db, service.storage, "lex25", out)

    assert _shared(files) == []
    assert _shared(out) == []
    sqlite = tmp_path / "sqlite"  # the fixture's folder; the server's files in it
    if serve_db.startswith("sqlite"):  # on PostgreSQL the database is the server's own affair
        assert [s for s in _shared(sqlite) if not s.startswith(f"{sqlite} ")] == []


def test_an_export_into_the_servers_storage_folder_is_refused(srv, tmp_path):
    from simeval.errors import InputError
    from simeval.serve.service.export import export

    server, _ = srv
    service = server.app.state.service
    for inside in (server.files / "export", server.files, server.files / "submissions" / "x"):
        with pytest.raises(InputError, match="inside the server's storage folder"):
            export(server.db, service.storage, "lex25", inside)
    assert not (server.files / "export").exists()
    from typer.testing import CliRunner

    from simeval.cli import app as cli

    out = server.files / "export"
    args = [
        "serve",
        "export",
        str(server.folder),
        "-c",
        "lex25",
        "-o",
        str(out),
        "--db",
        server.url,
    ]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 2 and "inside the server's storage folder" in r.output, r.output
    assert "Traceback" not in r.output and not out.exists()


# ---- 4. a refused start changes nothing in the database


def _schema(url: str) -> tuple[list[str], list[str]]:
    """The tables of the database at ``url`` and its alembic revision(s), read by SQLAlchemy's
    inspector (not the server's code)."""
    from sqlalchemy import create_engine, inspect, text

    from simeval.serve.db import driver_url

    engine = create_engine(driver_url(url))
    try:
        with engine.connect() as c:
            tables = sorted(inspect(c).get_table_names())
            version = []
            if "alembic_version" in tables:
                version = sorted(c.scalars(text("SELECT version_num FROM alembic_version")))
    finally:
        engine.dispose()
    return tables, version


def test_a_start_refused_for_a_folder_stamped_elsewhere_makes_no_table(serve_db, tmp_path):
    from sqlalchemy import create_engine, text

    from simeval.serve.db import driver_url
    from simeval.serve.db.pairing import Mismatch
    from simeval.serve.service.results import open_server

    files = tmp_path / "files"
    db, _ = open_server(f"sqlite:///{tmp_path / 'own.db'}", files)  # the folder's database
    db.dispose()
    engine = create_engine(driver_url(serve_db))  # the wrong one: another application's
    with engine.begin() as c:
        c.execute(text("CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT)"))
    engine.dispose()
    before = _schema(serve_db)
    with pytest.raises(Mismatch, match="nothing was changed"):
        open_server(serve_db, files)
    assert _schema(serve_db) == before == (["people"], [])


def test_a_start_refused_for_a_database_of_another_folder_does_not_migrate_it(serve_db, tmp_path):
    from alembic import command
    from alembic.config import Config

    from simeval.serve.db import MIGRATIONS
    from simeval.serve.db.pairing import Mismatch
    from simeval.serve.service.results import open_server

    db, _ = open_server(serve_db, tmp_path / "files")
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with db.engine.begin() as connection:  # as an older simeval left it
        config.attributes["connection"] = connection
        command.downgrade(config, "0009")
    db.dispose()
    before = _schema(serve_db)
    assert before[1] == ["0009"]
    with pytest.raises(Mismatch, match="nothing was changed"):
        open_server(serve_db, tmp_path / "another")
    assert _schema(serve_db) == before
