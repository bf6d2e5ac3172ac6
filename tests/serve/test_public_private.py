"""Public and private leaderboards (issue 32, item 2): a phase with ``public_share`` scores
that share of the pairs live, by a rule anyone with the seed can redraw (the test redraws it
here with hmac and its own key normalisation); teams see public scores only until the
deadline; then the private board ranks each team's final runs; the export compares the two.

Expected scores are scipy's over the gold file and the uploaded scores, restricted to the
pairs the test draws itself."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy.stats import kendalltau, spearmanr

from serve_kit import TRIAL_END, Clock, gold, mine, page_csrf, pair_file, register, upload
from simeval.errors import InputError
from simeval.serve.service.editing import set_baseline
from split_kit import YP130, drawn_public, seed_of, split_server


@pytest.fixture
def split(tmp_path: Path, serve_db: str) -> Iterator[tuple[Any, Clock]]:
    yield from split_server(tmp_path, serve_db)


def rho(x: Any, y: Any) -> float:
    return float(spearmanr(x, y).statistic)


def test_the_split_is_a_keyed_draw_of_the_share_and_stable(data_dir: Path) -> None:
    from simeval.serve.service.split_rule import new_seed, public_mask

    with open(data_dir / "russe" / "test.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 14_835
    items = {k: np.array([r[k] for r in rows]) for k in ("word1", "word2")}
    seed = new_seed()
    mask = public_mask(items, "russe", seed, 0.3)
    n, share = len(rows), 0.3
    sd = (n * share * (1 - share)) ** 0.5  # 55.8
    assert abs(mask.sum() - n * share) < 4 * sd
    pairs = [(r["word1"], r["word2"], 0.0) for r in rows]
    assert (mask == drawn_public(seed, pairs, share)).all()  # the documented rule
    # the same pair whatever its order, case or spacing; the same draw every time
    swapped = {"word1": np.char.upper(items["word2"]), "word2": items["word1"]}
    assert (public_mask(swapped, "russe", seed, 0.3) == mask).all()
    other = public_mask(items, "russe", new_seed(), 0.3)
    both = (other & mask).sum()  # two seeds draw independently: about share² of the pairs
    assert abs(both - n * share**2) < 4 * (n * share**2 * (1 - share**2)) ** 0.5
    assert len(seed) == 32 and seed != new_seed()


def test_a_split_phase_shows_public_scores_only_until_the_deadline(split, data_dir) -> None:
    server, _ = split
    c = server.client
    pairs = gold(data_dir / YP130)
    g = np.array([x for _, _, x in pairs])
    token = register(c, "alpha", "priv25")
    data, scores = pair_file(pairs, 11)
    s = np.array(scores)
    r = upload(c, token, data, "dev")
    assert r.status_code == 201, r.text
    public = drawn_public(seed_of(server), pairs, 0.3)
    expected = rho(g[public], s[public])
    full, private = rho(g, s), rho(g[~public], s[~public])
    answer = r.json()
    assert answer["part"] == "public"
    assert answer["results"][0]["score"] == pytest.approx(expected, abs=1e-12)
    assert mine(c, token)[0]["results"][0]["score"] == pytest.approx(expected, abs=1e-12)
    board = c.get("/api/campaigns/priv25/phases/dev/leaderboard").json()
    assert board["board"] == "public"
    assert board["rows"][0][1] == "alpha run 1"
    assert board["rows"][0][2] == pytest.approx(expected, abs=1e-12)
    # no full or private score anywhere a team looks
    c.post("/login", data={"csrf": page_csrf(c, "/campaigns/priv25"), "token": token})
    pages = {
        "upload answer": json.dumps(answer),
        "my submissions (API)": json.dumps(mine(c, token)),
        "board (API)": json.dumps(board),
        "board (page)": c.get("/campaigns/priv25/phases/dev").text,
        "my submissions (page)": c.get("/mine").text,
    }
    hidden_values = {"full": full, "private": private}
    for what, text in pages.items():
        shown = [float(x) for x in re.findall(r"-?\d+\.\d+(?:e-?\d+)?", text)]
        for name, value in hidden_values.items():
            assert not any(abs(v - value) < 5e-5 for v in shown), (what, name, value)
    assert "public 30% of the pairs" in pages["board (page)"]
    assert "No rank tiers on a board of a public/private split" in pages["board (page)"]
    assert board["tiers"]["benchmarks"] == {}  # tiers would read every item's rows
    assert "public 30% of the pairs" in c.get("/campaigns/priv25").text
    assert seed_of(server) not in "".join(pages.values()) + c.get("/campaigns/priv25").text
    r = c.get("/api/campaigns/priv25/phases/dev/leaderboard", params={"board": "private"})
    assert r.status_code == 403
    # a phase without a split is as before: its full scores
    mc = gold(data_dir / "mc30" / "EN-MC-30.txt")
    data, mscores = pair_file(mc, 3)
    r = upload(c, token, data, "open")
    assert r.json()["part"] is None
    assert r.json()["results"][0]["score"] == pytest.approx(
        rho([x for _, _, x in mc], mscores), abs=1e-12
    )


def _three_teams(server: Any, clock: Clock, data_dir: Path) -> dict[str, Any]:
    """Teams alpha, beta, gamma with 3 runs each on yp130; alpha picks run 1, gamma runs 1 and
    3, beta picks nothing (its last two: 2 and 3); the baseline ``base`` has 2 runs. Each
    team run's scores, by system."""
    c = server.client
    pairs = gold(data_dir / YP130)
    g = np.array([x for _, _, x in pairs])
    made: dict[str, Any] = {"gold": g, "scores": {}}
    for i, team in enumerate(("alpha", "beta", "gamma")):
        token = register(c, team, "priv25")
        for run in (1, 2, 3):
            # scores that follow the gold more or less, so the boards are not random
            noise = np.random.default_rng(10 * i + run).normal(0, 0.5 + 0.4 * run + i, len(g))
            text = "word1,word2,sim\n" + "".join(
                f"{a},{b},{v:.6f}\n" for (a, b, _), v in zip(pairs, g + noise, strict=True)
            )
            r = upload(c, token, text.encode(), "dev")
            assert r.status_code == 201, r.text
            made["scores"][f"{team} run {run}"] = np.round(g + noise, 6)
        made[team] = {"authorization": f"Bearer {token}"}
    assert c.put("/api/phases/dev/final", json={"runs": [1]}, headers=made["alpha"]).is_success
    assert c.put("/api/phases/dev/final", json={"runs": [3, 1]}, headers=made["gamma"]).is_success
    base = register(c, "base", "priv25")  # the organisers' baseline: two runs, never ranked
    for seed in (1, 2):
        assert upload(c, base, pair_file(pairs, seed)[0], "dev").status_code == 201
    set_baseline(server.db, "priv25", "base", True, clock.now)
    made["public"] = drawn_public(seed_of(server), pairs, 0.3)
    return made


