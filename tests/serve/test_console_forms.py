"""The console's forms as an organiser uses them (issue 46): every POST answers 303 to a page
that shows its outcome once (post/redirect/get), a GET on a form's address is a page, not a
405; Close, Publish, Revoke and Reset token want their confirm box; a run to disqualify is
picked from the phase's scored runs; pending teams are approved at once; times are
datetime-local fields whose refusal shows beside them; the page has sections and a table of
contents; a team sees upload forms only for open phases; the board shows every target's
column, says why the combined column's bold may not be its largest value, and why runs whose
rank intervals do not overlap may share a tier."""

from __future__ import annotations

import html
import re
from datetime import timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from serve_kit import (
    OPENS,
    TEST_END,
    TRIAL_END,
    Clock,
    campaign_toml,
    make_server,
    page_csrf,
    perturbed,
    phase_toml,
    register,
    upload,
)

CONSOLE = "/organiser/campaigns/lex25"


def _signed_in(server: Any, clock: Clock) -> str:
    """Sign an organiser in on the console; the CSRF value of its forms."""
    from simeval.serve.service.organisers import add_organiser

    csrf = page_csrf(server.client, "/organiser")
    token = add_organiser(server.db, "Ada", clock.now)
    r = server.client.post("/organiser/login", data={"csrf": csrf, "token": token},
                           follow_redirects=False)  # fmt: skip
    assert r.status_code == 303
    return page_csrf(server.client, "/organiser")


def _status(page: str) -> str | None:
    """The outcome line a page shows at its top, if any."""
    found = re.search(r'<p class="countdown" role="status">([^<]*)</p>', page)
    return html.unescape(found.group(1)) if found else None


def _post(server: Any, path: str, **data: str) -> Any:
    """A console form sent without following its redirect."""
    return server.client.post(f"{CONSOLE}/{path}", data=data, follow_redirects=False)


def test_every_console_form_redirects_to_a_page_that_shows_its_outcome_once(srv, mc30) -> None:
    server, clock = srv
    client = server.client
    csrf = _signed_in(server, clock)
    alpha = register(client, "alpha")
    assert upload(client, alpha, perturbed(mc30, 1.0, 1), target="mc30").status_code == 201
    forms = [
        ("phases/trial", {"action": "save", "runs": "3"}, "trial: runs 2 → 3", "phase-trial"),
        ("registration", {"state": "approval", "max_teams": "0"}, "registration approval, no cap",
         "registration"),
        ("texts", {"description": "Hello", "terms": ""}, "description and terms saved", "texts"),
        ("announcements", {"action": "post", "title": "News", "body": "b"}, "announcement posted",
         "announcements"),
        ("phases/trial/runs", {"action": "withdraw", "system": "alpha run 1", "reason": "asked"},
         "alpha run 1: withdrawn", "phase-trial"),
        ("teams", {"action": "rename", "team": "alpha", "new_name": "Alpha"}, "alpha is now Alpha",
         "teams"),
    ]  # fmt: skip
    for path, data, outcome, section in forms:
        r = _post(server, path, csrf=csrf, **data)
        assert r.status_code == 303, (path, r.text)
        assert r.headers["location"] == f"{CONSOLE}#{section}"
        page = client.get(r.headers["location"])
        assert page.status_code == 200 and _status(page.text) == outcome, path
        again = client.get(r.headers["location"])  # a reload: no second send, no old news
        assert again.status_code == 200 and _status(again.text) is None, path
        shown = client.get(f"{CONSOLE}/{path}")  # was 405 Method Not Allowed
        assert shown.status_code == 200 and 'id="phases"' in shown.text, path
    # a result page (a new token, a re-scoring) is shown at the form's own address, once
    r = _post(server, "teams", csrf=csrf, action="reset", team="Alpha", confirm="yes")
    assert r.status_code == 303 and r.headers["location"] == f"{CONSOLE}/teams"
    page = client.get(f"{CONSOLE}/teams").text
    token = re.search(r'<code class="token">([^<]+)</code>', page).group(1)
    assert token.startswith("st_") and token != alpha
    assert token not in client.get(f"{CONSOLE}/teams").text  # shown that once
    r = _post(server, "rescore", csrf=csrf, action="dry")
    assert r.status_code == 303 and r.headers["location"] == f"{CONSOLE}/rescore"
    assert "Would re-score (nothing changed yet): 1 submission(s)" in client.get(
        f"{CONSOLE}/rescore"
    ).text.replace("\n", " ")


