"""The shared-task server (issue 18, first slice): the API and pages through FastAPI's
TestClient (no network), the organiser's commands, and the guarantees: errors with file and
line as `simeval score` prints them, run limits (also under concurrency), deadlines on the
server clock, size caps, team isolation, hidden test scores, hashed tokens, atomic uploads.
Expected scores come from scipy on the same files, or from offline `simeval.api.score`."""

from __future__ import annotations

import csv
import io
import logging
import re
import threading
from datetime import timedelta
from pathlib import Path

import pytest
import scipy.stats
from scipy.stats import pearsonr, spearmanr

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient

from serve_kit import (
    BAD_LINE,
    CAMPAIGN,
    OPENS,
    TEST_END,
    TEST_OPENS,
    TRIAL_END,
    Clock,
    bad_file,
    campaign_toml,
    make_server,
    pair_file,
    phase_toml,
    quarantined,
    register,
    stop,
    sts_lines,
    sts_run,
    text_score,
    upload,
    yp130_pairs,
)
from simeval.serve.app import create_app
from simeval.serve.db import Database, default_url
from simeval.serve.db.storage import Storage
from simeval.serve.service.campaigns import Targets, create_campaign
from simeval.serve.service.editing import publish
from simeval.serve.service.export import export


@pytest.fixture
def clock() -> Clock:
    return Clock(OPENS + timedelta(days=1))


@pytest.fixture
def server(tmp_path: Path, clock: Clock, serve_db: str) -> dict:
    """The server over SQLite, and again over PostgreSQL (see conftest.serve_db)."""
    s = make_server(serve_db, tmp_path / "server", clock)
    return {"folder": s.folder, "db": s.db, "client": s.client, "app": s.app, "url": serve_db}


def test_register_bad_file_then_good_file_then_leaderboard(server, mc30, tmp_path, monkeypatch):
    from simeval.api import score
    from simeval.errors import InputError

    client = server["client"]
    token = register(client, "alpha")
    bad = bad_file(mc30)
    r = upload(client, token, bad, target="mc30", filename="bad.csv")
    assert r.status_code == 422
    monkeypatch.chdir(tmp_path)
    Path("bad.csv").write_bytes(bad)
    with pytest.raises(InputError) as offline:
        score("mc30", Path("bad.csv"))
    assert r.json()["error"] == str(offline.value)  # as `simeval score` prints it
    assert r.json()["line"] == BAD_LINE and r.json()["file"] == "bad.csv"

    good, scores = pair_file(mc30, 1)
    r = upload(client, token, good, target="mc30")
    assert r.status_code == 201, r.text
    assert r.json()["run"] == 1  # the rejected file took no run
    expected = spearmanr([g for *_, g in mc30], scores).statistic
    assert r.json()["results"][0]["score"] == pytest.approx(expected, abs=1e-12)

    board = client.get("/api/campaigns/lex25/phases/trial/leaderboard").json()
    # every target of the phase is a column from the start (issue 46), absent until sent
    assert board["columns"] == ["rank", "system", "mc30", "rg65", "sts12-msrvid", "sum"]
    assert board["rows"] == [
        [1, "alpha run 1", pytest.approx(expected), None, None, pytest.approx(expected)]
    ]
    page = client.get("/campaigns/lex25/phases/trial")
    assert "alpha run 1" in page.text and f"{expected:.4f}" in page.text
    assert "6 d 0 h 0 min" not in page.text and "30 d 0 h 0 min" in page.text  # to deadline