def test_after_the_deadline_the_private_board_ranks_the_final_runs(split, data_dir) -> None:
    server, clock = split
    c = server.client
    made = _three_teams(server, clock, data_dir)
    g, pub = made["gold"], made["public"]
    clock.now = TRIAL_END + timedelta(seconds=1)
    board = c.get("/api/campaigns/priv25/phases/dev/leaderboard").json()
    assert board["board"] == "private"
    finals = {"alpha run 1", "beta run 2", "beta run 3", "gamma run 1", "gamma run 3"}
    baselines = [row for row in board["rows"] if row[1].endswith("(baseline)")]
    assert sorted(row[1] for row in baselines) == ["base run 1 (baseline)", "base run 2 (baseline)"]
    assert [row[0] for row in baselines] == [None, None]  # shown, never ranked
    board["rows"] = [row for row in board["rows"] if row not in baselines]
    assert {row[1] for row in board["rows"]} == finals
    expected = {sys: rho(g[~pub], s[~pub]) for sys, s in made["scores"].items() if sys in finals}
    for row in board["rows"]:
        assert row[2] == pytest.approx(expected[row[1]], abs=1e-12)
    order = sorted(expected, key=lambda k: -expected[k])
    assert [row[1] for row in board["rows"]] == order
    assert [row[0] for row in board["rows"]] == [1, 2, 3, 4, 5]
    live = c.get("/api/campaigns/priv25/phases/dev/leaderboard?board=public").json()
    assert live["board"] == "public" and len(live["rows"]) == 9 + 2
    for row in [r for r in live["rows"] if r[0] is not None]:
        s = made["scores"][row[1]]
        assert row[2] == pytest.approx(rho(g[pub], s[pub]), abs=1e-12)
    page = c.get("/campaigns/priv25/phases/dev").text
    assert "Private leaderboard (final)" in page and "?board=public" in page
    assert "Each team's final runs are listed here" in page
    page = c.get("/campaigns/priv25/phases/dev?board=public").text
    assert "Public leaderboard (live)" in page and "?board=private" in page
    # after the deadline a team sees its runs' private scores (never the full ones)
    for view in mine(c, made["alpha"]["authorization"].split()[1]):
        s = made["scores"][f"alpha run {view['run']}"]
        assert view["part"] == "private"
        assert view["results"][0]["score"] == pytest.approx(rho(g[~pub], s[~pub]), abs=1e-12)


