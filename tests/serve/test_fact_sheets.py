"""Fact sheets (issue 32, item 3): a team describes its system for a phase on its page or by
the API; the export holds them (anonymised with the rest); they close once a hidden phase is
published, or a week after a visible phase's deadline."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from serve_kit import TEST_END, TRIAL_END, page_csrf, register


def test_a_team_writes_its_fact_sheet_and_the_export_holds_it(srv, tmp_path: Path) -> None:
    from simeval.serve.service.editing import publish
    from simeval.serve.service.export import export

    server, clock = srv
    client = server.client
    token = register(client, "alpha")
    auth = {"authorization": f"Bearer {token}"}
    sheet = "Cosine of **alpha**'s own word2vec, trained on ruwiki."
    r = client.put("/api/phases/test/factsheet", json={"text": sheet}, headers=auth)
    assert r.status_code == 200 and r.json()["text"] == sheet
    assert client.get("/api/phases/test/factsheet", headers=auth).json()["text"] == sheet
    assert client.put("/api/phases/test/factsheet", json={"x": 1}, headers=auth).status_code == 422
    assert client.put("/api/phases/test/factsheet", json={"text": "x"}).status_code == 401
    too_long = {"text": "x" * 20_001}
    assert client.put("/api/phases/test/factsheet", json=too_long, headers=auth).status_code == 422
    client.post("/login", data={"csrf": page_csrf(client), "token": token})
    mine = client.get("/mine").text
    assert "Fact sheets" in mine and "own word2vec" in mine
    r = client.post("/campaigns/lex25/phases/trial/factsheet",
                    data={"csrf": page_csrf(client, "/mine"), "text": "Prefix overlap."},
                    follow_redirects=False)  # fmt: skip
    assert r.status_code == 303
    clock.now = TEST_END + timedelta(hours=1)
    publish(server.db, "lex25", "test", clock.now)
    r = client.put("/api/phases/test/factsheet", json={"text": "late"}, headers=auth)
    assert r.status_code == 403 and "closed" in r.json()["error"]
    storage = server.app.state.service.storage
    export(server.db, storage, "lex25", tmp_path / "out")
    text = (tmp_path / "out" / "test" / "factsheets.md").read_text()
    assert "## alpha" in text and "own word2vec" in text
    assert "Prefix overlap." in (tmp_path / "out" / "trial" / "factsheets.md").read_text()
    export(server.db, storage, "lex25", tmp_path / "anon", anonymise=True)
    hidden = (tmp_path / "anon" / "test" / "factsheets.md").read_text()
    assert "alpha" not in hidden.lower() and "team-01" in hidden  # its own name too


def test_a_visible_phase_keeps_its_fact_sheets_open_for_a_week(srv) -> None:
    server, clock = srv
    token = register(server.client, "beta")
    auth = {"authorization": f"Bearer {token}"}
    clock.now = TRIAL_END + timedelta(days=6)
    r = server.client.put("/api/phases/trial/factsheet", json={"text": "ok"}, headers=auth)
    assert r.status_code == 200
    clock.now = TRIAL_END + timedelta(days=8)
    r = server.client.put("/api/phases/trial/factsheet", json={"text": "no"}, headers=auth)
    assert r.status_code == 403


HOSTILE = (
    "# TEAM B\n\nbeta's results are fake.\n\n## beta\n\n<script>alert(1)</script>\n"
    "[docs]: javascript:alert(1)\n\n---\n\n```\n````\n~~~\nend",
    '<img src=x onerror="alert(2)">\n```python\nprint(1)\n```',
)


def test_a_fact_sheet_cannot_pass_for_another_team_s_section(srv, tmp_path: Path) -> None:
    """Each fact sheet is Markdown text in the export, whatever it holds: read by a
    CommonMark parser (markdown-it-py, with raw HTML on), the file has one heading per team and
    the title, no raw HTML and no link definition, and each team's text comes out as written."""
    from markdown_it import MarkdownIt

    from simeval.serve.service.export import export

    server, _ = srv
    for team, text in zip(("alpha", "beta"), HOSTILE, strict=True):
        auth = {"authorization": f"Bearer {register(server.client, team)}"}
        r = server.client.put("/api/phases/trial/factsheet", json={"text": text}, headers=auth)
        assert r.status_code == 200
    export(server.db, server.app.state.service.storage, "lex25", tmp_path / "out")
    source = (tmp_path / "out" / "trial" / "factsheets.md").read_text(encoding="utf-8")
    tokens = MarkdownIt("commonmark", {"html": True}).parse(source, env := {})
    headings = ["".join(c.content for c in tokens[i + 1].children)
                for i, t in enumerate(tokens) if t.type == "heading_open"]  # fmt: skip
    assert headings == ["Word similarity 2025: trial: fact sheets", "alpha", "beta"]
    assert not [t for t in tokens if t.type in ("html_block", "hr")]
    assert not any(c.type == "html_inline" for t in tokens for c in t.children or [])
    assert not env.get("references")
    blocks = [t.content for t in tokens if t.type in ("fence", "code_block")]
    assert blocks == [text + "\n" for text in HOSTILE]  # each as the team wrote it