@pytest.mark.parametrize(
    ("path", "data", "done"),
    [
        ("phases/trial", {"action": "close"}, "trial: deadline"),
        ("teams", {"action": "revoke", "team": "alpha"}, "alpha: revoked"),
        ("teams", {"action": "reset", "team": "alpha"}, "shown this once"),
    ],
)
def test_hard_to_undo_changes_want_the_confirm_box(srv, path, data, done) -> None:
    server, clock = srv
    register(server.client, "alpha")
    csrf = _signed_in(server, clock)
    page = server.client.get(CONSOLE).text
    label = {"close": "Close now", "revoke": "Revoke", "reset": "Reset token"}[data["action"]]
    form = next(f for f in page.split("<form")[1:] if f">{label}</button>" in f)
    assert 'name="confirm" value="yes" required' in form  # the browser asks for the tick
    r = server.client.post(f"{CONSOLE}/{path}", data={"csrf": csrf, **data})
    assert r.status_code == 422 and "tick the confirm box" in r.text
    assert done not in html.unescape(server.client.get(CONSOLE).text)  # nothing changed
    r = server.client.post(f"{CONSOLE}/{path}", data={"csrf": csrf, "confirm": "yes", **data})
    assert r.status_code == 200 and done in html.unescape(r.text)


def test_publish_wants_the_confirm_box(srv) -> None:
    server, clock = srv
    csrf = _signed_in(server, clock)
    clock.now = TEST_END + timedelta(hours=1)
    r = server.client.post(f"{CONSOLE}/phases/test", data={"csrf": csrf, "action": "publish"})
    assert r.status_code == 422 and "tick the confirm box" in r.text
    data = {"csrf": csrf, "action": "publish", "confirm": "yes"}
    r = server.client.post(f"{CONSOLE}/phases/test", data=data)
    assert r.status_code == 200 and "test: published" in r.text


def test_a_run_to_disqualify_is_picked_from_the_phase_scored_runs(srv, mc30, rg65) -> None:
    server, clock = srv
    client = server.client
    for team, seed in (("alpha", 1), ("beta", 2)):
        token = register(client, team)
        for target, pairs in (("mc30", mc30), ("rg65", rg65)):
            assert (
                upload(client, token, perturbed(pairs, 1.0, seed), target=target).status_code == 201
            )
    register(client, "gamma")  # no run: not offered
    csrf = _signed_in(server, clock)
    page = client.get(CONSOLE).text
    form = page.split('action="/organiser/campaigns/lex25/phases/trial/runs"')[1].split("</form>")[
        0
    ]
    runs = form.split('name="system"')[1].split("</select>")[0]
    assert re.findall(r"<option>([^<]+)</option>", runs) == ["alpha run 1", "beta run 1"]
    assert 'name="team"' not in form  # no typed name
    data = {"csrf": csrf, "action": "disqualify", "system": "beta run 1", "reason": "late"}
    r = client.post(f"{CONSOLE}/phases/trial/runs", data=data)
    assert r.status_code == 200 and "beta run 1: disqualified" in r.text
    board = client.get("/api/campaigns/lex25/phases/trial/leaderboard").json()
    assert [row[1] for row in board["rows"]] == ["alpha run 1"]


def test_the_ticked_pending_teams_are_approved_at_once(srv) -> None:
    from simeval.serve.service.editing import set_registration

    server, clock = srv
    set_registration(server.db, "lex25", "approval", None, clock.now)
    for team in ("alpha", "beta", "gamma"):
        register(server.client, team)
    csrf = _signed_in(server, clock)
    page = server.client.get(CONSOLE).text
    assert page.count('form="approve-all"') == 3 and "Approve the ticked teams" in page
    data = {"csrf": csrf, "approve:alpha": "yes", "approve:gamma": "yes"}
    r = server.client.post(f"{CONSOLE}/teams/approve", data=data)
    assert r.status_code == 200 and "approved: alpha, gamma" in r.text
    from simeval.serve.service.console import teams

    statuses = {t.name: t.status for t in teams(server.db, 1)}
    assert statuses == {"alpha": "approved", "beta": "pending", "gamma": "approved"}