def test_the_export_compares_the_public_and_private_boards(split, data_dir, tmp_path) -> None:
    from simeval.serve.service.export import export

    server, clock = split
    made = _three_teams(server, clock, data_dir)
    g, pub = made["gold"], made["public"]
    storage = server.app.state.service.storage
    export(server.db, storage, "priv25", tmp_path / "early", now=clock.now)
    assert not (tmp_path / "early" / "dev" / "public_private.md").exists()  # not before
    clock.now = TRIAL_END + timedelta(days=1)
    export(server.db, storage, "priv25", tmp_path / "out", now=clock.now)
    finals = ["alpha run 1", "beta run 2", "beta run 3", "gamma run 1", "gamma run 3"]
    public = [rho(g[pub], made["scores"][f][pub]) for f in finals]
    private = [rho(g[~pub], made["scores"][f][~pub]) for f in finals]
    rows = list(csv.DictReader(io.StringIO((tmp_path / "out/dev/public_private.csv").read_text())))
    by_system = {r["system"]: r for r in rows}
    assert sorted(by_system) == finals
    for f, p, q in zip(finals, public, private, strict=True):
        assert float(by_system[f]["public"]) == pytest.approx(p, abs=1e-6)
        assert float(by_system[f]["private"]) == pytest.approx(q, abs=1e-6)
        rank_pub = 1 + sum(x > p for x in public)
        rank_priv = 1 + sum(x > q for x in private)
        assert int(by_system[f]["public rank"]) == rank_pub
        assert int(by_system[f]["private rank"]) == rank_priv
        assert int(by_system[f]["rank change"]) == rank_pub - rank_priv
    text = (tmp_path / "out/dev/public_private.md").read_text()
    assert f"Spearman's ρ = {spearmanr(public, private).statistic:.4f}" in text
    assert f"Kendall's τ-b = {kendalltau(public, private).statistic:.4f}" in text
    assert seed_of(server) in text
    assert "Largest rank changes" in text
    export(server.db, storage, "priv25", tmp_path / "anon", anonymise=True, now=clock.now)
    anon = (tmp_path / "anon/dev/public_private.md").read_text()
    assert not re.search("alpha|beta|gamma", anon) and "team-0" in anon


def test_the_console_shows_the_split_and_its_seed_after_the_deadline(split) -> None:
    from serve_kit import page_csrf as csrf_of
    from simeval.serve.service.organisers import add_organiser

    server, clock = split
    c = server.client
    token = add_organiser(server.db, "Ada", clock.now)
    r = c.post("/organiser/login", data={"csrf": csrf_of(c, "/organiser"), "token": token},
               follow_redirects=False)  # fmt: skip
    assert r.status_code == 303
    page = c.get("/organiser/campaigns/priv25").text
    assert "Public leaderboard: 30% of the pairs" in page and "up to 2" in page
    assert seed_of(server) not in page and "shown after the deadline" in page
    clock.now = TRIAL_END + timedelta(seconds=1)
    assert seed_of(server) in c.get("/organiser/campaigns/priv25").text


def test_the_guide_s_split_phase_is_read_as_documented(tmp_path: Path) -> None:
    """The ``[[phase]]`` table of docs/guide/shared-task.md that splits a phase."""
    import readme_text
    from simeval.serve.service.campaigns import read_campaign_file

    (block,) = [b for b in readme_text.blocks(readme_text.doc("guide/shared-task.md"), "toml")
                if "public_share" in b]  # fmt: skip
    path = tmp_path / "campaign.toml"
    path.write_text('name = "lex25"\n\n' + block, encoding="utf-8")
    (phase,) = read_campaign_file(path)[3]
    assert (phase.public_share, phase.final_runs) == (0.3, 2)
    bad = tmp_path / "bad.toml"
    for value in ("0", "1", "1.5", '"0.3"', "true"):
        bad.write_text(path.read_text().replace("public_share = 0.3", f"public_share = {value}"))
        with pytest.raises(InputError, match="public_share: expected a number between 0 and 1"):
            read_campaign_file(bad)


