"""Issue 28, points 4-6: the hidden test stays hidden.

- a hidden phase refuses a file (no run taken) only for what the phase's input file shows, and
  says nothing that depends on the gold: an STS line left blank gets the same answer whether
  or not the gold scores that line, an all-blank file's refusal names no gold line, probing
  costs runs, a RUSSE member's file gets the same answer whether its pairs are the member's;
- warnings from the file and the input are shown while scores are hidden;
- ``hidden`` is a TOML boolean, no benchmark is in a visible and a hidden phase, and input
  files wait for their phase to open.

Which lines and pairs the gold scores is read here from the data files themselves."""

from __future__ import annotations

import csv
import io
import re
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import pearsonr

pytest.importorskip("fastapi")

from serve_kit import (
    CAMPAIGN,
    OPENS,
    TEST_OPENS,
    TRIAL_END,
    Clock,
    campaign_toml,
    csrf_value,
    make_server,
    phase_toml,
    register,
    sts_handout,
    text_score,
    upload,
    yp130_pairs,
)
from simeval.errors import InputError
from simeval.serve.db import Database
from simeval.serve.service.campaigns import Targets, create_campaign, read_campaign_file
from simeval.serve.service.editing import publish

STS_SET = "answers-forums"  # SemEval 2015: 2,000 input lines, 375 of them scored
HIDDEN = campaign_toml(
    "h25",
    phase_toml("dev", ["sts16-headlines"], runs=5, max_bytes=1_000_000, hidden=False),
    phase_toml(
        "final", [f"sts15-{STS_SET}", "russe", "russe-hj"], max_bytes=1_000_000, hidden=True
    ),
    title="Hidden test",
)
VOLATILE = {"id", "received", "sha256", "run"}  # what differs between any two uploads


@pytest.fixture
def clock() -> Clock:
    return Clock(OPENS + timedelta(days=1))


@pytest.fixture
def hidden_server(tmp_path: Path, clock: Clock, serve_db: str):
    s = make_server(serve_db, tmp_path / "hidden", clock, campaign=HIDDEN)
    return s, register(s.client, "alpha", campaign="h25")


def gold_lines(data_dir: Path, year: int, name: str) -> list[str]:
    """The gold file's lines as they are: a number, or empty for a pair that is not scored."""
    path = data_dir / "sts" / str(year) / "test" / f"STS.{year}.gs.{name}.txt"
    return path.read_text(encoding="utf-8").splitlines()


def sts_run(n: int, blank: set[int]) -> tuple[bytes, list[float]]:
    """A seeded score for each of ``n`` lines, the lines in ``blank`` (1-based) left empty."""
    scores = np.round(np.random.default_rng(7).random(n) * 5, 3).tolist()
    text = "".join("\n" if i + 1 in blank else f"{s}\n" for i, s in enumerate(scores))
    return text.encode(), scores


def shape(answer: dict) -> dict:
    return {k: v for k, v in answer.items() if k not in VOLATILE}


def russe_pairs(data_dir: Path) -> list[tuple[str, str]]:
    """test.csv's distinct pairs, in order (what teams received)."""
    with (data_dir / "russe" / "test.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))[1:]
    return list(dict.fromkeys((a, b) for a, b, *_ in rows))


def russe_file(pairs: list[tuple[str, str]]) -> bytes:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["word1", "word2", "sim"])
    writer.writerows((a, b, 0.5) for a, b in pairs)
    return buf.getvalue().encode()


# ---- point 4: validation in a hidden phase depends on the input alone


def sts_input(data_dir: Path, year: int, name: str) -> Path:
    return data_dir / "sts" / str(year) / "test" / f"STS.{year}.input.{name}.txt"


def handed_run(handed: list[tuple[str, str]], blank: int) -> bytes:
    """:func:`serve_kit.text_score` of each handed-out line, line ``blank`` (1-based) empty."""
    return "".join(
        "\n" if k + 1 == blank else f"{text_score(p):.6f}\n" for k, p in enumerate(handed)
    ).encode()


