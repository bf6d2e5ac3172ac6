"""The organiser's tasks that were the command line's alone, from the browser (issue 46):
a campaign created from its file (the command's checks and leak audit first, a refusal shown
beside the field with the command's message and line, nothing saved), the export as a zip
(anonymised or not), organisers added and revoked by an admin (403 for the others), and a
phase's public/private split; each audited with the organiser's name."""

from __future__ import annotations

import hashlib
import io
import re
import zipfile
from pathlib import Path

import pytest

from serve_kit import (
    OPENS,
    TRIAL_END,
    campaign_toml,
    page_csrf,
    pair_file,
    phase_toml,
    register,
    upload,
)

pytest.importorskip("fastapi")

NEW = campaign_toml("lex26", phase_toml("dev", ["mc30"], OPENS, TRIAL_END), title="New one")


def _sign_in(server, token: str) -> str:
    """Sign in on the console with an organiser's ``token``; the CSRF value of its forms."""
    csrf = page_csrf(server.client, "/organiser")
    r = server.client.post("/organiser/login", data={"csrf": csrf, "token": token},
                           follow_redirects=False)  # fmt: skip
    assert r.status_code == 303, r.text
    return page_csrf(server.client, "/organiser")


@pytest.fixture
def console(srv):
    """The server of ``srv`` with Ada (its first organiser) signed in: (server, clock, csrf)."""
    from simeval.serve.service.organisers import add_organiser

    server, clock = srv
    csrf = _sign_in(server, add_organiser(server.db, "Ada", clock.now))
    return server, clock, csrf


def _campaigns(server) -> list[str]:
    from simeval.serve.service.console import overview

    return [c.name for c in overview(server.db)]


def _send(server, csrf: str, content: bytes | None = None, **fields: str):
    # as a browser sends the form: multipart, with an empty file part when none was chosen
    files = {"file": ("lex26.toml", content) if content is not None else ("", b"")}
    return server.client.post("/organiser/new-campaign", data={"csrf": csrf, **fields},
                              files=files, follow_redirects=False)  # fmt: skip


def _cli_message(server, tmp_path: Path, text: str) -> str:
    """What ``simeval serve campaign`` prints for the campaign file ``text`` on the same
    server, after the file's path."""
    from typer.testing import CliRunner

    from simeval.cli import app

    path = tmp_path / "cli" / "lex26.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    args = ["serve", "campaign", str(server.folder), str(path), "--db", server.url]
    r = CliRunner().invoke(app, args, env={"COLUMNS": "400"})
    assert r.exit_code == 2, r.output
    return " ".join(r.output.split()).split(f"{path}", 1)[1]


# ---- 1. a new campaign


def test_a_campaign_file_sent_in_the_browser_is_created_and_audited(console) -> None:
    from simeval.serve.service.organisers import audit_log

    server, _, csrf = console
    page = server.client.get("/organiser")
    assert 'href="/organiser/new-campaign"' in page.text
    assert 'enctype="multipart/form-data"' in server.client.get("/organiser/new-campaign").text
    data = NEW.encode()
    r = _send(server, csrf, data)
    assert r.status_code == 303 and r.headers["location"] == "/organiser/campaigns/lex26"
    assert "New one" in server.client.get(r.headers["location"]).text
    assert _campaigns(server) == ["lex25", "lex26"]
    (entry,) = audit_log(server.db, 2)
    assert (entry.actor, entry.action) == ("organiser:Ada", "create campaign")
    assert entry.detail == {"file": "lex26.toml", "sha256": hashlib.sha256(data).hexdigest(),
                            "phases": ["dev"]}  # fmt: skip
    # the same file again: the command's refusal, nothing more saved
    r = _send(server, csrf, data)
    assert r.status_code == 422 and "lex26" in r.text and "exists" in r.text
    assert _campaigns(server) == ["lex25", "lex26"]


