"""The server never loses an upload, however it is started (issue 28, points 1-3):

1. a database and its storage folder are stamped with each other's id; a start with the
   wrong database is refused, names the right one and moves nothing; files that no row names
   are quarantined, never deleted;
2. one server per folder: a second `serve run` refuses to start, and the first one's upload
   in flight is recorded;
3. a full disk, a read-only folder or a locked database answer 503 with Retry-After, leave
   nothing half-written, and `simeval submit` says so without a traceback (and so for a
   server that answers no JSON at all).
"""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import socket
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from disk_kit import fill
from serve_kit import OPENS, Clock, make_server, pair_file, register, stop, upload
from simeval.cli import app as cli
from test_serve_security import CliServer, auth, start_upload, submission_ids, wait_for

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")


@pytest.fixture
def clock() -> Clock:
    return Clock(OPENS + timedelta(days=1))


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file below ``folder`` (relative path → bytes)."""
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def simeval(
    *args: str, timeout: float = 120, env: dict | None = None
) -> subprocess.CompletedProcess:
    """``simeval ARGS`` as a child process (the code under test), its output captured."""
    import simeval as package

    env = dict(env if env is not None else os.environ)
    src = str(Path(package.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
    code = (
        f"import sys; from simeval.cli import main; sys.argv = ['simeval', *{list(args)!r}]; main()"
    )
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, env=env
    )


def one_line(text: str) -> str:
    return " ".join(text.split())


# ---- 1. the stamp


@pytest.mark.slow
def test_a_start_with_the_wrong_database_is_refused_and_moves_nothing(
    tmp_path, serve_db, clock, mc30, monkeypatch
):
    """The C1 case: the campaign's database is ``serve_db``; the organiser starts the folder
    without --db (SIMEVAL_SERVE_DB unset), so the default FOLDER/serve.db is a new file. The
    refusal is the one docs/operating-a-server.md quotes under "The stamp"."""
    from simeval.serve.app import create_app
    from simeval.serve.db import default_url
    from simeval.serve.db.pairing import Mismatch, shown_url

    folder = tmp_path / "campaign"
    srv = make_server(serve_db, folder, clock)
    token = register(srv.client, "alpha")
    sid = upload(srv.client, token, pair_file(mc30, 1)[0], target="mc30").json()["id"]
    stop(srv.app)
    before = snapshot(srv.files)
    assert f"submissions/{sid}/upload" in before

    with pytest.raises(Mismatch) as refused:
        create_app(default_url(folder), srv.files, clock=clock)
    message = one_line(str(refused.value))
    assert f"belongs to the database {shown_url(serve_db)}" in message
    assert "--db" in message and "nothing was changed" in message
    assert snapshot(srv.files) == before  # no upload taken for a leftover
    assert not (folder / "serve.db").exists()  # and no empty database left behind

    # the real command, as an organiser would type it, refuses the same way (exit 2)
    monkeypatch.delenv("SIMEVAL_SERVE_DB", raising=False)
    env = {k: v for k, v in os.environ.items() if k != "SIMEVAL_SERVE_DB"}
    done = simeval("serve", "run", str(folder), "--port", "1", env=env, timeout=60)
    assert done.returncode == 2, done.stderr
    assert f"belongs to the database {shown_url(serve_db)}" in one_line(done.stderr)
    assert "Traceback" not in done.stderr
    for command in (["init", str(folder)], ["publish", str(folder), "-c", "lex25", "-p", "test"]):
        r = CliRunner().invoke(cli, ["serve", *command])
        assert r.exit_code == 2 and "belongs to the database" in one_line(r.output), r.output
    assert snapshot(srv.files) == before and not (folder / "serve.db").exists()

    # with the right database the upload is all there
    out = tmp_path / "export"
    r = CliRunner().invoke(
        cli, ["serve", "export", str(folder), "-c", "lex25", "-o", str(out), "--db", serve_db]
    )
    assert r.exit_code == 0, r.output
    assert (out / "submissions" / sid).read_bytes() == before[f"submissions/{sid}/upload"]


def test_a_database_stamped_for_another_folder_is_refused(tmp_path, serve_db, clock, mc30):
    """Two campaigns' folders swapped: each database names the folder it belongs to."""
    from simeval.serve.app import create_app
    from simeval.serve.db.pairing import Mismatch

    first = make_server(serve_db, tmp_path / "first", clock)
    stop(first.app)
    other_url = f"sqlite:///{tmp_path / 'other.db'}"
    other = make_server(other_url, tmp_path / "other", clock)
    register(other.client, "beta")
    stop(other.app)
    before = snapshot(other.files)
    with pytest.raises(Mismatch) as refused:
        create_app(serve_db, other.files, clock=clock)  # first's database, other's folder
    message = one_line(str(refused.value))
    assert "they are not a pair" in message
    assert str(first.files.resolve()) in message  # where the database's folder is
    assert snapshot(other.files) == before