def test_a_blank_sts_line_gets_one_answer_whether_or_not_the_gold_scores_it(
    hidden_server, clock, data_dir
):
    s, token = hidden_server
    gold = gold_lines(data_dir, 2015, STS_SET)
    n = len(gold)
    target = f"sts15-{STS_SET}"
    handed, published, place = sts_handout(
        s.client, "h25", "final", target, sts_input(data_dir, 2015, STS_SET)
    )
    # a line of the handed-out input whose pair the gold scores, and one it does not
    on_gold = next(k + 1 for k, i in enumerate(place) if i is not None and gold[i].strip())
    off_gold = next(k + 1 for k, i in enumerate(place) if i is not None and not gold[i].strip())
    answers = []
    for line in (on_gold, off_gold):
        answers.append(
            upload(s.client, token, handed_run(handed, line), phase="final", target=target)
        )
    (a, b) = answers
    assert a.status_code == b.status_code == 201, (a.text, b.text)
    assert shape(a.json()) == shape(b.json())
    assert [a.json()["run"], b.json()["run"]] == [1, 2]  # both counted
    assert a.json()["results"] is None and a.json()["error"] is None
    assert a.json()["warnings"] == [
        f"run.csv: 1 of {n} lines are blank: those pairs have no score (a blank line where "
        "the gold has a score is scored 0)"
    ]

    # published: the blank gold line was scored 0 and counted missing
    clock.now = TRIAL_END + timedelta(minutes=1)
    publish(s.db, "h25", "final", clock.now)
    mine = s.client.get(
        f"/api/submissions/{a.json()['id']}", headers={"authorization": f"Bearer {token}"}
    ).json()
    (result,) = mine["results"]
    kept = [i for i, g in enumerate(gold) if g.strip()]
    blank = place[on_gold - 1]
    pred = [0.0 if i == blank else text_score(published[i]) for i in kept]
    expected = pearsonr([float(gold[i].split("\t")[0]) for i in kept], pred).statistic
    assert result["score"] == pytest.approx(expected, abs=1e-12)
    assert result["coverage"] == {
        "gold": len(kept),
        "scored": len(kept) - 1,
        "missing": 1,
        "extra": 0,
    }
    assert f"1 of {len(kept)} gold-scored lines are blank; scored 0" in " ".join(result["warnings"])


def test_a_visible_phase_keeps_the_precise_message(hidden_server, data_dir):
    """The message names the participant's own line, in the order handed out."""
    s, token = hidden_server
    gold = gold_lines(data_dir, 2016, "headlines")
    handed, _, place = sts_handout(
        s.client, "h25", "dev", "sts16-headlines", sts_input(data_dir, 2016, "headlines")
    )
    on_gold = next(k + 1 for k, i in enumerate(place) if i is not None and gold[i].strip())
    assert place[on_gold - 1] != on_gold - 1  # not the published file's line
    data = handed_run(handed, on_gold)
    r = upload(s.client, token, data, phase="dev", target="sts16-headlines")
    assert r.status_code == 422
    assert r.json()["error"] == f"run.csv:{on_gold}: expected a score, the line is empty"


def test_an_all_blank_sts_file_is_refused_naming_no_gold_line(hidden_server, data_dir):
    s, token = hidden_server
    gold = gold_lines(data_dir, 2015, STS_SET)
    n = len(gold)
    scored = [i + 1 for i, g in enumerate(gold) if g.strip()]
    r = upload(s.client, token, b"\n" * n, phase="final", target=f"sts15-{STS_SET}")
    assert r.status_code == 422
    body = r.json()
    assert body["line"] is None and body["run"] is None
    numbers = {int(x) for x in re.findall(r"\d+", body["error"].removeprefix("run.csv"))}
    assert numbers <= {n}  # the input's line count; no gold line, not how many there are
    assert len(scored) not in numbers and "gold" not in body["error"]
    assert body["error"] == f"run.csv: every line is blank: none of the {n} pairs has a score"