def test_a_hidden_split_phase_shows_nothing_until_published(tmp_path, serve_db, data_dir) -> None:
    from serve_kit import TEST_END, TEST_OPENS, campaign_toml, make_server, phase_toml
    from simeval.serve.service.editing import publish

    text = campaign_toml(
        "hid25", phase_toml("test", ["yp130"], TEST_OPENS, TEST_END) + "public_share = 0.5\n"
    )
    clock = Clock(TEST_OPENS + timedelta(days=1))
    server = make_server(serve_db, tmp_path / "srv", clock, campaign=text)
    try:
        c = server.client
        token = register(c, "alpha", "hid25")
        pairs = gold(data_dir / YP130)
        r = upload(c, token, pair_file(pairs, 1)[0], "test")
        assert r.status_code == 201 and r.json()["results"] is None and r.json()["hidden"]
        board = "/api/campaigns/hid25/phases/test/leaderboard"
        assert c.get(board).json()["hidden"] is True
        clock.now = TEST_END + timedelta(hours=1)
        assert c.get(board).json()["hidden"] is True  # closed, not yet published
        assert c.get(board, params={"board": "public"}).json()["hidden"] is True
        publish(server.db, "hid25", "test", clock.now)
        shown = c.get(board).json()
        assert shown["board"] == "private" and shown["rows"][0][1] == "alpha run 1"
    finally:
        server.db.dispose()


