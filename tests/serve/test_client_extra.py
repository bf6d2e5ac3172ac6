"""A participant's install (issue 33, stumble 1): `simeval register` and `simeval submit`
crashed with ModuleNotFoundError: httpx, which only the test extra held. In a fresh virtual
environment with simeval and only its `client` extra, both commands reach the server: against
a port where nothing listens they fail in one line naming the URL, with exit 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_client_extra_is_all_register_and_submit_need(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
    done = subprocess.run([*pip, f"{ROOT}[client]"], capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    simeval = str(venv / "bin" / "simeval")
    url = "http://127.0.0.1:9"  # discard: nothing listens
    (tmp_path / "run.csv").write_text("word1,word2,sim\ncat,dog,0.5\n")
    for args in (["register", "lex25", "--team", "alpha", "--server", url],
                 ["submit", str(tmp_path / "run.csv"), "--server", url, "--token", "t",
                  "--phase", "trial"]):  # fmt: skip
        run = subprocess.run([simeval, *args], capture_output=True, text=True, timeout=120)
        assert run.returncode == 2, (args, run.stdout, run.stderr)
        assert "ModuleNotFoundError" not in run.stderr and "Traceback" not in run.stderr
        assert url in run.stderr, run.stderr
    listed = subprocess.run([*pip[:-2], "list", "--format=freeze"], capture_output=True,
                            text=True, check=True).stdout.lower()  # fmt: skip
    assert "httpx==" in listed and "fastapi==" not in listed  # the client, not the server