def test_probing_the_gold_lines_costs_runs(hidden_server, data_dir):
    """Today each blank on a gold line is a free 422 naming it; here each upload is a run."""
    s, token = hidden_server
    gold = gold_lines(data_dir, 2015, STS_SET)
    gold_at = [i + 1 for i, g in enumerate(gold) if g.strip()]
    codes = []
    for line in gold_at[:3]:
        data, _ = sts_run(len(gold), {line})
        r = upload(s.client, token, data, phase="final", target=f"sts15-{STS_SET}")
        codes.append(r.status_code)
    assert codes == [201, 201, 409]
    assert "no runs left: 2 of 2" in r.json()["error"]


def test_an_error_only_the_gold_finds_takes_the_run_and_waits_for_publication(
    hidden_server, clock, data_dir, monkeypatch, tmp_path
):
    """The catalog's pair targets list their gold pairs in their input (russe-hj's input is
    its 333 pairs), so the input check finds what the gold would; an error that only the
    gold finds (here made to happen) takes the run, looks like any other run while the phase
    is hidden, and is shown once it is published."""
    import simeval.kinds.scoring
    from simeval.results.store import load_results
    from simeval.serve.db.storage import Storage
    from simeval.serve.service.export import export

    s, token = hidden_server
    pairs = russe_pairs(data_dir)
    real = simeval.kinds.scoring.score_submission
    fail = {"now": False}

    def score(*args, **kwargs):
        if fail["now"]:
            raise InputError(args[1], None, "the gold refuses this file")
        return real(*args, **kwargs)

    monkeypatch.setattr(simeval.kinds.scoring, "score_submission", score)
    a = upload(s.client, token, russe_file(pairs[:2]), phase="final", target="russe")
    fail["now"] = True
    b = upload(s.client, token, russe_file(pairs[:2]), phase="final", target="russe")
    assert a.status_code == b.status_code == 201, (a.text, b.text)
    assert shape(a.json()) == shape(b.json()) and b.json()["run"] == 2
    assert b.json()["error"] is None and b.json()["results"] is None
    clock.now = TRIAL_END + timedelta(minutes=1)
    publish(s.db, "h25", "final", clock.now)
    auth = {"authorization": f"Bearer {token}"}
    later = s.client.get(f"/api/submissions/{b.json()['id']}", headers=auth).json()
    assert later["results"] == [] and later["error"] == "run.csv: the gold refuses this file"
    board = s.client.get("/api/campaigns/h25/phases/final/leaderboard").json()
    assert [row[1] for row in board["rows"]] == ["alpha run 1"]
    out = tmp_path / "export"  # run 2 counted, with no records: the results folder has none
    export(s.db, Storage(s.files), "h25", out)
    assert {r["system"]["name"] for r in load_results(out / "final")} == {"alpha run 1"}
    table = (out / "submissions.csv").read_text()
    assert "the gold refuses this file" in table


# ---- point 5: warnings that are safe to show are shown while scores are hidden


def test_a_hidden_phase_shows_the_files_warnings(hidden_server, data_dir, tmp_path, monkeypatch):
    s, token = hidden_server
    pairs = russe_pairs(data_dir)
    m = len(pairs)
    data = russe_file(pairs[:1])
    r = upload(s.client, token, data, phase="final", target="russe")
    assert r.status_code == 201 and r.json()["results"] is None
    a, b = pairs[1]
    expected = (
        f"run.csv: {m - 1} of {m} input pairs have no score (first: {a!r},{b!r}); "
        "a gold pair without a score counts as 0"
    )
    assert r.json()["warnings"] == [expected]
    auth = {"authorization": f"Bearer {token}"}
    assert s.client.get(f"/api/submissions/{r.json()['id']}", headers=auth).json() == r.json()

    # `simeval submit` prints it on stderr
    from typer.testing import CliRunner

    from serve_kit import through
    from simeval.cli import app

    through(monkeypatch, s.client)
    (tmp_path / "run.csv").write_bytes(data)
    args = ["submit", str(tmp_path / "run.csv"), "--server", "http://server", "--token", token]
    done = CliRunner().invoke(app, [*args, "-p", "final", "-t", "russe"])
    assert done.exit_code == 0, done.stderr
    assert "scores hidden" in done.stdout
    assert f"{m - 1} of {m} input pairs have no score" in done.stderr


