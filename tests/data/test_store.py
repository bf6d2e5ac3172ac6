"""The data store: the real mirror verifies; downloads are tested against a local HTTP server on
127.0.0.1 serving ../shared/data (good, corrupted, and dropped midway)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simeval.cli import app
from simeval.data.catalog import CATALOG
from simeval.data.store import DataStore
from simeval.errors import DataError

FILE = "russe/hj-test.csv"


class Server:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.requests: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                mode, _, rel = self.path.lstrip("/").partition("/")
                server.requests.append(self.path)
                local = server.root / rel
                if not local.is_file():
                    self.send_error(404)
                    return
                body = local.read_bytes()
                if mode == "corrupt":
                    body = body[:-2] + b"X\n"
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if mode == "drop":
                    self.wfile.write(body[: len(body) // 2])
                    self.wfile.flush()
                    self.connection.shutdown(2)
                    return
                if mode == "slow":
                    threading.Event().wait(0.3)
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server(data_dir: Path) -> Iterator[Server]:
    s = Server(data_dir)
    yield s
    s.close()


def data_files(cache: Path) -> list[Path]:
    return [p for p in cache.rglob("*") if p.is_file() and ".locks" not in p.parts]


def test_verify_real_mirror(data_dir: Path) -> None:
    result = CliRunner().invoke(app, ["data", "verify", "--data-dir", str(data_dir)])
    assert result.exit_code == 0, result.output
    for name, entry in CATALOG.items():
        assert f"{name}: {len(entry.files)}/{len(entry.files)} files ok" in result.output


def test_good_download(server: Server, tmp_path: Path, data_dir: Path) -> None:
    store = DataStore(cache_dir=tmp_path, mirror_url=server.url + "/good")
    path = store.path(FILE)
    assert path == tmp_path / FILE
    assert path.read_bytes() == (data_dir / FILE).read_bytes()
    assert data_files(tmp_path) == [path]  # no temporary files left
    DataStore(cache_dir=tmp_path, mirror_url=server.url + "/good").path(FILE)
    assert len(server.requests) == 1  # the second store found it in the cache


@pytest.mark.parametrize(
    ("mode", "message"), [("corrupt", "corrupted"), ("drop", "nothing was kept")]
)
def test_failed_download_leaves_nothing(
    server: Server, tmp_path: Path, mode: str, message: str
) -> None:
    store = DataStore(cache_dir=tmp_path, mirror_url=f"{server.url}/{mode}")
    with pytest.raises(DataError, match=message):
        store.path(FILE)
    assert data_files(tmp_path) == []


def test_missing_on_server(server: Server, tmp_path: Path, data_dir: Path) -> None:
    store = DataStore(cache_dir=tmp_path, mirror_url=f"{server.url}/good/nowhere")
    with pytest.raises(DataError, match="Not Found"):
        store.path(FILE)
    assert data_files(tmp_path) == []


def test_concurrent_fetches_download_once(server: Server, tmp_path: Path) -> None:
    errors: list[BaseException] = []

    def fetch() -> None:
        try:
            DataStore(cache_dir=tmp_path, mirror_url=server.url + "/slow").path(FILE)
        except BaseException as exc:  # pragma: no cover
            errors.append(exc)

    threads = [threading.Thread(target=fetch) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(server.requests) == 1


def test_offline_message_points_to_mirror(tmp_path: Path) -> None:
    store = DataStore(cache_dir=tmp_path, offline=True)
    with pytest.raises(DataError, match="SIMEVAL_DATA_DIR"):
        store.path(FILE)


def test_corrupted_mirror_file_is_refused(tmp_path: Path, data_dir: Path) -> None:
    mirror = tmp_path / "mirror"
    (mirror / "rg65").mkdir(parents=True)
    (mirror / "rg65" / "EN-RG-65.txt").write_bytes(
        (data_dir / "rg65" / "EN-RG-65.txt").read_bytes() + b"x\ty\t1\n"
    )
    store = DataStore(data_dir=mirror, cache_dir=tmp_path / "c", offline=True)
    with pytest.raises(DataError, match="does not match the catalog"):
        store.path("rg65/EN-RG-65.txt")
    result = CliRunner().invoke(app, ["data", "verify", "rg65", "--data-dir", str(mirror)])
    assert result.exit_code == 1 and "does not match" in result.output
