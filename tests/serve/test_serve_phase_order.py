"""Phases are listed in the order they open, then in the order the campaign file declares
them, wherever they are listed: the campaign page, the phases a campaign's service gives (the
export and the pages read them) and the lines `simeval serve campaign` prints. A file that
declares its test phase before its trial listed the test first (issue 33, stumble 9)."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("fastapi")

from serve_kit import (
    OPENS,
    TEST_END,
    TEST_OPENS,
    TRIAL_END,
    Clock,
    campaign_toml,
    make_server,
    phase_toml,
    stop,
)
from simeval.cli import app as cli

# declared: test (opens 2 February), trial (1 January), dev (1 January, as trial)
DECLARED = campaign_toml(
    "lex25",
    phase_toml("test", ["yp130"], TEST_OPENS, TEST_END),
    phase_toml("trial", ["mc30"], OPENS, TRIAL_END),
    phase_toml("dev", ["rg65"], OPENS, TRIAL_END + timedelta(days=1)),
)
OPENING_ORDER = ["trial", "dev", "test"]  # by opening; trial and dev tie: the file's order


def test_the_campaign_page_and_the_service_list_phases_as_they_open(tmp_path, serve_db):
    srv = make_server(serve_db, tmp_path / "srv", Clock(OPENS), campaign=DECLARED)
    try:
        page = srv.client.get("/campaigns/lex25")
        assert page.status_code == 200
        headings = re.findall(r'<h2><a href="/campaigns/lex25/phases/(\w+)">', page.text)
        assert headings == OPENING_ORDER
        _, phases = srv.app.state.service.campaign("lex25")
        assert [p.name for p in phases] == OPENING_ORDER
    finally:
        stop(srv.app)


def test_serve_campaign_prints_the_phases_as_they_open(tmp_path: Path) -> None:
    (tmp_path / "c.toml").write_text(DECLARED, encoding="utf-8")
    done = CliRunner().invoke(
        cli, ["serve", "campaign", str(tmp_path / "srv"), str(tmp_path / "c.toml")]
    )
    assert done.exit_code == 0, done.output
    listed = re.findall(r"^  phase (\w+):", done.stdout, flags=re.M)
    assert listed == OPENING_ORDER