def test_the_upload_page_shows_the_warnings(hidden_server, data_dir):
    from fastapi.testclient import TestClient

    from simeval.serve.app import SESSION_COOKIE
    from simeval.serve.service.security import CSRF_COOKIE

    s, token = hidden_server
    pairs = russe_pairs(data_dir)
    browser = "c" * 32
    page = TestClient(s.app, cookies={SESSION_COOKIE: token, CSRF_COOKIE: browser})
    r = page.post(
        "/campaigns/h25/phases/final/upload",
        data={"csrf": csrf_value(s.app, browser, token), "target": "russe"},
        files={"file": ("run.csv", russe_file(pairs[:1]), "text/csv")},
    )
    assert r.status_code == 200, r.text
    assert "scores hidden until published" in r.text
    assert f"{len(pairs) - 1} of {len(pairs)} input pairs have no score" in r.text


# ---- point 6: phase settings explicit and checked


def campaign_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "campaign.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_hidden_is_a_toml_boolean(tmp_path):
    quoted = CAMPAIGN.replace('name = "test"\n', 'name = "test"\nhidden = "false"\n')
    path = campaign_file(tmp_path, quoted)
    with pytest.raises(InputError) as refused:
        read_campaign_file(path)
    assert refused.value.path == str(path)
    assert "phase 2 (test): hidden must be true or false" in refused.value.message
    shown = CAMPAIGN.replace('name = "test"\n', 'name = "test"\nhidden = false\n')
    trial, test = read_campaign_file(campaign_file(tmp_path, shown))[3]
    assert not trial.hidden and not test.hidden


def test_hidden_by_default_only_for_a_phase_named_test(tmp_path):
    renamed = CAMPAIGN.replace('name = "test"\n', 'name = "Test"\n')
    trial, test = read_campaign_file(campaign_file(tmp_path, renamed))[3]
    assert (trial.hidden, test.hidden) == (False, True)


@pytest.mark.parametrize(
    ("visible", "hidden", "shared"),
    [
        ("sts12", "sts12-msrvid", "sts12-msrvid"),  # a suite's member
        ("sts12-msrvid", "sts12", "sts12-msrvid"),
        ("mc30", "mc30", "mc30"),
    ],
)
def test_a_benchmark_in_a_visible_and_a_hidden_phase_is_refused(tmp_path, visible, hidden, shared):
    text = (
        CAMPAIGN.replace('["mc30", "rg65", "sts12-msrvid"]', f'["{visible}"]')
        .replace('["yp130"]', f'["{hidden}"]')
        .replace("max_bytes = 10_000", "max_bytes = 200_000")
    )
    path = campaign_file(tmp_path, text)
    db = Database(f"sqlite:///{tmp_path / 'c.db'}")
    with pytest.raises(InputError) as refused:
        create_campaign(db, path, OPENS, Targets())
    assert refused.value.path == str(path)
    assert f"{shared} in both the visible phase trial and the hidden phase test" in str(
        refused.value
    )


def test_inputs_wait_for_their_phase_to_open(tmp_path, clock, serve_db, data_dir):
    s = make_server(serve_db, tmp_path / "server", clock)
    for route in ("/campaigns", "/api/campaigns"):
        early = s.client.get(f"{route}/lex25/phases/test/inputs/yp130")
        assert early.status_code == 403
        assert "opens at 2025-02-02 00:00 UTC" in early.text
        assert s.client.get(f"{route}/lex25/phases/trial/inputs/mc30").status_code == 200
    clock.now = TEST_OPENS
    r = s.client.get("/campaigns/lex25/phases/test/inputs/yp130")
    assert r.status_code == 200
    rows = list(csv.reader(io.StringIO(r.text)))[1:]
    assert sorted((a, b) for a, b, _ in rows) == sorted((a, b) for a, b, _ in yp130_pairs(data_dir))
