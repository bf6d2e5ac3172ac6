"""Running a server safely (the attacker review's second batch):

1. a backup has ids of its own, so it never pairs with the live database; one live server per
   database, whatever its folder; a copied folder is not told to --db a live server's database;
2. a backup into the server's own folder is refused;
3. a bad or unreachable --db is one line, exit status 2, not a traceback;
4. uvicorn runs with a connection cap and a short keep-alive;
5. `serve run` on a folder that holds no server (a typo) is refused instead of serving an empty
   site (issue 33, stumble 9).
"""

from __future__ import annotations

import json
import logging
import shutil
import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from serve_kit import CAMPAIGN, OPENS, Clock, make_server, pair_file, register, stop, upload
from simeval.cli import app as cli

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")


@pytest.fixture
def clock() -> Clock:
    return Clock(OPENS + timedelta(days=1))


def one_line(text: str) -> str:
    return " ".join(text.split())


def contents(folder: Path) -> dict[str, bytes]:
    """Every file below ``folder`` but the locks (a refused start may create them)."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and ".lock" not in p.name
    }


def stamp_of(files: Path) -> dict:
    return json.loads((files / "server.json").read_text(encoding="utf-8"))


# ---- 1. one database, one server


def test_a_backup_has_ids_of_its_own_and_never_pairs_with_the_live_database(
    tmp_path, serve_db, clock, mc30
):
    from simeval.serve.app import create_app
    from simeval.serve.db import default_url
    from simeval.serve.db.pairing import Mismatch

    srv = make_server(serve_db, tmp_path / "srv", clock)
    token = register(srv.client, "alpha")
    sid = upload(srv.client, token, pair_file(mc30, 1)[0], target="mc30").json()["id"]
    out = tmp_path / "bk1"
    r = CliRunner().invoke(
        cli, ["serve", "backup", str(srv.folder), "--out", str(out), "--db", serve_db]
    )
    assert r.exit_code == 0, r.output
    original, copy = stamp_of(srv.files), stamp_of(out / "files")
    assert copy["db_id"] != original["db_id"] and copy["folder_id"] != original["folder_id"]
    assert (out / "files" / "submissions" / sid / "upload").exists()
    if serve_db.startswith("sqlite"):
        assert copy["db"] == default_url(out)
        with sqlite3.connect(out / "serve.db") as con:
            row = con.execute("SELECT db_id, folder_id FROM server").fetchone()
        assert row == (copy["db_id"], copy["folder_id"])
    else:
        assert copy["db"] == f"the database restored from {(out / 'serve.sql').resolve()}"
        last = (out / "serve.sql").read_text().rstrip().splitlines()[-1]
        assert last.startswith("UPDATE public.server SET db_id = ")
        assert copy["db_id"] in last and copy["folder_id"] in last
    stop(srv.app)
    # the backup's folder on the original database: refused, and nothing moves
    before = contents(out / "files")
    with pytest.raises(Mismatch, match="they are not a pair"):
        create_app(serve_db, out / "files", clock=clock)
    assert contents(out / "files") == before
    if serve_db.startswith("sqlite"):  # and on its own database it starts
        stop(create_app(default_url(out), out / "files", clock=clock))


def test_a_second_server_on_the_database_is_refused_whatever_its_folder(tmp_path, serve_db, clock):
    from simeval.serve.app import create_app
    from simeval.serve.db.pairing import Busy, Mismatch, shown_url

    srv = make_server(serve_db, tmp_path / "a", clock)
    elsewhere = tmp_path / "b" / "files"
    with pytest.raises(Busy) as refused:
        create_app(serve_db, elsewhere, clock=clock)
    message = one_line(str(refused.value))
    assert f"running on the database {shown_url(serve_db)}" in message
    assert "one server per database" in message
    assert not (elsewhere / "server.json").exists()
    stop(srv.app)  # the first one ends: the database is free (and not this folder's)
    with pytest.raises(Mismatch):
        create_app(serve_db, elsewhere, clock=clock)
    stop(create_app(serve_db, srv.files, clock=clock))


def test_the_database_lock_is_released_at_shutdown(tmp_path, clock):
    from serve_kit import live
    from simeval.serve.app import create_app
    from simeval.serve.db.pairing import Busy

    url = f"sqlite:///{tmp_path / 'serve.db'}"
    srv = make_server(url, tmp_path / "a", clock)
    with live(srv.app), pytest.raises(Busy, match="one server per database"):
        create_app(url, tmp_path / "b" / "files", clock=clock)
    assert oct((tmp_path / "serve.db.lock").stat().st_mode & 0o777) == "0o600"
    with pytest.raises(Exception, match=r"not a pair|no stamp"):  # free now, but not b's
        create_app(url, tmp_path / "b" / "files", clock=clock)


def test_a_copied_folder_is_not_sent_to_a_live_servers_database(tmp_path, serve_db, clock):
    """A folder copied by hand (or by a backup of before) keeps the original's ids: while the
    original runs, the refusal says so rather than 'Start with --db' the live database."""
    from simeval.serve.app import create_app
    from simeval.serve.db import default_url
    from simeval.serve.db.pairing import Mismatch, shown_url
    from simeval.serve.service.backup import SKIPPED

    srv = make_server(serve_db, tmp_path / "srv", clock)
    copy = tmp_path / "copy"
    shutil.copytree(srv.files, copy / "files", ignore=lambda d, names: SKIPPED & set(names))
    with pytest.raises(Mismatch) as refused:
        create_app(default_url(copy), copy / "files", clock=clock)
    message = one_line(str(refused.value))
    assert f"another live simeval server holds {shown_url(serve_db)}" in message
    assert f"--db {shown_url(serve_db)}" not in message
    stop(srv.app)
    with pytest.raises(Mismatch) as refused:  # not live now: the folder's own database
        create_app(default_url(copy), copy / "files", clock=clock)
    assert f"Start with --db {shown_url(serve_db)}" in one_line(str(refused.value))


# ---- 2. a backup into the server's own folder


@pytest.mark.parametrize("inside", ["files/snap", "snap", "."])
def test_a_backup_into_the_servers_own_folder_is_refused(tmp_path, clock, inside):
    from simeval.serve.db import default_url

    folder = tmp_path / "t"
    srv = make_server(default_url(folder), folder, clock)
    stop(srv.app)
    out = folder / inside
    r = CliRunner().invoke(cli, ["serve", "backup", str(folder), "--out", str(out)])
    assert r.exit_code == 2, r.output
    assert "inside the server's folder" in one_line(r.output)
    assert not (folder / "files" / "snap").exists() and not (folder / "snap").exists()


def test_backup_itself_refuses_a_folder_inside_the_storage(tmp_path, clock):
    from simeval.errors import InputError
    from simeval.serve.db import default_url
    from simeval.serve.service.backup import backup

    srv = make_server(default_url(tmp_path / "t"), tmp_path / "t", clock)
    stop(srv.app)
    from simeval.serve.db.storage import Storage

    with pytest.raises(InputError, match="inside the server's folder"):
        backup(srv.db, Storage(srv.files), srv.files / "snap")
    assert not (srv.files / "snap").exists()


# ---- 3. a bad --db


BAD_URLS = {
    "postgresql://x:y@127.0.0.1:1/nodb": "cannot open the database postgresql://x:***@127.0.0.1:1/nodb",
    "mysql://nope": "cannot use the database URL mysql://nope",
    "notaurl": "cannot use the database URL notaurl",
}


@pytest.mark.parametrize("url", list(BAD_URLS))
@pytest.mark.parametrize("command", ["init", "run", "campaign"])
def test_a_bad_database_url_is_one_line_and_exit_2(tmp_path, monkeypatch, url, command):
    import uvicorn

    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: pytest.fail("started"))
    args = ["serve", command, str(tmp_path / "t"), "--db", url]
    if command == "campaign":  # a good file: the URL is what is wrong
        (tmp_path / "c.toml").write_text(CAMPAIGN, encoding="utf-8")
        args.insert(3, str(tmp_path / "c.toml"))
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 2, r.output
    said = one_line(r.output)
    assert BAD_URLS[url] in said, said
    assert "Traceback" not in r.output and ":y@" not in r.output
    assert len(r.output.strip().splitlines()) <= 3, r.output  # one line, soft-wrapped at most


# ---- 4. uvicorn's limits


def test_serve_run_caps_connections_and_keep_alive(tmp_path, monkeypatch):
    import uvicorn

    import simeval.serve.app as serve_app

    seen: dict = {}
    monkeypatch.setattr(serve_app, "create_app", lambda *a, **k: object())
    monkeypatch.setattr(uvicorn, "run", lambda app, **k: seen.update(k))
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "serve.db").touch()  # a server's folder (create_app is not run here)
    r = CliRunner().invoke(cli, ["serve", "run", str(tmp_path / "t")])
    assert r.exit_code == 0, r.output
    assert seen["limit_concurrency"] == 500 and seen["timeout_keep_alive"] == 5
    r = CliRunner().invoke(cli, ["serve", "run", str(tmp_path / "t"), "--max-connections", "50"])
    assert r.exit_code == 0, r.output
    assert seen["limit_concurrency"] == 50


def test_the_operating_page_puts_the_server_behind_a_proxy():
    page = (Path(__file__).resolve().parents[2] / "docs" / "operating-a-server.md").read_text()
    assert "--max-connections" in one_line(page)
    assert "nginx's timeouts" in one_line(page) and "slow clients" in one_line(page)


# ---- 5. a folder without a server


@pytest.mark.parametrize("made", [False, True], ids=["missing", "empty"])
def test_serve_run_refuses_a_folder_that_holds_no_campaign(tmp_path, monkeypatch, made):
    import uvicorn

    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: pytest.fail("started"))
    monkeypatch.delenv("SIMEVAL_SERVE_DB", raising=False)
    folder = tmp_path / "nosuchdir"
    if made:
        folder.mkdir()
    r = CliRunner().invoke(cli, ["serve", "run", str(folder)])
    assert r.exit_code == 2, r.output
    assert len(r.output.strip().splitlines()) == 1, r.output
    said = r.output.strip()
    assert said.startswith(f"error: {folder}: no campaign to serve"), said
    assert f"simeval serve campaign {folder} campaign.toml" in said
    assert list(folder.iterdir()) == [] if made else not folder.exists()  # nothing made


def test_serve_run_starts_a_folder_made_by_serve_campaign(tmp_path, monkeypatch):
    """The legitimate start the refusal must let through: the folder `serve campaign` made."""
    import uvicorn

    seen: dict = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **k: seen.update(k, app=app))
    monkeypatch.delenv("SIMEVAL_SERVE_DB", raising=False)
    (tmp_path / "c.toml").write_text(CAMPAIGN, encoding="utf-8")
    folder = tmp_path / "srv"
    made = CliRunner().invoke(cli, ["serve", "campaign", str(folder), str(tmp_path / "c.toml")])
    assert made.exit_code == 0, made.output
    r = CliRunner().invoke(cli, ["serve", "run", str(folder), "--port", "8123"])
    assert r.exit_code == 0, r.output
    assert seen["port"] == 8123
    stop(seen["app"])


def test_a_server_without_a_campaign_yet_says_how_to_add_one(tmp_path, caplog):
    """`serve init` alone makes a server whose pages are empty: it starts (a campaign may be
    added while it runs), and its log says how to add one; one campaign later, it does not."""
    from simeval.serve.app import create_app
    from simeval.serve.db import default_url

    folder = tmp_path / "srv"
    assert CliRunner().invoke(cli, ["serve", "init", str(folder)]).exit_code == 0
    caplog.set_level(logging.WARNING, logger="simeval.serve")
    app = create_app(default_url(folder), folder / "files")
    stop(app)
    assert "no campaign on this server yet" in caplog.text
    assert "simeval serve campaign FOLDER FILE" in caplog.text

    caplog.clear()
    (tmp_path / "c.toml").write_text(CAMPAIGN, encoding="utf-8")
    made = CliRunner().invoke(cli, ["serve", "campaign", str(folder), str(tmp_path / "c.toml")])
    assert made.exit_code == 0, made.output
    stop(create_app(default_url(folder), folder / "files"))
    assert "no campaign" not in caplog.text
