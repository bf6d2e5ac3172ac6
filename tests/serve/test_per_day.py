"""A phase's per-day limit (issue 32): at most ``per_day`` scored runs per team and target in
any 24 hours, refused with 409 and the moment the next is possible, also under concurrent
uploads from two server processes; settable in the campaign file and from the console."""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path

import pytest

from serve_kit import (
    OPENS,
    Clock,
    campaign_toml,
    make_server,
    pair_file,
    phase_toml,
    register,
    upload,
)

pytest.importorskip("fastapi")
START = OPENS + timedelta(days=1)
CAMPAIGN = campaign_toml("daily", phase_toml("trial", ["mc30", "rg65"], runs=10) + "per_day = 2\n")


@pytest.fixture
def daily(tmp_path: Path, serve_db: str):
    clock = Clock(START)
    server = make_server(serve_db, tmp_path / "srv", clock, CAMPAIGN)
    yield server, clock
    server.db.dispose()


def test_the_third_run_within_24_hours_waits_for_the_first_to_leave_the_window(daily, mc30, rg65):
    server, clock = daily
    token = register(server.client, "alpha", "daily")
    first = START
    assert upload(server.client, token, pair_file(mc30, 1)[0], target="mc30").status_code == 201
    clock.now = first + timedelta(hours=5)
    assert upload(server.client, token, pair_file(mc30, 2)[0], target="mc30").status_code == 201
    clock.now = first + timedelta(hours=23, minutes=59, seconds=59)
    r = upload(server.client, token, pair_file(mc30, 3)[0], target="mc30")
    # the window holds the runs of 00:00 and 05:00 of 2025-01-02: the next at 00:00 the day after
    assert r.status_code == 409
    assert r.json()["error"] == (
        "2 run(s) a day on mc30 in trial (any 24 hours): the next is possible at "
        "2025-01-03 00:00:00 UTC"
    )
    assert r.headers["retry-after"] == "1"
    # another target has its own count
    assert upload(server.client, token, pair_file(rg65, 1)[0], target="rg65").status_code == 201
    clock.now = first + timedelta(hours=24)  # the first run has left the window
    r = upload(server.client, token, pair_file(mc30, 3)[0], target="mc30")
    assert r.status_code == 201 and r.json()["run"] == 3
    r = upload(server.client, token, pair_file(mc30, 4)[0], target="mc30")
    assert r.status_code == 409 and "2025-01-03 05:00:00 UTC" in r.json()["error"]
    page = server.client.get("/campaigns/daily/phases/trial").text
    assert "at most 2 a day (any 24 hours)" in page


def test_the_limit_holds_when_two_server_processes_take_uploads_at_once(daily, mc30) -> None:
    """Two services over one database (as two server processes): neither's lock orders the
    other's uploads; only the database can hold the limit."""
    from simeval.serve.db.storage import Storage
    from simeval.serve.service.submit import Refused, Service

    server, clock = daily
    register(server.client, "alpha", "daily")
    storage = Storage(server.files)
    services = [Service(server.db, storage, clock) for _ in range(2)]
    with server.db.reading() as s:
        from sqlalchemy import select

        from simeval.serve.db.models import Team

        team = s.scalar(select(Team).where(Team.name == "alpha"))
    outcomes: list[str] = []
    lock = threading.Lock()
    go = threading.Barrier(6)

    def send(i: int) -> None:
        service = services[i % 2]
        data = pair_file(mc30, 100 + i)[0]
        try:
            ticket = service.admit(team, "trial", "mc30")
            up = storage.new_upload(ticket.max_bytes)
            up.write(data)
            up.finish()
            go.wait()
            service.record(ticket, up, "run.csv")
            result = "scored"
        except Refused as exc:
            result = f"{exc.status}"
        with lock:
            outcomes.append(result)

    threads = [threading.Thread(target=send, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["409"] * 4 + ["scored"] * 2
    from simeval.serve.db.models import SCORED, Submission

    with server.db.reading() as s:
        runs = sorted(s.scalars(select(Submission.run).where(Submission.status == SCORED)).all())
    assert runs == [1, 2]
    assert len(list((server.files / "submissions").iterdir())) == 2  # refused ones not kept


def test_the_organiser_sets_and_lifts_the_limit_audited(daily, mc30) -> None:
    from simeval.serve.service.editing import PhaseEdit, edit_phase
    from simeval.serve.service.organisers import audit_log

    server, clock = daily
    token = register(server.client, "alpha", "daily")
    for seed in (1, 2):
        assert (
            upload(server.client, token, pair_file(mc30, seed)[0], target="mc30").status_code == 201
        )
    assert upload(server.client, token, pair_file(mc30, 3)[0], target="mc30").status_code == 409
    changed = edit_phase(
        server.db, "daily", "trial", PhaseEdit(per_day=0), clock.now, "organiser:Ada"
    )
    assert changed == {"per_day": (2, None)}
    assert audit_log(server.db)[0].detail["changes"] == {"per_day": [2, None]}
    assert upload(server.client, token, pair_file(mc30, 3)[0], target="mc30").status_code == 201
    edit_phase(server.db, "daily", "trial", PhaseEdit(per_day=3), clock.now, "organiser:Ada")
    assert upload(server.client, token, pair_file(mc30, 4)[0], target="mc30").status_code == 409
    from simeval.errors import InputError

    with pytest.raises(InputError, match="per_day: expected a whole number"):
        edit_phase(server.db, "daily", "trial", PhaseEdit(per_day=-1), clock.now, "organiser:Ada")


def test_a_per_day_limit_in_the_campaign_file_must_be_a_whole_number(tmp_path) -> None:
    from simeval.errors import InputError
    from simeval.serve.service.campaigns import read_campaign_file

    path = tmp_path / "c.toml"
    path.write_text(campaign_toml("d", phase_toml("trial", ["mc30"]) + 'per_day = "3"\n'))
    with pytest.raises(InputError, match="phase 1 per_day: expected a whole number"):
        read_campaign_file(path)
    path.write_text(campaign_toml("d", phase_toml("trial", ["mc30"]) + "per_day = 3\n"))
    assert read_campaign_file(path)[3][0].per_day == 3