def test_the_text_of_the_form_makes_a_campaign_too(console) -> None:
    server, _, csrf = console
    r = _send(server, csrf, text=NEW.replace("\n", "\r\n"))  # as a browser sends a text area
    assert r.status_code == 303, r.text
    assert _campaigns(server) == ["lex25", "lex26"]


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (NEW.replace('name = "dev"', 'name "dev"'), "(at line 6, column"),  # TOML's own line
        (NEW.replace('"mc30"', '"mc31"'), "mc31"),  # an unknown target
        # lex25's hidden test phase scores yp130: shown here, its gold would leak
        (
            campaign_toml("lex26", phase_toml("dev", ["yp130"], OPENS, TRIAL_END, hidden=False)),
            "yp130",
        ),
        ('registry = ["/etc/passwd"]\n' + NEW, "registry"),
    ],
)
def test_a_wrong_file_is_shown_again_with_the_commands_message_beside_it(
    console, tmp_path, text: str, shown: str
) -> None:
    server, _, csrf = console
    r = _send(server, csrf, text.encode())
    assert r.status_code == 422
    error = re.search(
        r'<span class="error" id="file-error" role="alert">(.*?)</span>', r.text, re.S
    )
    assert error, r.text
    assert 'aria-describedby="file-error"' in r.text  # the file field names its error
    message = error.group(1)
    assert message.startswith("lex26.toml") and shown in message
    if "registry" not in text:  # the command's message, word for word (its path aside)
        cli = _cli_message(server, tmp_path, text)
        from html import unescape

        assert " ".join(unescape(message).split()).endswith(cli), (message, cli)
    assert "name = &#34;lex26&#34;" in r.text or "name = &quot;lex26&quot;" in r.text  # kept
    assert _campaigns(server) == ["lex25"]


def test_a_hostile_file_is_shown_back_as_text(console) -> None:
    """The refused text goes back into the text area escaped, and a sent file's name is
    shown only when it is plain (never a path of the sender's machine)."""
    server, _, csrf = console
    hostile = NEW.replace('title = "New one"', 'title = "</textarea><script>alert(1)</script>')
    r = server.client.post(
        "/organiser/new-campaign",
        data={"csrf": csrf},
        files={"file": ("C:\\Users\\ada\\my campaign.toml", hostile.encode())},
    )
    assert r.status_code == 422 and "<script>alert(1)" not in r.text
    assert "&lt;/textarea&gt;&lt;script&gt;" in r.text
    error = re.search(r'id="file-error" role="alert">(.*?)</span>', r.text, re.S).group(1)
    assert error.startswith("campaign.toml: not a TOML campaign file") and "Users" not in r.text
    assert _campaigns(server) == ["lex25"]


def test_the_leak_audit_refuses_until_a_reason_is_given(console) -> None:
    from simeval.serve.service.organisers import audit_log

    server, _, csrf = console
    leaky = ('inputs = "published"\n' + NEW).encode()  # MC-30 is published sorted by its gold
    r = _send(server, csrf, leaky)
    assert r.status_code == 422 and "the leak audit found" in r.text and "mc30: order" in r.text
    assert _campaigns(server) == ["lex25"]
    r = _send(server, csrf, leaky, allow_leaks="a warm-up on published data")
    assert r.status_code == 303, r.text
    actions = {e.action: e for e in audit_log(server.db, 2)}
    assert actions["leak-override"].actor == "organiser:Ada"
    assert actions["leak-override"].detail["reason"] == "a warm-up on published data"


def test_a_new_campaign_needs_a_signed_in_organiser_and_the_forms_csrf(srv) -> None:
    server, _ = srv
    assert server.client.get("/organiser/new-campaign").status_code == 401
    assert _send(server, "forged", NEW.encode()).status_code == 401
    assert _campaigns(server) == ["lex25"]


def test_a_forged_form_is_refused(console) -> None:
    server, _, _ = console
    assert _send(server, "forged", NEW.encode()).status_code == 403
    assert _campaigns(server) == ["lex25"]
    assert not list((server.files / "tmp").iterdir())  # no upload left behind


# ---- 2. the export


def _zip(r) -> dict[str, bytes]:
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(r.content)) as z:
        return {n: z.read(n) for n in z.namelist()}


