"""Every page of the server, with hostile text in every field a team or an organiser can set:
the text is shown as text (escaped), never as markup, a script or a template expression.

The GET pages are listed from the app's routes, so a new page is covered without a change
here; the pages a form answers with (an upload, a refusal, the console after an edit, a
re-scoring, a reset token) are rendered on the way there.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from datetime import timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from serve_kit import (
    OPENS,
    TEST_END,
    Clock,
    campaign_toml,
    make_server,
    page_csrf,
    phase_toml,
    register,
    upload,
)

# what a page must never carry as it was typed: a script, an element with an event handler,
# an attribute broken out of its quotes; {{7*7}} must be shown as typed, not evaluated (49)
HOSTILE = "<script>alert(1)</script> \"><img src=x onerror=alert(1)> {{7*7}} ' onmouseover='"
RAW = ("<script>alert(1)", "<img src=x", '"><img')
# the fields a campaign file, an organiser or a team set, each marked so the test can tell
# which of them a page showed
FIELDS = (
    "title", "description", "terms", "news-title", "news-body", "file-name", "file-error",
    "fact-sheet", "exclusion", "filter", "reopening", "refusal", "search",
)  # fmt: skip


def hostile(field: str) -> str:
    return f"[{field}] {HOSTILE}"


def routes(app: Any) -> Iterator[str]:
    """The path of every GET route of ``app`` (its included routers' too)."""
    stack = list(app.routes)
    while stack:
        route = stack.pop(0)
        if hasattr(route, "original_router"):  # an included router (FastAPI >= 0.120)
            stack[:0] = route.original_router.routes
        elif "GET" in (getattr(route, "methods", None) or ()):
            yield route.path


def filled(path: str, phase: str) -> str:
    target = "mc30" if phase == "trial" else "yp130"
    values = {"campaign": "h1", "phase": phase, "target": target, "submission_id": "{id}",
              "name": "simeval-none.whl"}  # fmt: skip
    return re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], path)


class Elements(HTMLParser):
    """Every element of a page: its tag and attributes; the text of its scripts."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.scripts: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))

    def handle_data(self, data: str) -> None:
        if self.lasttag == "script" and data.strip():
            self.scripts.append(data)


def check(text: str, where: str) -> None:
    """No hostile text as markup: no event-handler attribute (an attribute broken out of its
    quotes), no image, no script but the page's own."""
    from simeval.serve.views.pages import SCRIPT

    for raw in RAW:
        assert raw not in text, f"{where}: {raw!r} unescaped"
    found = Elements(text)
    handlers = [(t, a) for t, attrs in found.tags for a, _ in attrs if a.startswith("on")]
    assert not handlers, f"{where}: event handlers {handlers}"
    assert "img" not in {t for t, _ in found.tags}, where
    assert found.scripts == [SCRIPT], f"{where}: scripts {found.scripts}"


def answered(r: Any, where: str, shown: list[str]) -> Any:
    """Keep an HTML answer of a form (it is a page too) for the checks."""
    if r.headers.get("content-type", "").startswith("text/html"):
        check(r.text, where)
        shown.append(r.text)
    return r