def test_times_are_datetime_local_fields_with_the_refusal_beside_them(srv) -> None:
    server, clock = srv
    csrf = _signed_in(server, clock)
    page = server.client.get(CONSOLE).text
    form = page.split('action="/organiser/campaigns/lex25/phases/trial"')[1].split("</form>")[0]
    field = re.search(r'<input type="datetime-local"[^>]*name="deadline"[^>]*>', form).group(0)
    assert 'value="2025-02-01T00:00:00"' in field  # the trial's deadline, UTC
    # a browser sends datetime-local without a zone: read as UTC, as the label says
    data = {"csrf": csrf, "action": "save", "deadline": "2025-02-03T12:30"}
    r = server.client.post(f"{CONSOLE}/phases/trial", data=data)
    assert "deadline 2025-02-01T00:00:00Z → 2025-02-03T12:30:00Z" in html.unescape(r.text)
    data["deadline"] = "2024-12-01T00:00"  # before the trial opens
    r = server.client.post(f"{CONSOLE}/phases/trial", data=data, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"{CONSOLE}#phase-trial"
    page = server.client.get(r.headers["location"]).text
    form = page.split('action="/organiser/campaigns/lex25/phases/trial"')[1].split("</form>")[0]
    after = form.split('name="deadline"', 1)[1]
    beside = re.match(r'[^>]*aria-invalid="true"[^>]*></label> <span class="error" id="deadline-'
                      r'error" role="alert">([^<]+)</span>', after)  # fmt: skip
    assert beside and "deadline" in beside.group(1), after[:400]


def test_the_console_page_has_sections_and_a_table_of_contents(srv) -> None:
    server, clock = srv
    _signed_in(server, clock)
    page = server.client.get(CONSOLE).text
    sections = re.findall(r'<h2 id="([\w-]+)">', page)
    assert {"phases", "add-phase", "teams", "registration", "audit"} <= set(sections)
    toc = page.split('<nav class="toc"', 1)[1].split("</nav>", 1)[0]
    assert re.findall(r'href="#([\w-]+)"', toc) == sections
    assert page.index('<nav class="toc"') < page.index('<h2 id="phases">')


def test_a_team_sees_upload_forms_only_for_open_phases(tmp_path: Path, serve_db) -> None:
    later = OPENS + timedelta(days=60)
    campaign = campaign_toml(
        "lex25",
        phase_toml("trial", ["mc30"]),  # closed by the clock below
        phase_toml("dev", ["rg65"], OPENS, later),  # open
        phase_toml("test", ["yp130"], later, later + timedelta(days=5)),  # not open yet
    )
    clock = Clock(TRIAL_END + timedelta(days=1))
    server = make_server(serve_db, tmp_path / "srv", clock, campaign)
    token = register(server.client, "alpha")
    csrf = page_csrf(server.client)
    r = server.client.post("/login", data={"csrf": csrf, "token": token})
    assert r.status_code == 200
    page = server.client.get("/campaigns/lex25").text
    forms = re.findall(r'action="/campaigns/lex25/phases/(\w+)/upload"', page)
    assert forms == ["dev"]
    assert "Closed: no more uploads." in page and "Uploads open 2025-03-02 00:00 UTC." in page
    server.db.dispose()


class _Board(HTMLParser):
    """The board table's cells: (text, class) per row of its body, and its header texts."""

    def __init__(self) -> None:
        super().__init__()
        self.head: list[str] = []
        self.rows: list[list[tuple[str, str]]] = []
        self._in, self._cell, self._body = False, None, False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table" and "board" in (a.get("class") or "").split():
            self._in = True
        elif self._in and tag == "tbody":
            self._body = True
        elif self._in and self._body and tag == "tr":
            self.rows.append([])
        elif self._in and tag in ("td", "th"):
            self._cell = ["", a.get("class") or "", tag]

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell[0] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._in = self._body = False
        elif self._cell is not None and tag in ("td", "th"):
            text, classes, _ = self._cell
            if self._body:
                self.rows[-1].append((text.strip(), classes))
            else:
                self.head.append(text.strip())
            self._cell = None


def _board(page: str) -> _Board:
    parsed = _Board()
    parsed.feed(page)
    return parsed


def _two_targets(tmp_path: Path, serve_db: str) -> Any:
    campaign = campaign_toml("lex25", phase_toml("trial", ["mc30", "rg65"], runs=3))
    return make_server(serve_db, tmp_path / "srv", Clock(OPENS + timedelta(days=1)), campaign)


def _reversed(pairs: list[tuple[str, str, float]]) -> bytes:
    """A file of the gold negated: Spearman's rho −1 on it."""
    return b"word1,word2,sim\n" + "".join(f"{a},{b},{-g}\n" for a, b, g in pairs).encode()


def test_the_board_shows_every_target_from_the_start(tmp_path: Path, serve_db, mc30) -> None:
    server = _two_targets(tmp_path, serve_db)
    token = register(server.client, "alpha")
    assert upload(server.client, token, perturbed(mc30, 1.0, 1), target="mc30").status_code == 201
    board = _board(server.client.get("/campaigns/lex25/phases/trial").text)
    assert board.head[:5] == ["rank", "system", "mc30", "rg65", "sum"]  # rg65: nobody yet
    assert board.rows[0][3][0] == "—"  # alpha has no rg65 result
    server.db.dispose()


def test_the_sum_bold_is_the_first_ranked_run_and_the_board_says_why(
    tmp_path: Path, serve_db, mc30, rg65
) -> None:
    """alpha: mc30 near the gold, rg65 reversed (rho −1): complete, a small sum, rank 1.
    beta: mc30 only, near the gold: incomplete, ranked after alpha with a larger sum."""
    from scipy.stats import spearmanr

    server = _two_targets(tmp_path, serve_db)
    client = server.client
    alpha, beta = register(client, "alpha"), register(client, "beta")
    near = perturbed(mc30, 0.3, 7)
    assert upload(client, alpha, near, target="mc30").status_code == 201
    assert upload(client, alpha, _reversed(rg65), target="rg65").status_code == 201
    assert upload(client, beta, near, target="mc30").status_code == 201
    rho = spearmanr([g for *_, g in mc30], [float(x.split(",")[2]) for x in
                    near.decode().splitlines()[1:]]).statistic  # fmt: skip
    board = _board(client.get("/campaigns/lex25/phases/trial").text)
    rows = {r[1][0]: r for r in board.rows}
    assert float(rows["alpha run 1"][4][0]) == pytest.approx(rho - 1.0, abs=1e-4)
    assert float(rows["beta run 1"][4][0]) == pytest.approx(rho, abs=1e-4)  # larger
    assert rows["alpha run 1"][0][0] == "1" and "best" in rows["alpha run 1"][4][1]
    assert "best" not in rows["beta run 1"][4][1]
    page = html.unescape(client.get("/campaigns/lex25/phases/trial").text)
    assert "in the sum column, the first-ranked run's" in page  # the bold explained
    server.db.dispose()


def test_a_baseline_first_on_the_sum_is_not_bold_there(tmp_path: Path, serve_db, mc30, rg65):
    """A baseline of the gold itself leads every column, but ranks among no one: the sum's
    bold goes to the first-ranked team's run."""
    from simeval.serve.service.editing import set_baseline

    server = _two_targets(tmp_path, serve_db)
    client = server.client
    base, alpha = register(client, "base"), register(client, "alpha")
    for target, pairs in (("mc30", mc30), ("rg65", rg65)):
        assert upload(client, base, perturbed(pairs, 0.0, 1), target=target).status_code == 201
        assert upload(client, alpha, perturbed(pairs, 1.0, 2), target=target).status_code == 201
    set_baseline(server.db, "lex25", "base", True, OPENS + timedelta(days=1))
    board = _board(client.get("/campaigns/lex25/phases/trial").text)
    rows = {r[1][0]: r for r in board.rows}
    assert float(rows["base run 1 (baseline)"][4][0]) > float(rows["alpha run 1"][4][0])
    assert rows["alpha run 1"][0][0] == "1" and "best" in rows["alpha run 1"][4][1]
    assert "best" not in rows["base run 1 (baseline)"][4][1]
    server.db.dispose()


def test_the_tiers_note_says_why_apart_intervals_may_share_a_tier() -> None:
    from simeval.serve.views.html import macro

    shown = html.unescape(macro("board.html", "tiers", [], "the method"))
    assert "two runs whose rank intervals do not overlap may share a tier" in shown
    assert "Holm" in shown
