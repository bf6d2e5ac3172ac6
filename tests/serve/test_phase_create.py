"""Creating a phase from the organiser's console (issue 32): checked as a campaign file's
phase is (times, limits, policy, targets that load, nothing both visible and hidden), refused
with its reason and nothing written, audited as ``phase-add``; the new phase takes uploads at
once with its limits."""

from __future__ import annotations

import html
from datetime import timedelta

import pytest

from serve_kit import OPENS, page_csrf, pair_file, register, upload

pytest.importorskip("fastapi")
NEW = "/organiser/campaigns/lex25/new-phase"


def _signed_in(server, clock) -> str:
    """The console's CSRF value for a signed-in organiser."""
    from simeval.serve.service.organisers import add_organiser

    token = add_organiser(server.db, "Ada", clock.now)
    csrf = page_csrf(server.client, "/organiser")
    r = server.client.post("/organiser/login", data={"csrf": csrf, "token": token},
                           follow_redirects=False)  # fmt: skip
    assert r.status_code == 303, r.text
    return page_csrf(server.client, "/organiser")


def _phases(server) -> list[str]:
    from sqlalchemy import select

    from simeval.serve.db.models import Phase

    with server.db.reading() as s:
        return sorted(s.scalars(select(Phase.name)))


def _form(csrf: str, **fields: str) -> dict[str, str]:
    base = {"csrf": csrf, "name": "extra", "opens": "2025-01-01T12:00:00Z",
            "deadline": "2025-01-20T00:00:00+01:00", "runs": "3", "per_day": "1",
            "max_bytes": "50000", "combine": "mean", "target:mc30": "yes"}  # fmt: skip
    return {**base, **fields}


def test_an_organiser_adds_a_phase_that_takes_uploads_with_its_limits(srv, mc30) -> None:
    from simeval.serve.service.organisers import audit_log

    server, clock = srv
    csrf = _signed_in(server, clock)
    page = server.client.get("/organiser/campaigns/lex25").text
    assert "Add a phase" in page and 'name="target:simlex999"' in page
    assert 'name="target:words"' not in page  # a group of suites is named by its parts
    r = server.client.post(NEW, data=_form(csrf, targets="rg65"))
    assert r.status_code == 200, r.text
    assert "phase extra added" in r.text
    assert _phases(server) == ["extra", "test", "trial"]
    entry = audit_log(server.db)[0]
    assert (entry.actor, entry.action) == ("organiser:Ada", "phase-add")
    assert entry.detail == {
        "phase": "extra", "targets": "mc30, rg65", "opens": "2025-01-01T12:00:00Z",
        "deadline": "2025-01-19T23:00:00Z", "runs": 3, "per_day": 1, "max_bytes": 50000,
        "hidden": False, "combine": "mean",
    }  # fmt: skip
    token = register(server.client, "alpha")
    data = pair_file(mc30, 1)[0]
    assert upload(server.client, token, data, phase="extra", target="mc30").status_code == 201
    r = upload(server.client, token, data, phase="extra", target="mc30")
    assert r.status_code == 409 and "1 run(s) a day on mc30 in extra" in r.json()["error"]
    board = server.client.get("/api/campaigns/lex25/phases/extra/leaderboard").json()
    assert board["columns"] == ["rank", "system", "mc30", "rg65", "mean"]  # rg65: none yet
    clock.now = OPENS + timedelta(days=19)  # after 2025-01-19T23:00Z
    r = upload(server.client, token, data, phase="extra", target="mc30")
    assert r.status_code == 403 and "closed at 2025-01-19 23:00 UTC" in r.json()["error"]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"name": "TRIAL"}, "lex25 has a phase named trial already"),
        ({"deadline": "2025-01-01T06:00:00Z"}, "the deadline must come after the opening"),
        ({"opens": "2025-13-01T12:00"}, "not a time"),  # a form's zoneless time is UTC
        (
            {"target:mc30": "", "targets": "nosuch"},
            "target nosuch: unknown benchmark or suite 'nosuch'",
        ),
        ({"target:mc30": ""}, "targets is a list of benchmark names"),
        ({"runs": "0"}, "runs: expected a whole number"),
        ({"combine": "median"}, "combine = 'median': use 'sum', 'mean', 'mean-rank'"),
        # mc30 is scored in the visible phase trial: a hidden phase may not score it
        (
            {"hidden": "yes"},
            "mc30 in both the visible phase trial of campaign lex25 and the hidden phase extra",
        ),
        # yp130 is the hidden test's: a visible phase may not show its scores
        ({"target:mc30": "", "targets": "yp130"}, "yp130 in both the visible phase extra"),
    ],
)
def test_a_wrong_phase_is_refused_with_its_reason_and_nothing_added(srv, fields, message) -> None:
    from simeval.serve.service.organisers import audit_log

    server, clock = srv
    csrf = _signed_in(server, clock)
    r = server.client.post(NEW, data=_form(csrf, **fields))
    assert r.status_code == 200  # back on the page, the reason in the form (or beside its field)
    form = r.text.split('action="/organiser/campaigns/lex25/new-phase"', 1)[1].split("</form>")[0]
    assert message in html.unescape(form), r.text
    assert _phases(server) == ["test", "trial"]
    assert [e for e in audit_log(server.db) if e.action == "phase-add"] == []


def test_a_team_cannot_add_a_phase(srv) -> None:
    server, _ = srv
    register(server.client, "alpha")
    csrf = page_csrf(server.client, "/organiser")
    assert server.client.post(NEW, data=_form(csrf)).status_code == 401
    assert _phases(server) == ["test", "trial"]