def test_a_folder_without_stamp_is_refused_by_a_stamped_database(tmp_path, serve_db, clock):
    from simeval.serve.app import create_app
    from simeval.serve.db.pairing import Mismatch

    srv = make_server(serve_db, tmp_path / "a", clock)
    stop(srv.app)
    with pytest.raises(Mismatch, match="belongs to the folder"):
        create_app(serve_db, tmp_path / "elsewhere" / "files", clock=clock)


def test_a_pair_made_before_stamps_is_stamped_when_rows_and_files_agree(
    tmp_path, serve_db, clock, mc30
):
    """A campaign made by the previous version: no stamp on either side. It starts, and is
    stamped; a new database beside its files is refused."""
    from sqlalchemy import delete

    from simeval.serve.app import create_app
    from simeval.serve.db.models import ServerStamp
    from simeval.serve.db.pairing import STAMP_FILE, Mismatch

    srv = make_server(serve_db, tmp_path / "old", clock)
    token = register(srv.client, "alpha")
    upload(srv.client, token, pair_file(mc30, 1)[0], target="mc30")
    stop(srv.app)
    with srv.db.session() as s:  # as before stamps existed
        s.execute(delete(ServerStamp))
    (srv.files / STAMP_FILE).unlink()
    before = snapshot(srv.files)

    fresh = f"sqlite:///{tmp_path / 'fresh.db'}"
    with pytest.raises(Mismatch, match="records no upload at all"):
        create_app(fresh, srv.files, clock=clock)
    assert snapshot(srv.files) == before and not (tmp_path / "fresh.db").exists()

    adopted = create_app(serve_db, srv.files, clock=clock)
    stamp = json.loads((srv.files / STAMP_FILE).read_text())
    with srv.db.session() as s:
        row = s.get(ServerStamp, 1)
        assert (row.db_id, row.folder_id) == (stamp["db_id"], stamp["folder_id"])
    assert oct((srv.files / STAMP_FILE).stat().st_mode & 0o777) == "0o600"
    stop(adopted)


# ---- 2. one server per folder