def test_every_page_shows_hostile_text_as_text(tmp_path: Path, mc30) -> None:
    from simeval.serve.service.organisers import add_organiser

    clock = Clock(OPENS + timedelta(days=1))
    # the title is the campaign file's to set (TOML: the quotes escaped)
    title = hostile("title").replace("\\", "\\\\").replace('"', '\\"')
    campaign = campaign_toml(
        "h1",
        phase_toml("trial", ["mc30"]),
        phase_toml("test", ["yp130"], OPENS, TEST_END, hidden=True),
        title=title,
    )
    server = make_server(f"sqlite:///{tmp_path / 'serve.db'}", tmp_path, clock, campaign)
    client, shown = server.client, []
    team = register(client, "alpha", "h1")
    scores = "\n".join(f"{a}\t{b}\t{g + 0.1 * (i % 3)}" for i, (a, b, g) in enumerate(mc30))
    name = hostile("file-name").replace("/", "")  # a client's name is shown from its last /
    r = upload(client, team, scores.encode(), filename=name + ".csv")
    assert r.status_code == 201, r.text
    bad = scores.replace(f"{mc30[2][2] + 0.2}", hostile("file-error"), 1).encode()
    r = upload(client, team, bad, filename="bad.csv")
    assert r.status_code == 422 and "file-error" in r.text, r.text
    auth = {"authorization": f"Bearer {team}"}
    r = client.put("/api/phases/trial/factsheet", json={"text": hostile("fact-sheet")},
                   headers=auth)  # fmt: skip
    assert r.status_code == 200, r.text

    csrf = page_csrf(client, "/organiser")
    token = add_organiser(server.db, "Ada", clock.now)
    r = client.post("/organiser/login", data={"csrf": csrf, "token": token}, follow_redirects=False)
    assert r.status_code == 303, r.text
    csrf = page_csrf(client, "/organiser")
    base = "/organiser/campaigns/h1"
    forms = [
        ("texts", {"description": hostile("description"), "terms": hostile("terms")}),
        ("announcements", {"action": "post", "title": hostile("news-title"),
                           "body": hostile("news-body")}),
        ("phases/trial/runs", {"action": "disqualify", "team": "alpha", "run": "1",
                               "reason": hostile("exclusion")}),
        ("teams", {"action": "rename", "team": "alpha", "new_name": hostile("refusal")}),
        ("rescore", {"action": "dry"}),
        ("teams", {"action": "reset", "team": "alpha", "confirm": "yes"}),
    ]  # fmt: skip
    for action, data in forms:
        r = answered(client.post(f"{base}/{action}", data={"csrf": csrf, **data}), action, shown)
        assert r.status_code in (200, 422), (action, r.text)
    reset = r
    r = answered(client.get(f"{base}/submissions", params={"team": hostile("filter")}),
                 "filter", shown)  # fmt: skip
    assert r.status_code == 200, r.text
    clock.now = TEST_END + timedelta(hours=1)  # the hidden phase is over: publish and reopen
    for action in ("publish", "unpublish"):
        data = {"csrf": csrf, "action": action, "confirm": "yes"}
        r = client.post(f"{base}/phases/test", data=data)
        assert r.status_code == 200, r.text
    later = (TEST_END + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M:%SZ")
    reopen = {
        "csrf": csrf,
        "action": "save",
        "reopen_reason": hostile("reopening"),
        "deadline": later,
    }
    r = answered(client.post(f"{base}/phases/test", data=reopen), "reopen", shown)
    assert r.status_code == 200, r.text

    team = re.findall(r'<code class="token">([^<]+)</code>', reset.text)[
        -1
    ]  # the reset gave a new token
    auth = {"authorization": f"Bearer {team}"}
    submission = client.get("/api/submissions", headers=auth).json()[0]["id"]
    login = page_csrf(client, "/campaigns/h1")
    r = client.post("/login", data={"csrf": login, "token": team}, follow_redirects=False)
    assert r.status_code == 303, r.text  # the team's pages (/mine) beside the organiser's
    paths = sorted(set(routes(server.app)))
    assert "/mine" in paths and "/organiser/campaigns/{campaign}/submissions" in paths
    for path in paths:
        for phase in ("trial", "test"):
            address = filled(path, phase).replace("{id}", submission)
            for query in ({}, {"team": hostile("search"), "page": "2"}):  # a board's search
                answered(client.get(address, params=query, headers=auth), address, shown)
    text = html.unescape("\n".join(shown))
    missed = [f for f in FIELDS if f"[{f}] <script>alert(1)" not in text]
    assert HOSTILE.split("'")[0] in text  # {{7*7}} as typed, beside the rest
    assert not missed, f"never shown (the test no longer reaches them): {missed}"
    server.db.dispose()
