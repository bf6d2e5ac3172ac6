"""The `curl` upload of docs/guide/shared-task.md, run as written against a live server
(uvicorn on loopback): a run is scored as the page says (201, its run number, the score
scipy computes from the file and the gold), a file with a word for a score is refused with
422 and the file's line, and a wrong token gets 401 (issue 33, stumble 9: the upload
endpoint was undocumented).

Where the `curl` binary is missing, the documented command's URL, headers and body are
parsed from the page and replayed with httpx instead (a warning says so)."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import warnings
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from scipy.stats import spearmanr

import readme_text
from serve_kit import BAD_LINE, OPENS, Clock, bad_file, live, make_server, pair_file, stop

pytest.importorskip("fastapi")

PAGE = readme_text.doc("guide/shared-task.md")
(CURL,) = [b for b in readme_text.blocks(PAGE, "bash") if b.lstrip().startswith("curl ")]
CURL_FOUND = shutil.which("curl") is not None


def _upload(command: str, cwd: Path, token: str) -> tuple[int, dict]:
    """Run the page's command (``$TOKEN`` the team's token): the JSON answer and the status
    it prints after it, with curl or, without it, the same request through httpx."""
    if CURL_FOUND:
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=cwd,
            env={"PATH": "/usr/bin:/bin", "TOKEN": token},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        body, status = done.stdout.rstrip("\n").rsplit("\n", 1)
        return int(status), json.loads(body)
    warnings.warn("no curl binary: the page's curl command is replayed with httpx", stacklevel=2)
    words = shlex.split(command.replace("\\\n", " ").replace("$TOKEN", token))
    headers = dict(h.split(": ", 1) for h in words[words.index("-H") + 1 :: 2] if ": " in h)
    data = (cwd / words[words.index("--data-binary") + 1].removeprefix("@")).read_bytes()
    answer = httpx.post(words[-1], headers=headers, content=data, timeout=60, trust_env=False)
    return answer.status_code, answer.json()


def test_the_documented_curl_upload_runs_against_a_live_server(tmp_path, mc30):
    assert "--data-binary @run1.csv" in CURL and 'Authorization: Bearer $TOKEN"' in CURL
    srv = make_server(f"sqlite:///{tmp_path / 'serve.db'}", tmp_path, Clock(OPENS + timedelta(1)))
    try:
        with live(srv.app) as base:
            command = CURL.replace("http://127.0.0.1:8000", base)
            assert command != CURL  # the page's address was found and pointed at this server
            token = httpx.post(f"{base}/api/campaigns/lex25/teams", json={"team": "alpha"})
            token = token.json()["token"]

            data, scores = pair_file(mc30, 7)
            (tmp_path / "run1.csv").write_bytes(data)
            status, answer = _upload(command, tmp_path, token)
            assert status == 201, answer
            assert (answer["phase"], answer["target"], answer["file"]) == (
                "trial",
                "mc30",
                "run1.csv",
            )
            assert (answer["run"], answer["runs"], answer["status"]) == (1, 2, "scored")
            (result,) = answer["results"]
            expected = spearmanr([g for *_, g in mc30], scores).statistic
            assert result["main_metric"] == "spearman"
            assert result["score"] == pytest.approx(expected, abs=1e-12)

            (tmp_path / "run1.csv").write_bytes(bad_file(mc30))
            status, answer = _upload(command, tmp_path, token)
            assert status == 422, answer
            assert (answer["status"], answer["run"]) == ("rejected", None)
            assert (answer["file"], answer["line"]) == ("run1.csv", BAD_LINE)
            assert answer["error"].startswith(f"run1.csv:{BAD_LINE}: ")

            status, answer = _upload(command, tmp_path, "st_wrong")
            assert status == 401 and "token" in answer["error"], answer
    finally:
        stop(srv.app)


def test_the_page_lists_the_answers_codes() -> None:
    listed = set(re.findall(r"`(\d{3})`", PAGE))
    assert {"201", "401", "403", "404", "409", "413", "422", "429", "503"} <= listed