@pytest.mark.slow
def test_a_second_server_on_the_folder_refuses_and_the_first_keeps_its_upload(
    tmp_path, serve_db, mc30
):
    folder = tmp_path / "live"
    live = CliServer(folder, serve_db, tmp_path / "server.log")
    live.create_campaign()
    data = pair_file(mc30, 1)[0]
    tmp = folder / "files" / "tmp"
    with live.running() as http:
        token = http.post("/api/campaigns/live25/teams", json={"team": "alpha"}).json()["token"]
        sock = start_upload(live.port, token, data, len(data) // 2)  # in flight
        (pending,) = wait_for(lambda: list(tmp.iterdir()), "the upload to begin")
        port = str(live.port + 1 if live.port < 65000 else live.port - 1)
        second = simeval("serve", "run", str(folder), "--db", serve_db, "--port", port, timeout=60)
        assert second.returncode == 2, second.stderr
        said = one_line(second.stderr)
        assert "another simeval server is running on" in said and "one server per folder" in said
        assert f"pid {live.process.pid}" in said  # who holds it
        assert pending.is_dir()  # the first one's upload was not touched
        sock.sendall(data[len(data) // 2 :])
        answer = read_response(sock)
        sock.close()
        assert answer.startswith("HTTP/1.1 201"), answer
        mine = http.get("/api/submissions", headers=auth(token)).json()
        assert [m["run"] for m in mine] == [1]
    assert submission_ids(serve_db) == [mine[0]["id"]]
    assert (folder / "files" / "submissions" / mine[0]["id"] / "upload").read_bytes() == data


def read_response(sock: socket.socket) -> str:
    """An HTTP response read until the server closes or its Content-Length is complete."""
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:") and len(body) >= int(line[15:]):
                return data.decode("utf-8", "replace")
    return data.decode("utf-8", "replace")


# ---- 3. storage failures


def nothing_kept(files: Path) -> bool:
    return not list((files / "tmp").iterdir()) and not list((files / "submissions").iterdir())


def test_a_full_disk_answers_503_and_keeps_nothing(small_disk, serve_db, clock, mc30):
    srv = make_server(serve_db, small_disk / "server", clock)
    token = register(srv.client, "alpha")
    data = pair_file(mc30, 1)[0]
    filler = fill(small_disk)
    r = upload(srv.client, token, data, target="mc30")
    assert r.status_code == 503, r.text
    assert r.headers["retry-after"] == "60"
    assert "could not store the file (No space left on device)" in r.json()["error"]
    assert "no run was used" in r.json()["error"]
    assert nothing_kept(srv.files)
    assert srv.client.get("/api/submissions", headers=auth(token)).json() == []
    filler.unlink()  # space again: the same file is taken, as run 1
    r = upload(srv.client, token, data, target="mc30")
    assert r.status_code == 201 and r.json()["run"] == 1
    stop(srv.app)


@pytest.mark.parametrize("part", ["tmp", "submissions"])
def test_a_read_only_folder_answers_503_and_keeps_nothing(tmp_path, serve_db, clock, mc30, part):
    """A folder of the uploads made read-only under the running server (a read-only bind
    mount: as root, file modes would not stop the writes): ``tmp`` fails the upload as it
    streams in, ``submissions`` fails its move into place after scoring."""
    srv = make_server(serve_db, tmp_path / "server", clock)
    token = register(srv.client, "alpha")
    folder = srv.files / part
    made = subprocess.run(["mount", "--bind", folder, folder], capture_output=True, text=True)
    if made.returncode != 0:
        if os.environ.get("CI"):
            pytest.fail(f"cannot bind-mount: {made.stderr}")
        pytest.skip(f"cannot bind-mount here: {made.stderr.strip()}")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", folder], check=True)
        r = upload(srv.client, token, pair_file(mc30, 1)[0], target="mc30")
    finally:
        subprocess.run(["umount", folder], check=False)
    assert r.status_code == 503 and r.headers["retry-after"] == "60", r.text
    assert "could not store the file" in r.json()["error"]
    assert nothing_kept(srv.files)
    assert srv.client.get("/api/submissions", headers=auth(token)).json() == []
    stop(srv.app)


def test_a_full_database_disk_answers_503_and_drops_the_kept_file(
    small_disk, tmp_path, clock, mc30
):
    """SQLite on the small disk: the upload is scored and renamed into place, then its row
    cannot be written; the renamed folder goes again."""
    url = f"sqlite:///{small_disk / 'serve.db'}"
    srv = make_server(url, tmp_path / "server", clock)
    token = register(srv.client, "alpha")
    fill(small_disk)
    codes = []
    for seed in range(1, 4):  # SQLite may still have room in pages it holds: a few tries
        r = upload(srv.client, token, pair_file(mc30, seed)[0], target="mc30")
        codes.append(r.status_code)
        if r.status_code == 503:
            assert r.headers["retry-after"] == "60"
            assert "the database is busy or unreachable" in r.json()["error"]
            break
    assert 503 in codes, codes
    kept = {p.name for p in (srv.files / "submissions").iterdir()}
    assert kept == set(submission_ids(url))  # no file without its row
    assert not list((srv.files / "tmp").iterdir())
    stop(srv.app)


def test_a_locked_database_answers_503_not_500(tmp_path, clock, mc30):
    from fastapi.testclient import TestClient

    from simeval.serve.app import create_app

    url = f"sqlite:///{tmp_path / 'serve.db'}"
    srv = make_server(url, tmp_path / "server", clock)
    token = register(srv.client, "alpha")
    stop(srv.app)
    client = TestClient(create_app(url, srv.files, clock=clock, rate_limits={}, busy_timeout=0.2))
    con = sqlite3.connect(tmp_path / "serve.db", isolation_level=None)
    con.execute("BEGIN IMMEDIATE")  # another writer holds the database
    try:
        r = upload(client, token, pair_file(mc30, 1)[0], target="mc30")
    finally:
        con.execute("ROLLBACK")
        con.close()
    assert r.status_code == 503 and r.headers["retry-after"] == "60", r.text
    assert nothing_kept(srv.files)
    r = upload(client, token, pair_file(mc30, 1)[0], target="mc30")
    assert r.status_code == 201 and r.json()["run"] == 1


# ---- 3. what `simeval submit` prints


@contextlib.contextmanager
def answering(status: int, body: bytes, kind: str, headers: dict | None = None) -> Iterator[str]:
    """A loopback HTTP server that answers every request with ``status`` and ``body``, as a
    reverse proxy does when the server behind it is down."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            self.rfile.read(length)
            self.send_response(status)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(body)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_submit_says_what_a_server_answered_that_is_not_json(tmp_path):
    run = tmp_path / "run.csv"
    run.write_text("word1,word2,sim\na,b,1\n")
    page = b"<html><body><h1>502 Bad Gateway</h1>nginx</body></html>"
    with answering(502, page, "text/html") as url:
        done = simeval("submit", str(run), "--server", url, "--token", "st_a_b", "-p", "trial")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    said = one_line(done.stderr)
    assert "the server answered 502 Bad Gateway with text/html, not simeval's JSON" in said
    assert "<h1>502 Bad Gateway</h1>nginx" in said  # what it did answer
    with answering(200, b"[1, 2]", "application/json") as url:  # JSON, but not an answer
        done = simeval("register", "lex25", "--team", "a", "--server", url)
    assert done.returncode == 2 and "not simeval's JSON" in one_line(done.stderr)


def test_submit_passes_on_a_503_and_its_retry_hint(tmp_path):
    run = tmp_path / "run.csv"
    run.write_text("word1,word2,sim\na,b,1\n")
    error = {"error": "the server could not store the file (No space left on device); nothing"}
    body = json.dumps(error).encode()
    with answering(503, body, "application/json", {"Retry-After": "60"}) as url:
        done = simeval("submit", str(run), "--server", url, "--token", "st_a_b", "-p", "trial")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    said = one_line(done.stderr)
    assert "No space left on device" in said
    assert "the server asks to retry after 60 s" in said


def test_a_lost_sqlite_database_is_not_recreated_empty(tmp_path, clock, mc30):
    """The folder's own SQLite file deleted (or restored wrongly): the same URL now opens a
    new, empty database. The start is refused and no empty file stays."""
    from simeval.serve.app import create_app
    from simeval.serve.db import default_url
    from simeval.serve.db.pairing import Mismatch

    folder = tmp_path / "srv"
    srv = make_server(default_url(folder), folder, clock)
    token = register(srv.client, "alpha")
    upload(srv.client, token, pair_file(mc30, 1)[0], target="mc30")
    stop(srv.app)
    srv.db.dispose()
    for p in folder.glob("serve.db*"):
        p.unlink()
    before = snapshot(srv.files)
    with pytest.raises(Mismatch, match="replaced or created anew"):
        create_app(default_url(folder), srv.files, clock=clock)
    assert not list(folder.glob("serve.db*")) and snapshot(srv.files) == before


def test_a_server_that_shuts_down_releases_its_folder(tmp_path, clock):
    """uvicorn runs the shutdown in its own thread: the lock taken at start is released there,
    so the next server on the folder starts (the lock is not per thread)."""
    from serve_kit import live
    from simeval.serve.app import create_app
    from simeval.serve.db.pairing import Busy

    url = f"sqlite:///{tmp_path / 'serve.db'}"
    srv = make_server(url, tmp_path / "server", clock)
    with live(srv.app), pytest.raises(Busy):
        create_app(url, srv.files, clock=clock)
    again = create_app(url, srv.files, clock=clock)
    stop(again)


def test_uploads_and_the_database_are_the_servers_alone(tmp_path, clock, mc30):
    """Folders 0700, files 0600: the SQLite file (and its WAL), the stamp, every stored
    upload, its result records and their item rows."""
    from simeval.serve.db import default_url

    folder = tmp_path / "srv"
    folder.mkdir(mode=0o755)
    srv = make_server(default_url(folder), folder, clock)
    token = register(srv.client, "alpha")
    sid = upload(srv.client, token, pair_file(mc30, 1)[0], target="mc30").json()["id"]
    stored = srv.files / "submissions" / sid
    dirs = [srv.files, srv.files / "tmp", srv.files / "submissions", stored, stored / "items"]
    files = [stored / "upload", *stored.glob("items/*"), srv.files / "server.json"]
    files += [stored / "results.jsonl", *stored.glob("results.jsonl.lock")]
    files += [p for p in folder.glob("serve.db*")]
    assert len(files) >= 4
    assert {str(d): oct(d.stat().st_mode & 0o777) for d in dirs} == {str(d): "0o700" for d in dirs}
    assert {str(f): oct(f.stat().st_mode & 0o777) for f in files} == {
        str(f): "0o600" for f in files
    }
    stop(srv.app)
