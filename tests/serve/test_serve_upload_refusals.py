"""Refusals of an upload name what they refuse (found by the upload surface of
``tests/fuzzing``): a file past the phase's cap is named in the 413 answer, whether its size
was declared (``Content-Length``) or found while reading the stream."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

pytest.importorskip("fastapi")

from serve_kit import OPENS, Clock, make_server, register


@pytest.mark.parametrize("declared", [True, False])
def test_a_file_past_the_cap_is_refused_by_its_name(tmp_path: Path, declared: bool) -> None:
    s = make_server(f"sqlite:///{tmp_path / 'serve.db'}", tmp_path, Clock(OPENS + timedelta(1)))
    token = register(s.client, "alpha")
    cap = 100_000  # the trial phase's max_bytes in serve_kit.CAMPAIGN

    def stream():  # no Content-Length: the cap is found while reading
        for _ in range(cap // 1000 + 1):
            yield b"x" * 1000

    r = s.client.post(
        "/api/phases/trial/submissions",
        params={"target": "mc30", "filename": "../my-run.csv"},
        content=b"x" * (cap + 1) if declared else stream(),
        headers={"authorization": f"Bearer {token}"},
    )
    assert r.status_code == 413
    assert r.json()["error"].startswith("my-run.csv: ") and "cap of 100,000" in r.json()["error"]