def test_an_organiser_splits_a_phase_before_it_opens(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    from typer.testing import CliRunner

    from serve_kit import campaign_toml, make_server, phase_toml
    from simeval.cli import app as cli
    from simeval.serve.service.organisers import audit_log

    later = datetime(2031, 1, 1, tzinfo=UTC)
    text = campaign_toml("fut25", phase_toml("dev", ["yp130"], later, later + timedelta(days=9)))
    server = make_server(f"sqlite:///{tmp_path / 'srv/serve.db'}", tmp_path / "srv",
                         Clock(later - timedelta(days=1)), campaign=text)  # fmt: skip
    folder = str(tmp_path / "srv")
    where = ["serve", "split", folder, "-c", "fut25", "-p", "dev"]
    run = CliRunner().invoke
    try:
        assert seed_of(server) is None
        done = run(cli, [*where, "--share", "0.25", "--final-runs", "3"], env={"COLUMNS": "80"})
        assert done.exit_code == 0, done.output
        assert done.output == "public_share: None -> 0.25\nfinal_runs: 2 -> 3\n"
        first = seed_of(server)
        assert len(first) == 32
        (entry,) = [e for e in audit_log(server.db) if e.action == "split phase"]
        assert first not in json.dumps(entry.detail)  # the seed stays out of the log
        assert run(cli, [*where, "--share", "0.25"]).output == "nothing changed\n"
        assert seed_of(server) == first  # the same share keeps its seed
        assert run(cli, [*where, "--share", "1.5"]).exit_code == 2
        assert run(cli, [*where]).exit_code == 2  # --share or --off
        assert run(cli, [*where, "--off"]).output == "public_share: 0.25 -> None\n"
        assert seed_of(server) is None
    finally:
        server.db.dispose()
    text = campaign_toml("old25", phase_toml("dev", ["yp130"]))  # opened in 2025
    server = make_server(f"sqlite:///{tmp_path / 'old/serve.db'}", tmp_path / "old",
                         Clock(later), campaign=text)  # fmt: skip
    try:
        done = run(cli, ["serve", "split", str(tmp_path / "old"), "-c", "old25", "-p", "dev",
                         "--share", "0.3"])  # fmt: skip
        assert done.exit_code == 2 and "opened at 2025-01-01 00:00 UTC: its split stays" in (
            done.output
        )
    finally:
        server.db.dispose()


REOPENED = "reopened after its private scores were shown, by the organisers: "


def test_a_closed_split_phase_reopens_only_with_a_stated_reason(split, data_dir) -> None:
    """Past its deadline a split phase's private board is public: a later deadline would let
    teams upload and pick final runs knowing the private order. Refused without a reason;
    with one, audited and said on the phase's board (escaped)."""
    from simeval.serve.service.editing import PhaseEdit, edit_phase
    from simeval.serve.service.organisers import audit_log

    server, clock = split
    token = register(server.client, "alpha", "priv25")
    assert upload(server.client, token, pair_file(gold(data_dir / YP130), 1)[0], "dev").is_success
    clock.now = TRIAL_END + timedelta(hours=1)
    assert server.client.get("/api/campaigns/priv25/phases/dev/leaderboard").json()["board"] == (
        "private"
    )
    later = (TRIAL_END + timedelta(days=3)).isoformat()
    with pytest.raises(InputError, match="private scores were shown") as caught:
        edit_phase(server.db, "priv25", "dev", PhaseEdit(deadline=later), clock.now, "cli")
    assert "reopen_reason" in str(caught.value)
    for blank in (" ", "x" * 501, "a\u202eb"):
        with pytest.raises(InputError, match="give a reason of 1 to 500 characters"):
            edit_phase(server.db, "priv25", "dev", PhaseEdit(deadline=later, reopen_reason=blank),
                       clock.now, "cli")  # fmt: skip
    assert audit_log(server.db) == []
    # an edit that does not reopen it needs no reason
    assert edit_phase(server.db, "priv25", "dev", PhaseEdit(runs=4), clock.now, "cli")
    reason = "the server refused uploads for <b>two</b> hours"
    edit = PhaseEdit(deadline=later, reopen_reason=reason)
    changed = edit_phase(server.db, "priv25", "dev", edit, clock.now, "organiser:Ada")
    assert list(changed) == ["deadline"]
    entry = audit_log(server.db)[0]
    assert (entry.actor, entry.action) == ("organiser:Ada", "reopen")
    assert entry.detail == {"phase": "dev", "reason": reason, "shown": "private scores were shown",
                            "changes": {"deadline": ["2025-02-01T00:00:00Z",
                                                     later.replace("+00:00", "Z")]}}  # fmt: skip
    page = server.client.get("/campaigns/priv25/phases/dev").text
    assert REOPENED + "the server refused uploads for &lt;b&gt;two&lt;/b&gt; hours" in page
    assert REOPENED not in server.client.get("/campaigns/priv25/phases/open").text
    # open again: the next deadline move is an ordinary edit
    again = (TRIAL_END + timedelta(days=4)).isoformat()
    assert edit_phase(server.db, "priv25", "dev", PhaseEdit(deadline=again), clock.now, "cli")


def test_the_console_and_the_command_ask_the_reason_too(split, tmp_path) -> None:
    from typer.testing import CliRunner

    from serve_kit import page_csrf as csrf_of
    from simeval.cli import app as cli
    from simeval.serve.service.organisers import add_organiser

    server, clock = split
    c = server.client
    token = add_organiser(server.db, "Ada", clock.now)
    c.post("/organiser/login", data={"csrf": csrf_of(c, "/organiser"), "token": token})
    csrf = csrf_of(c, "/organiser")
    clock.now = TRIAL_END + timedelta(hours=1)
    assert 'name="reopen_reason"' in c.get("/organiser/campaigns/priv25").text
    form = {"csrf": csrf, "action": "save", "deadline": "2025-02-05T00:00:00Z"}
    r = c.post("/organiser/campaigns/priv25/phases/dev", data=form)
    assert r.status_code == 200 and "private scores were shown" in r.text  # beside the deadline
    r = c.post("/organiser/campaigns/priv25/phases/dev",
               data={**form, "reopen_reason": "a late gold fix"})  # fmt: skip
    assert r.status_code == 200 and "deadline 2025-02-01T00:00:00Z → 2025-02-05" in r.text
    assert REOPENED + "a late gold fix" in c.get("/campaigns/priv25/phases/dev").text
    # the command line, on the server's own clock (2025's deadline passed long ago)
    where = ["serve", "phase", str(tmp_path / "srv"), "-c", "priv25", "-p", "dev", "--db",
             server.url]  # fmt: skip
    clock.now = TRIAL_END + timedelta(days=30)  # closed again
    server.db.dispose()
    run = CliRunner().invoke
    edit = run(cli, [*where, "--deadline", "2031-01-01T00:00:00Z"], env={"COLUMNS": "200"})
    assert edit.exit_code == 2 and "private scores were shown" in edit.output
    edit = run(cli, [*where, "--deadline", "2031-01-01T00:00:00Z", "--reopen-reason", "a retry"])
    assert edit.exit_code == 0, edit.output
    assert REOPENED + "a retry" in c.get("/campaigns/priv25/phases/dev").text