def test_the_export_downloads_as_the_command_writes_it(console, mc30, tmp_path) -> None:
    from simeval.serve.service.export import export
    from simeval.serve.service.organisers import audit_log

    server, clock, csrf = console
    for team in ("alpha", "beta"):
        token = register(server.client, team)
        r = upload(server.client, token, pair_file(mc30, len(team))[0], target="mc30")
        assert r.status_code == 201, r.text
    page = server.client.get("/organiser/campaigns/lex25").text
    assert 'action="/organiser/campaigns/lex25/export"' in page
    r = server.client.post("/organiser/campaigns/lex25/export", data={"csrf": csrf})
    assert "lex25-export.zip" in r.headers["content-disposition"]
    files = _zip(r)
    cli = tmp_path / "cli"  # the command's export, into a folder
    export(server.db, server.app.state.service.storage, "lex25", cli, now=clock.now)
    expected = {f"lex25-export/{p.relative_to(cli).as_posix()}" for p in cli.rglob("*")
                if p.is_file()}  # fmt: skip
    assert set(files) == expected and "lex25-export/trial/leaderboard.md" in expected
    csv = (tmp_path / "cli" / "submissions.csv").read_bytes()
    assert files["lex25-export/submissions.csv"] == csv and b"alpha" in csv

    r = server.client.post("/organiser/campaigns/lex25/export",
                           data={"csrf": csrf, "anonymise": "yes"})  # fmt: skip
    anonymous = _zip(r)
    assert "lex25-export-anonymised.zip" in r.headers["content-disposition"]
    for name, content in anonymous.items():
        assert b"alpha" not in content and b"beta" not in content, name
    assert b"team-0" in anonymous["lex25-export/submissions.csv"]
    log = [(e.actor, e.action, e.detail["anonymised"]) for e in audit_log(server.db, 1)]
    assert log == [("organiser:Ada", "export", True), ("organiser:Ada", "export", False)]
    assert server.client.post("/organiser/campaigns/lex25/export",
                              data={"csrf": "forged"}).status_code == 403  # fmt: skip
    assert server.client.post("/organiser/campaigns/nope/export",
                              data={"csrf": csrf}).status_code == 422  # fmt: skip


# ---- 3. organisers


def test_an_admin_adds_and_revokes_organisers_and_others_may_not(console) -> None:
    from simeval.serve.service.organisers import audit_log, organisers

    server, clock, csrf = console
    client = server.client
    assert 'href="/organiser/organisers"' in client.get("/organiser").text
    assert "Ada" in client.get("/organiser/organisers").text
    r = client.post("/organiser/organisers", data={"csrf": csrf, "name": "Bob"})
    assert r.status_code == 200 and "shown this once" in r.text
    token = re.search(r"<code>(so_[^<]+)</code>", r.text).group(1)
    r = client.post("/organiser/organisers", data={"csrf": csrf, "name": "Bob"})
    assert r.status_code == 422 and "exists already" in r.text and 'id="add-error"' in r.text
    # revoking asks for the box to be ticked: without it nothing happens
    r = client.post("/organiser/organisers/revoke", data={"csrf": csrf, "name": "Bob"})
    assert r.status_code == 422 and 'id="revoke-error"' in r.text and "tick the box" in r.text
    assert {o.name: o.revoked for o in organisers(server.db)}["Bob"] is None
    r = client.post("/organiser/organisers/revoke",
                    data={"csrf": csrf, "name": "Ada", "confirm": "yes"})  # fmt: skip
    assert r.status_code == 422 and "their own account" in r.text

    bob = _sign_in(server, token)  # Bob is an organiser, not an admin
    assert 'href="/organiser/organisers"' not in client.get("/organiser").text
    assert client.get("/organiser/organisers").status_code == 403
    assert client.post("/organiser/organisers",
                       data={"csrf": bob, "name": "Eve"}).status_code == 403  # fmt: skip
    assert (
        client.post(
            "/organiser/organisers/revoke", data={"csrf": bob, "name": "Ada", "confirm": "yes"}
        ).status_code
        == 403
    )
    assert client.get("/organiser/campaigns/lex25").status_code == 200  # still an organiser

    csrf = _sign_in(server, _admin_token(server, clock))
    r = client.post(
        "/organiser/organisers/revoke",
        data={"csrf": csrf, "name": "Bob", "confirm": "yes"},
        follow_redirects=False,
    )
    assert r.status_code == 303 and r.headers["location"] == "/organiser/organisers"
    assert "revoked" in client.get("/organiser/organisers").text
    rows = {o.name: o for o in organisers(server.db)}
    assert rows["Bob"].revoked is not None and not rows["Bob"].admin and rows["Ada"].admin
    log = [(e.actor, e.action, e.detail["organiser"]) for e in audit_log(server.db)][:3]
    assert log == [("organiser:Root", "revoke organiser", "Bob"),
                   ("command line", "add organiser", "Root"),
                   ("organiser:Ada", "add organiser", "Bob")]  # fmt: skip


def _admin_token(server, clock) -> str:
    from simeval.serve.service.organisers import add_organiser

    return add_organiser(server.db, "Root", clock.now, admin=True)


