"""The server offers its own simeval (issue 47): the campaign page shows the one ``pip
install`` line of the wheel the server runs, with the ``client`` extra, and ``/client/<wheel>``
serves that wheel: from this checkout, built once from the checkout's files, holding each
file git tracks under src/simeval as it is in the working tree and the commit (git asked here
as the oracle). The repacking of an installed wheel is checked by
tests/packaging/test_wheel.py, from an installed wheel."""

from __future__ import annotations

import hashlib
import html
import re
import subprocess
import tomllib
import zipfile
from io import BytesIO
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytest.importorskip("fastapi")


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True
    ).stdout.strip()


@pytest.fixture(autouse=True)
def _checkout() -> None:
    if not (ROOT / ".git").exists():
        pytest.skip("the server's wheel is built from a checkout here")


@pytest.fixture
def server(tmp_path: Path):
    """A server of serve_kit's campaign on SQLite (the wheel does not depend on the database:
    one build, not one a database)."""
    from serve_kit import OPENS, Clock, make_server

    folder = tmp_path / "srv"
    made = make_server(f"sqlite:///{tmp_path / 'serve.db'}", folder, Clock(OPENS))
    yield made
    made.db.dispose()


def _expected_name() -> str:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["version"]
    return f"simeval-{version}-py3-none-any.whl"


def _install_line(server) -> str:
    page = server.client.get("/campaigns/lex25")
    assert page.status_code == 200
    found = re.findall(r"<code>(pip install [^<]*)</code>", page.text)
    assert len(found) == 1, page.text[-2000:]
    return html.unescape(found[0])


def test_the_campaign_page_shows_the_pip_install_line_of_the_servers_wheel(server) -> None:
    line = _install_line(server)
    # the address is not the request's Host header (a client writes that): the page says
    # to put its own address there
    assert line == f'pip install "simeval[client] @ https://THIS-SERVER/client/{_expected_name()}"'
    assert server.client.get("/client/simeval-9.9.9-py3-none-any.whl").status_code == 404


@pytest.mark.slow
def test_the_offered_wheel_is_this_checkouts_code_and_commit(server) -> None:
    url = _install_line(server).split("@ ")[1].rstrip('"').removeprefix("https://THIS-SERVER")
    got = server.client.get(url)
    assert got.status_code == 200, got.text[-2000:]
    wheel = zipfile.ZipFile(BytesIO(got.content))
    dirty = "+dirty" if _git("status", "--porcelain", "--untracked-files=no") else ""
    recorded = wheel.read("simeval/_build.py").decode()
    assert f"COMMIT = '{_git('rev-parse', 'HEAD')}{dirty}'" in recorded.splitlines()
    tracked = [p for p in _git("ls-files", "src/simeval").splitlines() if (ROOT / p).is_file()]
    assert len(tracked) > 200
    for path in tracked:
        inside = hashlib.sha256(wheel.read(path.removeprefix("src/"))).hexdigest()
        assert inside == hashlib.sha256((ROOT / path).read_bytes()).hexdigest(), path
    again = server.client.get(url)  # made once, then served as it is
    assert again.content == got.content
    assert len(list((server.files / "client").rglob("*.whl"))) == 1


def test_a_wheel_that_cannot_be_made_answers_503_once_tried(server, monkeypatch) -> None:
    """A failed build is answered 503 with its reason, and not tried again per request."""
    from simeval.errors import SimevalError
    from simeval.serve.service.client_wheel import ClientWheel

    tries = []

    def broken(self: ClientWheel) -> Path:
        tries.append(1)
        raise SimevalError("pip wheel of the checkout failed: no setuptools")

    monkeypatch.setattr(ClientWheel, "_make", broken)
    url = f"/client/{_expected_name()}"
    for _ in range(2):
        got = server.client.get(url)
        assert got.status_code == 503
        assert "no client wheel on this server: pip wheel of the checkout failed" in got.text
    assert tries == [1]