def test_cli_submit_prints_the_error_as_simeval_score_does(server, mc30, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from serve_kit import through
    from simeval.cli import app

    client = server["client"]
    token = register(client, "alpha")
    through(monkeypatch, client)
    monkeypatch.chdir(tmp_path)
    Path("sub").mkdir()
    Path("sub/bad.csv").write_bytes(bad_file(mc30))
    runner = CliRunner()
    offline = runner.invoke(app, ["score", "file", "mc30", "sub/bad.csv"])

    def submit(path: str):  # simeval submit PATH to the trial phase's mc30
        args = ["submit", path, "--server", "http://server", "--token", token]
        return runner.invoke(app, [*args, "-p", "trial", "-t", "mc30"])

    online = submit("sub/bad.csv")
    assert offline.exit_code == online.exit_code == 2
    assert "sub/bad.csv:4:" in offline.stderr
    assert online.stderr == offline.stderr
    Path("sub/good.csv").write_bytes(pair_file(mc30, 2)[0])
    ok = submit("sub/good.csv")
    assert ok.exit_code == 0, ok.stderr
    assert "run 1 of 2 on mc30" in ok.stdout


def test_run_limit_counts_scored_runs_only(server, mc30):
    client = server["client"]
    token = register(client, "alpha")
    assert upload(client, token, pair_file(mc30, 1)[0], target="mc30").status_code == 201
    assert upload(client, token, bad_file(mc30), target="mc30").status_code == 422
    assert upload(client, token, pair_file(mc30, 2)[0], target="mc30").status_code == 201
    r = upload(client, token, pair_file(mc30, 3)[0], target="mc30")
    assert r.status_code == 409 and "2 of 2" in r.json()["error"]
    mine = client.get("/api/submissions", headers={"authorization": f"Bearer {token}"}).json()
    assert sorted((m["status"], m["run"]) for m in mine) == [
        ("rejected", None),
        ("scored", 1),
        ("scored", 2),
    ]


def test_deadline_on_the_server_clock(server, clock, data_dir):
    client = server["client"]
    token = register(client, "alpha")
    data = pair_file(yp130_pairs(data_dir), 1)[0]
    clock.now = TEST_OPENS - timedelta(seconds=1)
    assert upload(client, token, data, phase="test").status_code == 403  # not open yet
    clock.now = TEST_END - timedelta(seconds=1)
    assert upload(client, token, data, phase="test").status_code == 201
    clock.now = TEST_END + timedelta(seconds=1)
    r = upload(client, token, data, phase="test")
    assert r.status_code == 403 and "closed" in r.json()["error"]


def test_a_team_sees_only_its_own_submissions(server, mc30):
    client = server["client"]
    a, b = register(client, "alpha"), register(client, "beta")
    sub_a = upload(client, a, pair_file(mc30, 1)[0], target="mc30").json()["id"]
    as_b = {"authorization": f"Bearer {b}"}
    assert client.get(f"/api/submissions/{sub_a}", headers=as_b).status_code == 404
    assert client.get("/api/submissions", headers=as_b).json() == []
    as_a = {"authorization": f"Bearer {a}"}
    assert client.get(f"/api/submissions/{sub_a}", headers=as_a).json()["run"] == 1
    assert client.get("/api/submissions").status_code == 401
    forged = {"authorization": f"Bearer {a[:-2]}xx"}
    assert client.get("/api/submissions", headers=forged).status_code == 401


def test_size_cap_stops_reading_and_records_nothing(server, mc30):
    client = server["client"]
    token = register(client, "alpha")

    def body():  # no Content-Length: the cap is found while reading the stream
        for _ in range(1000):  # 1000 chunks of 1 kB: 10 times the trial phase's cap
            yield b"x" * 1000

    r = client.post(
        "/api/phases/trial/submissions",
        params={"target": "mc30"},
        content=body(),
        headers={"authorization": f"Bearer {token}"},
    )
    assert r.status_code == 413
    files = server["folder"] / "files"
    assert list((files / "submissions").iterdir()) == [] and list((files / "tmp").iterdir()) == []
    assert client.get("/api/submissions", headers={"authorization": f"Bearer {token}"}).json() == []


def test_client_file_names_never_reach_the_disk(server, mc30):
    client = server["client"]
    token = register(client, "alpha")
    evil = "../../../escape.csv"
    r = upload(client, token, pair_file(mc30, 1)[0], target="mc30", filename=evil)
    assert r.status_code == 201
    assert r.json()["file"] == "escape.csv"  # shown by its last part only
    folder = server["folder"]
    assert not (folder.parent / "escape.csv").exists()
    stored = [p.relative_to(folder) for p in folder.rglob("*") if p.is_file()]
    assert not any("escape" in str(p) for p in stored)
    assert (folder / "files" / "submissions" / r.json()["id"] / "upload").is_file()
    for name in ("..%2F..%2Fserve.db", "../mc30", "rg65"):  # rg65: a target, not of test
        assert client.get(f"/campaigns/lex25/phases/test/inputs/{name}").status_code == 404


def test_inputs_hold_no_gold(server, mc30):
    r = server["client"].get("/campaigns/lex25/phases/trial/inputs/mc30")
    assert r.status_code == 200
    rows = list(csv.reader(io.StringIO(r.text)))
    assert rows[0] == ["word1", "word2", "sim"]
    handed = [tuple(x[:2]) for x in rows[1:]]
    assert sorted(handed) == sorted((a, b) for a, b, _ in mc30)  # every pair, once
    # MC-30's file is sorted by score; what is handed out is not (its order: a drawn secret)
    assert handed != [(a, b) for a, b, _ in mc30]
    place = {p: k for k, p in enumerate(handed)}
    rho, p_value = scipy.stats.spearmanr([place[(a, b)] for a, b, _ in mc30], [g for *_, g in mc30])
    assert p_value > 0.001, rho
    assert all(x[2] == "" for x in rows[1:])  # no score, so no gold
    sts = server["client"].get("/campaigns/lex25/phases/trial/inputs/sts12-msrvid").text
    assert len(sts.splitlines()) == 750 and all(line.count("\t") == 1 for line in sts.splitlines())


def test_test_phase_scores_hidden_until_published_after_deadline(server, clock, data_dir):
    client, db = server["client"], server["db"]
    token = register(client, "alpha")
    clock.now = TEST_OPENS + timedelta(hours=1)
    r = upload(client, token, pair_file(yp130_pairs(data_dir), 1)[0], phase="test")
    assert r.status_code == 201 and r.json()["results"] is None and r.json()["hidden"]
    assert "spearman" not in r.text and "metrics" not in r.text
    assert client.get("/api/campaigns/lex25/phases/test/leaderboard").json()["hidden"]
    mine = client.get("/api/submissions", headers={"authorization": f"Bearer {token}"}).json()
    assert mine[0]["results"] is None
    from simeval.errors import InputError

    with pytest.raises(InputError, match="publish after"):
        publish(db, "lex25", "test", TEST_END - timedelta(minutes=1))
    publish(db, "lex25", "test", TEST_END + timedelta(minutes=1))
    board = client.get("/api/campaigns/lex25/phases/test/leaderboard").json()
    assert not board["hidden"] and board["rows"][0][1] == "alpha run 1"


def test_tokens_are_stored_hashed_and_never_logged(server, mc30, caplog):
    from sqlalchemy import text

    caplog.set_level(logging.DEBUG)
    client = server["client"]
    token = register(client, "alpha")
    upload(client, token, pair_file(mc30, 1)[0], target="mc30")
    secret = token.split("_", 2)[2]
    if server["url"].startswith("sqlite"):  # the file itself, journal included
        db_file = Path(server["url"].removeprefix("sqlite:///"))
        raw = b"".join(p.read_bytes() for p in db_file.parent.glob(db_file.name + "*"))
        assert secret.encode() not in raw and token.encode() not in raw
    with server["db"].engine.connect() as con:
        every_value = [
            str(v)
            for table in ("team", "submission", "campaign", "phase")
            for row in con.execute(text(f"select * from {table}"))
            for v in row
        ]
        (stored,) = con.execute(text("select token_hash from team")).one()
    assert not any(secret in v or token in v for v in every_value)
    assert len(stored) == 64 and stored != secret
    assert secret not in caplog.text and "alpha" in caplog.text


def test_concurrent_uploads_never_exceed_the_limit_and_lose_nothing(server, mc30):
    client = server["client"]
    tokens = [register(client, f"team{i}") for i in range(3)]
    answers: list[tuple[int, int]] = []
    lock = threading.Lock()

    def send(team: int, seed: int) -> None:
        r = upload(client, tokens[team], pair_file(mc30, seed)[0], target="mc30")
        with lock:
            answers.append((team, r.status_code))

    threads = [
        threading.Thread(target=send, args=(t, 10 * t + k)) for t in range(3) for k in range(5)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(code for _, code in answers) == [201] * 6 + [409] * 9
    for i, token in enumerate(tokens):
        mine = client.get("/api/submissions", headers={"authorization": f"Bearer {token}"}).json()
        assert sorted(m["run"] for m in mine) == [1, 2]
        assert sum(1 for team, code in answers if team == i and code == 201) == 2
    stored = list((server["folder"] / "files" / "submissions").iterdir())
    assert len(stored) == 6  # every accepted file kept, every refused one gone


def test_leaderboard_and_export_equal_offline_scoring(server, clock, mc30, rg65, tmp_path):
    from simeval.api import score

    client = server["client"]
    files: dict[tuple[str, int, str], bytes] = {}
    for team in ("alpha", "beta"):
        token = register(client, team)
        for run in (1, 2):
            for target, pairs in (("mc30", mc30), ("rg65", rg65)):
                data = pair_file(pairs, hash((team, run, target)) % 1000)[0]
                files[(team, run, target)] = data
                assert upload(client, token, data, target=target).status_code == 201
    board = client.get("/api/campaigns/lex25/phases/trial/leaderboard").json()
    assert board["columns"] == ["rank", "system", "mc30", "rg65", "sts12-msrvid", "sum"]
    for row in board["rows"]:
        team, _, run = row[1].split()
        for column, target in ((2, "mc30"), (3, "rg65")):
            path = tmp_path / f"{team}-{run}-{target}.csv"
            path.write_bytes(files[(team, int(run), target)])
            (offline,) = score(target, path)
            assert row[column] == pytest.approx(offline.score, abs=1e-12)
    clock.now = TRIAL_END + timedelta(days=1)
    out = tmp_path / "export"
    export(server["db"], Storage(server["folder"] / "files"), "lex25", out)
    text = (out / "trial" / "leaderboard.md").read_text()
    assert "alpha run 1" in text or "Dropped" in text
    assert len(list((out / "submissions").iterdir())) == 8
    from simeval.report.collect import load_grid

    grid = load_grid(out / "trial")  # what `simeval leaderboard export/trial` reads
    assert set(grid.systems) == {"alpha run 1", "alpha run 2", "beta run 1", "beta run 2"}
    assert grid.get("beta run 2", "rg65").items()["score"].shape == (65,)


def test_exported_leaderboard_html_is_a_styled_page(server, clock, mc30, tmp_path):
    """The export's leaderboard.html opens on its own (issue 33, small misses): a whole page
    with the report's stylesheet inline, a rule for each class its table uses, nothing fetched
    from the network, and a viewport for a narrow window."""
    client = server["client"]
    token = register(client, "alpha")
    assert upload(client, token, pair_file(mc30, 3)[0], target="mc30").status_code == 201
    clock.now = TRIAL_END + timedelta(days=1)
    out = tmp_path / "export"
    export(server["db"], Storage(server["folder"] / "files"), "lex25", out)
    page = (out / "trial" / "leaderboard.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    style = page[page.index("<style>") + 7 : page.index("</style>")]
    classes = re.findall(r'<table class="([^"]+)"', page)
    assert classes == ["sortable board"]
    for name in classes[0].split():
        assert f".{name}" in style or f"table.{name}" in page, name
    assert "overflow-x: auto" in style and 'name="viewport"' in page
    assert "alpha run 1" in page and "http://" not in page and "https://" not in page


def test_sts_upload_scores_pearson(server, data_dir):
    client = server["client"]
    token = register(client, "alpha")
    gold_file = data_dir / "sts2012" / "test-gold" / "STS.gs.MSRvid.txt"
    if not gold_file.is_file():
        gold_file = next(data_dir.rglob("STS.gs.MSRvid.txt"))
    gs = [float(x) for x in gold_file.read_text().split()]
    published = sts_lines(gold_file.with_name("STS.input.MSRvid.txt").read_text("utf-8"))
    if not gold_file.with_name("STS.input.MSRvid.txt").is_file():  # pragma: no cover
        published = sts_lines(next(data_dir.rglob("STS.input.MSRvid.txt")).read_text("utf-8"))
    handed = client.get("/campaigns/lex25/phases/trial/inputs/sts12-msrvid").text
    assert sorted(sts_lines(handed)) == sorted(published)
    assert sts_lines(handed) != published  # drawn, not the published order
    r = upload(client, token, sts_run(handed), target="sts12-msrvid")
    assert r.status_code == 201, r.text
    expected = pearsonr(gs, [text_score(p) for p in published]).statistic
    assert r.json()["results"][0]["score"] == pytest.approx(expected, abs=1e-9)


def test_web_pages_register_csrf_upload_mine(server, mc30):
    client = server["client"]
    page = client.get("/campaigns/lex25")
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
    refused = client.post("/campaigns/lex25/register", data={"team": "web", "csrf": "forged"})
    assert refused.status_code == 403
    done = client.post("/campaigns/lex25/register", data={"team": "web", "csrf": csrf})
    assert done.status_code == 200 and "st_" in done.text
    page = client.get("/campaigns/lex25")
    assert 'type="file"' in page.text
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)  # bound to the session
    bad = client.post(
        "/campaigns/lex25/phases/trial/upload",
        data={"csrf": csrf, "target": "mc30"},
        files={"file": ("mine.csv", bad_file(mc30), "text/csv")},
    )
    assert bad.status_code == 200 and f"mine.csv:{BAD_LINE}:" in bad.text
    forged = client.post(
        "/campaigns/lex25/phases/trial/upload",
        data={"csrf": "forged", "target": "mc30"},
        files={"file": ("mine.csv", pair_file(mc30, 1)[0], "text/csv")},
    )
    assert forged.status_code == 403
    good = client.post(
        "/campaigns/lex25/phases/trial/upload",
        data={"csrf": csrf, "target": "mc30"},
        files={"file": ("mine.csv", pair_file(mc30, 1)[0], "text/csv")},
    )
    assert good.status_code == 200 and "scored" in good.text
    mine = client.get("/mine").text
    assert mine.count("<tr>") == 3  # header, the rejected file, the scored one
    board = client.get("/campaigns/lex25/phases/trial").text
    assert '<tr class="mine">' in board and "web run 1" in board


def test_rate_limit_on_register(tmp_path, clock):
    from simeval.serve.service.security import RateLimit

    folder = tmp_path / "s"
    folder.mkdir()
    campaign = tmp_path / "c.toml"
    campaign.write_text(CAMPAIGN, encoding="utf-8")
    create_campaign(Database(default_url(folder)), campaign, OPENS, Targets())
    app = create_app(default_url(folder), folder / "files", clock, {"register": RateLimit(2, 1)})
    client = TestClient(app)
    codes = [
        client.post("/api/campaigns/lex25/teams", json={"team": f"t{i}"}).status_code
        for i in range(3)
    ]
    assert codes == [201, 201, 429]


def test_restart_quarantines_unfinished_uploads(server, clock, mc30):
    client = server["client"]
    token = register(client, "alpha")
    kept = upload(client, token, pair_file(mc30, 1)[0], target="mc30").json()["id"]
    files = server["folder"] / "files"
    (files / "tmp" / "deadbeef").mkdir()  # killed while receiving
    (files / "tmp" / "deadbeef" / "upload").write_bytes(b"half")
    (files / "submissions" / "cafebabe").mkdir()  # killed between rename and commit
    stop(server["app"])
    create_app(server["url"], files, clock=clock, rate_limits={})
    assert [p.name for p in (files / "submissions").iterdir()] == [kept]
    assert list((files / "tmp").iterdir()) == []
    # moved aside and listed, not deleted
    ((when, listed),) = quarantined(files).items()
    assert listed == ["tmp/deadbeef", "submissions/cafebabe"]
    assert (files / "quarantine" / when / "tmp" / "deadbeef" / "upload").read_bytes() == b"half"
    assert (files / "quarantine" / when / "submissions" / "cafebabe").is_dir()


def test_unique_run_number_holds_when_two_writers_count_alike(server, mc30, monkeypatch):
    """Two uploads that both counted 1 used run before inserting: the database refuses the
    second run 2, the loser counts again and is refused (limit 2), nothing half-recorded."""
    from simeval.serve.service.submit import Service

    client = server["client"]
    token = register(client, "alpha")
    assert upload(client, token, pair_file(mc30, 1)[0], target="mc30").status_code == 201
    assert upload(client, token, pair_file(mc30, 2)[0], target="mc30").status_code == 201
    real = Service._runs_used
    calls = []

    def stale_then_real(self, s, *args):  # admit, the count before scoring and the first
        calls.append(1)  # insert see one run used
        return 1 if len(calls) <= 3 else real(self, s, *args)

    monkeypatch.setattr(Service, "_runs_used", stale_then_real)
    r = upload(client, token, pair_file(mc30, 3)[0], target="mc30")
    assert r.status_code == 409 and "2 of 2" in r.json()["error"]
    assert len(calls) == 4  # the insert counted again after the refused run 2
    stored = list((server["folder"] / "files" / "submissions").iterdir())
    assert len(stored) == 2


STS12_CAMPAIGN = campaign_toml(
    "sts25", phase_toml("test", ["sts12"], max_bytes=200_000, hidden=False), title="STS 2012 again"
)
STS12_SETS = ["MSRpar", "MSRvid", "SMTeuroparl", "surprise.OnWN", "surprise.SMTnews"]


def _zip(files: dict[str, bytes]) -> bytes:
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buffer.getvalue()


@pytest.fixture
def sts12_server(tmp_path: Path, clock: Clock, serve_db: str):
    s = make_server(serve_db, tmp_path / "sts", clock, campaign=STS12_CAMPAIGN)
    token = register(s.client, "alpha", campaign="sts25")
    return s, token


def test_a_suite_of_one_file_per_member_takes_a_zip_and_ranks_by_all(sts12_server, data_dir):
    """STS 2012 as one target: a zip of the five STS.output files (inside a folder, as teams
    packed them); each set's Pearson and ALL (Pearson over the five sets concatenated, the
    2012 scorer's) equal scipy's; the inputs are a zip of the five STS.input files."""
    import zipfile

    s, token = sts12_server
    folder = data_dir / "sts2012" / "test"
    got = s.client.get("/campaigns/sts25/phases/test/inputs/sts12")
    assert got.status_code == 200
    with zipfile.ZipFile(io.BytesIO(got.content)) as zf:
        inputs = {n: zf.read(n).decode() for n in zf.namelist()}
    assert len(inputs) == 5
    golds, runs = [], {}
    for name in STS12_SETS:
        gs = [float(x) for x in (folder / f"STS.gs.{name}.txt").read_text().split()]
        shown = inputs[f"STS.input.{name}.txt"]
        assert len(shown.splitlines()) == len(gs) and "\t" in shown.splitlines()[0]
        published = sts_lines((folder / f"STS.input.{name}.txt").read_text("utf-8"))
        pred = [text_score(p) for p in published]  # in the gold's order
        runs[f"run1/STS.output.{name}.txt"] = sts_run(shown)  # in the order handed out
        golds.append((name, gs, pred))
    r = upload(s.client, token, _zip(runs), phase="test", target="sts12", filename="run1.zip")
    assert r.status_code == 201, r.text
    scores = {x["benchmark"]: x["score"] for x in r.json()["results"]}
    for (_, gs, pred), member in zip(
        golds, ["msrpar", "msrvid", "smteuroparl", "onwn", "smtnews"], strict=True
    ):
        assert scores[f"sts12-{member}"] == pytest.approx(pearsonr(gs, pred).statistic, abs=1e-12)
    every_gold = [g for _, gs, _ in golds for g in gs]
    every_pred = [p for *_, pred in golds for p in pred]
    expected_all = pearsonr(every_gold, every_pred).statistic
    assert scores["sts12"] == pytest.approx(expected_all, abs=1e-12)
    board = s.client.get("/api/campaigns/sts25/phases/test/leaderboard").json()
    assert board["columns"][:3] == ["rank", "system", "sts12"]
    assert board["rows"][0][2] == pytest.approx(expected_all, abs=1e-12)
    stored = s.files / "submissions" / r.json()["id"]
    kept = {p.name for p in stored.iterdir()}  # the bytes and the store's results
    assert {"items", "results.jsonl", "upload"} <= kept and "unpacked" not in kept


def test_a_bad_zip_is_rejected_with_file_and_line_and_takes_no_run(
    sts12_server, data_dir, tmp_path, monkeypatch
):
    from simeval.api import score
    from simeval.errors import InputError

    s, token = sts12_server
    folder = data_dir / "sts2012" / "test"
    files = {}
    for name in STS12_SETS:
        n = len((folder / f"STS.gs.{name}.txt").read_text().split())
        files[f"STS.output.{name}.txt"] = "".join("2.5\n" for _ in range(n)).encode()
    files["STS.output.MSRvid.txt"] = files["STS.output.MSRvid.txt"].replace(b"2.5\n", b"x\n", 1)
    monkeypatch.chdir(tmp_path)
    Path("run").mkdir()
    for name, data in files.items():
        Path("run", name).write_bytes(data)
    with pytest.raises(InputError) as offline:
        score("sts12", Path("run"))
    r = upload(s.client, token, _zip(files), phase="test", target="sts12", filename="run.zip")
    assert r.status_code == 422
    assert r.json()["error"] == str(offline.value).replace("run/", "run.zip/", 1)
    assert r.json()["line"] == offline.value.line == 1

    missing = {k: v for k, v in files.items() if "SMTnews" not in k}
    missing["STS.output.MSRvid.txt"] = files["STS.output.MSRpar.txt"][:0] + b"1\n" * len(
        files["STS.output.MSRvid.txt"].splitlines()
    )
    r = upload(s.client, token, _zip(missing), phase="test", target="sts12", filename="run.zip")
    assert r.status_code == 422 and "STS.output.surprise.SMTnews.txt" in r.json()["error"]
    r = upload(s.client, token, b"not a zip", phase="test", target="sts12", filename="run.zip")
    assert r.status_code == 422 and "zip archive" in r.json()["error"]
    twice = _zip({"a/STS.output.MSRpar.txt": b"1\n", "b/STS.output.MSRpar.txt": b"1\n"})
    r = upload(s.client, token, twice, phase="test", target="sts12", filename="run.zip")
    assert r.status_code == 422 and "twice" in r.json()["error"]
    # 3 MB of one byte deflates to a few kB, under the 200 kB upload cap: refused unpacking
    bomb = _zip({"STS.output.MSRpar.txt": b"1" * 3_000_000})
    assert len(bomb) < 200_000
    r = upload(s.client, token, bomb, phase="test", target="sts12", filename="bomb.zip")
    assert r.status_code == 422 and "cap of 200,000" in r.json()["error"]
    for sub in (s.files / "submissions").iterdir():  # rejected files kept, nothing unpacked
        assert sorted(p.name for p in sub.iterdir()) == ["upload"]
    mine = s.client.get("/api/submissions", headers={"authorization": f"Bearer {token}"}).json()
    assert [m["status"] for m in mine] == ["rejected"] * 5 and all(m["run"] is None for m in mine)


def test_a_group_is_refused_as_a_target(tmp_path, clock):
    from simeval.errors import InputError

    group = STS12_CAMPAIGN.replace('targets = ["sts12"]', 'targets = ["sts"]')
    with pytest.raises(InputError, match="sts is a group; name its parts as targets: sts12"):
        make_server(f"sqlite:///{tmp_path / 'g.db'}", tmp_path / "g", clock, campaign=group)


def test_a_linking_target_serves_its_documents_and_scores_a_trec_run(tmp_path, clock, serve_db):
    """BUCC-style linking: the inputs are the test documents, the candidates and the training
    links (never the test links); a TREC run is scored by mean reciprocal rank, here computed
    by hand from where the run puts each query's gold document."""
    import json
    import zipfile

    from simeval.api import load_target

    campaign = STS12_CAMPAIGN.replace('targets = ["sts12"]', 'targets = ["xling-fr-en"]')
    s = make_server(serve_db, tmp_path / "link", clock, campaign=campaign.replace("sts25", "l25"))
    token = register(s.client, "alpha", campaign="l25")
    got = s.client.get("/campaigns/l25/phases/test/inputs/xling-fr-en")
    assert got.status_code == 200
    with zipfile.ZipFile(io.BytesIO(got.content)) as zf:
        parts = {
            n: [json.loads(line) for line in zf.read(n).decode().splitlines()]
            for n in zf.namelist()
        }
    queries, documents, train = (
        parts["queries.jsonl"],
        parts["documents.jsonl"],
        parts["train.jsonl"],
    )
    assert all(set(q) == {"id", "text"} for q in queries)  # no link: the gold stays hidden
    assert all(t["link"] in {d["id"] for d in documents} for t in train)
    collection = load_target("xling-fr-en").collection  # the gold, read by the test only
    published = {d.id for d in (*collection.queries, *collection.corpus)}
    assert {q["id"] for q in queries}.isdisjoint(t["id"] for t in train)
    # queries and documents renamed: no id is the collection's, none tells its document
    assert published.isdisjoint(x["id"] for x in (*queries, *documents))
    # the gold in the names handed out, found by the documents' texts
    query_id = {q.text: q.id for q in collection.queries}
    doc_text = {d.id: d.text for d in collection.corpus}
    handed_doc = {d["text"]: d["id"] for d in documents}
    links = {q["id"]: handed_doc[doc_text[collection.links[query_id[q["text"]]]]] for q in queries}
    others = [d["id"] for d in documents]
    lines, reciprocal = [], []
    for i, q in enumerate(queries):
        gold_rank = i % 7 + 1  # 1..5 in the run, 6 and 7: not retrieved
        ranked = [d for d in others if d != links[q["id"]]][:5]
        if gold_rank <= 5:
            ranked.insert(gold_rank - 1, links[q["id"]])
            ranked = ranked[:5]
        reciprocal.append(1 / gold_rank if gold_rank <= 5 else 0.0)
        lines += [f"{q['id']} Q0 {d} {r} {10 - r} mine" for r, d in enumerate(ranked, start=1)]
    run = ("\n".join(lines) + "\n").encode()
    # a run made from the published collection's ids is refused, saying which input to use
    back = {v: k for k, v in links.items()}
    own = collection.links
    published_run = "".join(f"{back_q} Q0 {own[back_q]} 1 1 mine\n" for back_q in
                            [query_id[q["text"]] for q in queries])  # fmt: skip
    r = upload(s.client, token, published_run.encode(), phase="test", target="xling-fr-en")
    assert r.status_code == 422 and "xling-fr-en-inputs.zip" in r.json()["error"], r.text
    assert back  # every handed-out query has its document
    r = upload(s.client, token, run, phase="test", target="xling-fr-en", filename="fr.run")
    assert r.status_code == 201, r.text
    assert r.json()["run"] == 1  # the refused file took no run
    (result,) = r.json()["results"]
    assert result["main_metric"] == "recip_rank"
    assert result["score"] == pytest.approx(sum(reciprocal) / len(queries), abs=1e-12)