def test_the_first_organiser_is_the_admin(srv) -> None:
    from simeval.serve.service.organisers import add_organiser, organisers

    server, clock = srv
    add_organiser(server.db, "Ada", clock.now)
    add_organiser(server.db, "Bob", clock.now)
    add_organiser(server.db, "Cy", clock.now, admin=True)
    assert {o.name: o.admin for o in organisers(server.db)} == {"Ada": True, "Bob": False,
                                                                "Cy": True}  # fmt: skip


def test_the_migration_makes_the_oldest_active_organiser_admin(serve_db, tmp_path) -> None:
    """A server of schema 0012 (no ``admin`` column): its oldest organiser not revoked
    becomes the admin, the others stay organisers."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import MetaData, insert, select

    from simeval.serve.db import MIGRATIONS, Database

    db = Database(serve_db)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with db.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0012_inputs")
    tables = MetaData()
    tables.reflect(db.engine)
    organiser = tables.tables["organiser"]
    assert "admin" not in organiser.c
    when = OPENS.replace(tzinfo=None)
    with db.engine.begin() as c:
        for n, (name, revoked) in enumerate([("Old", when), ("Ada", None), ("Bob", None)], 1):
            c.execute(
                insert(organiser).values(
                    id=n,
                    name=name,
                    token_key=f"k{n}",
                    token_salt="s",
                    token_hash="h",
                    created=when,
                    revoked=revoked,
                )
            )
    db.dispose()
    db = Database(serve_db)  # migrated to the newest
    try:
        tables = MetaData()
        tables.reflect(db.engine)
        organiser = tables.tables["organiser"]
        with db.engine.connect() as c:
            admins = dict(c.execute(select(organiser.c.name, organiser.c.admin)).all())
    finally:
        db.dispose()
    assert {k: bool(v) for k, v in admins.items()} == {"Old": False, "Ada": True, "Bob": False}


def test_the_command_line_adds_an_admin_and_lists_the_role(tmp_path) -> None:
    from typer.testing import CliRunner

    from simeval.cli import app

    folder = str(tmp_path / "srv")
    run = CliRunner().invoke
    assert run(app, ["serve", "organiser", "add", folder, "Ada"]).exit_code == 0
    assert run(app, ["serve", "organiser", "add", folder, "Bob"]).exit_code == 0
    assert run(app, ["serve", "organiser", "add", folder, "Cy", "--admin"]).exit_code == 0
    lines = run(app, ["serve", "organiser", "list", folder]).output.splitlines()
    assert [line.split() for line in lines] == [["Ada", "active", "admin"], ["Bob", "active"],
                                                ["Cy", "active", "admin"]]  # fmt: skip


# ---- 4. a phase's public/private split


def test_a_phase_is_split_from_the_console_as_serve_split_does(console) -> None:
    from simeval.serve.db.models import Phase
    from simeval.serve.service.organisers import audit_log

    server, _, csrf = console
    client = server.client
    assert (
        'href="/organiser/campaigns/lex25/split"' in client.get("/organiser/campaigns/lex25").text
    )
    page = client.get("/organiser/campaigns/lex25/split").text
    assert "/phases/test/split" in page and "/phases/trial/split" not in page  # trial is open
    assert "its split stays" in page
    r = client.post("/organiser/campaigns/lex25/phases/test/split",
                    data={"csrf": csrf, "share": "1.5", "final_runs": "2"})  # fmt: skip
    assert r.status_code == 422 and 'id="split-error"' in r.text
    assert "expected a number between 0 and 1" in r.text
    r = client.post("/organiser/campaigns/lex25/phases/test/split",
                    data={"csrf": csrf, "share": "0,3"})  # fmt: skip
    assert r.status_code == 422 and "a decimal comma?" in r.text
    r = client.post(
        "/organiser/campaigns/lex25/phases/test/split",
        data={"csrf": csrf, "share": "0.25", "final_runs": "3"},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    assert r.headers["location"] == "/organiser/campaigns/lex25/split?saved=test"
    assert "test: split saved" in client.get(r.headers["location"]).text
    with server.db.reading() as s:
        test = s.query(Phase).filter_by(name="test").one()
        assert (test.public_share, test.final_runs) == (0.25, 3) and test.split_seed
    (entry,) = [e for e in audit_log(server.db, 1) if e.action == "split phase"]
    assert entry.actor == "organiser:Ada"
    assert entry.detail["changes"] == {"public_share": [None, 0.25], "final_runs": [2, 3]}
    r = client.post("/organiser/campaigns/lex25/phases/trial/split",
                    data={"csrf": csrf, "share": "0.3"})  # fmt: skip
    assert r.status_code == 422 and "its split stays" in r.text
