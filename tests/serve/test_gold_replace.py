"""Replacing a benchmark's gold on the server (issue 32, item 1): the new file is checked (it
reads as the gold, asks for the same pairs, differs from the gold in use), kept, audited, and
every stored run that reads it is scored again against it, the old scores kept in history.
Expected scores are scipy's over the test's own gold and submitted scores, never the
server's; checksums are hashlib's of the test's file."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from pathlib import Path

import pytest
from scipy.stats import spearmanr

from serve_kit import (
    OPENS,
    TRIAL_END,
    Clock,
    campaign_toml,
    make_server,
    mine,
    pair_file,
    phase_toml,
    register,
    stop,
    sts_lines,
    sts_run,
    text_score,
    upload,
)

pytest.importorskip("fastapi")

MC30_GOLD = "mc30/EN-MC-30.txt"  # the catalog path of mc30's gold (the records' ``data`` key)


def _changed_gold(mc30, folder: Path) -> tuple[Path, list[float]]:
    """MC-30's gold with the first pair's score changed by hand (3.92 -> 0.2), as a file."""
    gold = [g for *_, g in mc30]
    gold[0] = 0.2
    path = folder / "EN-MC-30-fixed.txt"
    lines = [f"{a}\t{b}\t{g}\n" for (a, b, _), g in zip(mc30, gold, strict=True)]
    path.write_text("".join(lines), encoding="utf-8")
    return path, gold


def _board(client) -> dict[str, float]:
    board = client.get("/api/campaigns/lex25/phases/trial/leaderboard").json()
    column = board["columns"].index("mc30")
    return {row[1]: row[column] for row in board["rows"]}


def _mc30_record(records: list[dict]) -> dict:
    (found,) = [r for r in records if r["benchmark"] == "mc30"]
    return found


def test_replacing_gold_rescores_keeps_history_and_scores_new_runs_against_it(
    srv, mc30, tmp_path
) -> None:
    from simeval.serve.service.gold_replace import replace_gold
    from simeval.serve.service.organisers import audit_log
    from simeval.serve.service.rescoring import history

    server, clock = srv
    client, service = server.client, server.app.state.service
    old_gold = [g for *_, g in mc30]
    alpha = register(client, "alpha")
    data, scores = pair_file(mc30, 5)
    first = upload(client, alpha, data, target="mc30").json()
    beta = register(client, "beta")
    assert upload(client, beta, pair_file(mc30, 6)[0], target="mc30").status_code == 201
    path, new_gold = _changed_gold(mc30, tmp_path)
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    before = spearmanr(old_gold, scores).statistic
    after = spearmanr(new_gold, scores).statistic
    assert abs(after - before) > 1e-3  # the hand-made change moves alpha's score

    dry = replace_gold(
        service, "lex25", "mc30", path, "fixed.txt", clock.now, "organiser:Ada", apply=False
    )
    assert not dry.rescore.applied and dry.after == sha and len(dry.rescore.moved) == 2
    assert _board(client)["alpha run 1"] == pytest.approx(before, abs=1e-12)  # nothing changed
    assert audit_log(server.db) == []

    done = replace_gold(service, "lex25", "mc30", path, "fixed.txt", clock.now, "organiser:Ada")
    assert done.targets == ["mc30"] and done.after == sha and done.rescore.submissions == 2
    moved = {c.system: c for c in done.rescore.moved}
    assert moved["alpha run 1"].before == pytest.approx(before, abs=1e-12)
    assert moved["alpha run 1"].after == pytest.approx(after, abs=1e-12)
    assert _board(client)["alpha run 1"] == pytest.approx(after, abs=1e-12)
    old = history(server.db, first["id"])
    assert len(old) == 1 and old[0].reason.startswith("gold of mc30 replaced (sha256 ")
    assert _mc30_record(old[0].results)["metrics"]["spearman"] == pytest.approx(before, abs=1e-12)
    assert _mc30_record(old[0].results)["data"][MC30_GOLD] != sha
    from simeval.serve.db.models import Submission

    with server.db.reading() as s:
        record = _mc30_record(s.get(Submission, first["id"]).results)
    assert record["data"] == {MC30_GOLD: sha}  # the same key, the new file's sha256
    log = audit_log(server.db)
    assert [e.action for e in log] == ["re-score", "gold-replace"]
    assert log[1].detail == {
        "benchmark": "mc30",
        "file": "fixed.txt",
        "before": dry.before,
        "after": sha,
    }
    stored = service.storage.root / "gold" / "1" / sha
    assert stored.read_bytes() == path.read_bytes() and stored.stat().st_mode & 0o777 == 0o600

    # a run uploaded after the replacement is scored against the new gold
    later, later_scores = pair_file(mc30, 7)
    assert upload(client, alpha, later, target="mc30").status_code == 201
    expected = spearmanr(new_gold, later_scores).statistic
    assert _board(client)["alpha run 2"] == pytest.approx(expected, abs=1e-12)
    assert _mc30_record(_records(server, alpha, 2))["data"] == {MC30_GOLD: sha}

    # a restarted server (a new app on the same folder) keeps the replaced gold
    from fastapi.testclient import TestClient

    from simeval.serve.app import create_app

    server.app.state.service.close()
    stop(server.app)
    restarted = create_app(server.url, server.files, clock=clock, rate_limits={}, scorers=1)
    with TestClient(restarted) as again:  # with a scoring process: the job carries the gold
        third, third_scores = pair_file(mc30, 8)
        assert upload(again, beta, third, target="mc30").status_code == 201
        expected = spearmanr(new_gold, third_scores).statistic
        assert _board(again)["beta run 2"] == pytest.approx(expected, abs=1e-12)


def test_replacing_one_targets_gold_leaves_the_other_targets_runs_alone(
    srv, mc30, rg65, tmp_path
) -> None:
    """Runs on mc30 and on rg65; mc30's gold is replaced: only the mc30 run is scored again
    (dry run and applied). The rg65 run keeps its stored record and results file, gains no
    history row and no re-scoring folder, and its board score is still scipy's on rg65."""
    from simeval.serve.db.models import Submission
    from simeval.serve.service.gold_replace import replace_gold
    from simeval.serve.service.rescoring import RESCORED, history

    server, clock = srv
    client, service = server.client, server.app.state.service
    alpha = register(client, "alpha")
    on_mc30 = upload(client, alpha, pair_file(mc30, 13)[0], target="mc30").json()["id"]
    data, rg65_scores = pair_file(rg65, 14)
    on_rg65 = upload(client, alpha, data, target="rg65").json()["id"]
    with server.db.reading() as s:
        kept = s.get(Submission, on_rg65)
        kept_results, kept_file = kept.results, kept.results_file
    path, _ = _changed_gold(mc30, tmp_path)
    clock.now += timedelta(hours=1)

    dry = replace_gold(service, "lex25", "mc30", path, "fixed.txt", clock.now, "me", apply=False)
    assert dry.rescore.submissions == 1
    assert {c.target for c in dry.rescore.changes} == {"mc30"}
    done = replace_gold(service, "lex25", "mc30", path, "fixed.txt", clock.now, "me")
    assert done.targets == ["mc30"] and done.rescore.submissions == 1
    assert {c.target for c in done.rescore.changes} == {"mc30"}
    assert len(history(server.db, on_mc30)) == 1
    assert history(server.db, on_rg65) == []
    with server.db.reading() as s:
        row = s.get(Submission, on_rg65)
        assert (row.results, row.results_file) == (kept_results, kept_file)
    assert not (service.storage.folder(on_rg65) / RESCORED).exists()
    board = client.get("/api/campaigns/lex25/phases/trial/leaderboard").json()
    (score,) = [r[board["columns"].index("rg65")] for r in board["rows"] if r[1] == "alpha run 1"]
    expected = spearmanr([g for *_, g in rg65], rg65_scores).statistic
    assert score == pytest.approx(expected, abs=1e-12)


def _records(server, token: str, run: int) -> list[dict]:
    """The stored records of the team's run ``run`` of mc30 (by the team's API view)."""
    from simeval.serve.db.models import Submission

    found = [m for m in mine(server.client, token) if m["run"] == run and m["target"] == "mc30"]
    with server.db.reading() as s:
        return s.get(Submission, found[0]["id"]).results


def test_refusals_name_what_is_wrong_and_change_nothing(srv, mc30, data_dir, tmp_path) -> None:
    from simeval.errors import InputError
    from simeval.serve.service.gold_replace import replace_gold
    from simeval.serve.service.organisers import audit_log

    server, clock = srv
    service = server.app.state.service

    said: list[str] = []

    def replace(path: Path, benchmark: str = "mc30") -> None:
        try:
            replace_gold(service, "lex25", benchmark, path, path.name, clock.now, "organiser:Ada")
        except InputError as exc:
            said.append(str(exc))
            raise

    rows = [f"{a}\t{b}\t{g}\n" for a, b, g in mc30]
    same = tmp_path / "same.txt"  # the catalog's file, byte for byte
    same.write_bytes((data_dir / MC30_GOLD).read_bytes())
    with pytest.raises(InputError, match=r"nothing to replace: this is the gold of mc30 in use"):
        replace(same)
    other = tmp_path / "other.txt"  # the last pair swapped for a pair no participant was given
    other.write_text("".join(rows[:-1]) + "moon\tsun\t2.5\n", encoding="utf-8")
    a, b, _ = mc30[-1]
    with pytest.raises(InputError) as refused:
        replace(other)
    assert refused.value.message == (
        f"the new gold of mc30 has other pairs than the gold in use (1 pair(s) of the gold in "
        f"use missing: ({a} | {b}); 1 pair(s) not in it: (moon | sun)); a gold must keep the "
        "pairs participants were given"
    )
    broken = tmp_path / "broken.txt"
    broken.write_text("".join(rows[:3]) + f"{mc30[3][0]}\t{mc30[3][1]}\thigh\n" + "".join(rows[4:]))
    with pytest.raises(InputError, match="not a gold of mc30: ") as refused:
        replace(broken)
    assert refused.value.path == "broken.txt" and "/" not in str(refused.value)
    with pytest.raises(
        InputError,
        match=r"simlex999 is not scored in campaign lex25; "
        r"replaceable: mc30, rg65, sts12-msrvid, yp130",
    ):
        replace(same, "simlex999")
    assert audit_log(server.db) == []
    assert not (service.storage.root / "gold").exists()
    from fuzzing.test_surfaces import catalogued

    patterns = catalogued()  # every refusal is listed in docs/errors.md
    assert len(said) == 4 and all(any(p.search(m) for p in patterns) for m in said), said


def test_a_linking_target_has_no_gold_to_replace(tmp_path, serve_db) -> None:
    from simeval.errors import InputError
    from simeval.serve.service.gold_replace import replace_gold

    clock = Clock(OPENS + timedelta(days=1))
    campaign = campaign_toml("l25", phase_toml("test", ["xling-fr-en"], max_bytes=200_000))
    s = make_server(serve_db, tmp_path / "link", clock, campaign=campaign)
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\n")
    with pytest.raises(InputError) as refused:
        replace_gold(s.app.state.service, "l25", "xling-fr-en", qrels, "qrels", clock.now, "me")
    assert refused.value.message == (
        "xling-fr-en has no gold file to replace: a linking benchmark; replaceable: none"
    )
    s.db.dispose()


def test_the_campaign_page_lists_each_gold_and_its_source(srv, mc30, tmp_path) -> None:
    from simeval.serve.service.gold import gold_states
    from simeval.serve.service.gold_replace import replace_gold

    server, clock = srv
    service = server.app.state.service
    path, _ = _changed_gold(mc30, tmp_path)
    clock.now += timedelta(hours=1)
    replace_gold(service, "lex25", "mc30", path, "fixed.txt", clock.now, "organiser:Ada")
    states = {g.benchmark: g for g in gold_states(service, 1)}
    assert list(states) == ["mc30", "rg65", "sts12-msrvid", "yp130"]
    assert states["mc30"].sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert states["mc30"].source == "replaced by organiser:Ada at 2025-01-02 01:00 UTC (fixed.txt)"
    assert states["rg65"].source == "catalog" and states["rg65"].replaceable is None


def test_the_console_replaces_gold_with_a_preview_first(srv, mc30, tmp_path) -> None:
    from serve_kit import page_csrf
    from simeval.serve.service.organisers import add_organiser

    server, clock = srv
    client = server.client
    data, scores = pair_file(mc30, 9)
    upload(client, register(client, "alpha"), data, target="mc30")
    path, new_gold = _changed_gold(mc30, tmp_path)
    before = spearmanr([g for *_, g in mc30], scores).statistic
    after = spearmanr(new_gold, scores).statistic
    client.post(
        "/organiser/login",
        data={
            "csrf": page_csrf(client, "/organiser"),
            "token": add_organiser(server.db, "Ada", clock.now),
        },
    )
    page = client.get("/organiser/campaigns/lex25").text
    assert '<h2 id="gold">Gold</h2>' in page and "Replace and re-score" in page
    csrf = page_csrf(client, "/organiser/campaigns/lex25")

    def send(action: str, content: bytes, **fields: str):
        form = {"csrf": csrf, "benchmark": "mc30", "action": action, **fields}
        return client.post(
            "/organiser/campaigns/lex25/gold",
            data=form,
            files={"file": ("C:\\work\\fixed.txt", content)},
        )

    r = send("dry", path.read_bytes())
    assert r.status_code == 200 and "would be replaced (nothing kept yet)" in r.text
    assert f"{before:.6f}" in r.text and f"{after:.6f}" in r.text
    assert "Apply: keep the new scores" not in r.text  # that button re-scores with the old gold
    assert _board(client)["alpha run 1"] == pytest.approx(before, abs=1e-12)
    r = send("apply", path.read_bytes())
    assert r.status_code == 200 and "Re-scored: 1 submission(s), 1 score(s) moved" in r.text
    assert _board(client)["alpha run 1"] == pytest.approx(after, abs=1e-12)
    page = client.get("/organiser/campaigns/lex25").text
    assert "replaced by organiser:Ada at 2025-01-02 00:00 UTC (fixed.txt)" in page
    assert "gold-replace" in page  # the audit log
    r = send("apply", path.read_bytes())
    assert r.status_code == 422 and "nothing to replace" in r.text
    r = client.post(
        "/organiser/campaigns/lex25/gold",
        data={"csrf": "x", "benchmark": "mc30"},
        files={"file": ("g.txt", b"a\tb\t1\n")},
    )
    assert r.status_code == 403
    assert not list((server.files / "tmp").iterdir())  # no upload left behind


def test_the_preview_applies_its_own_file_without_choosing_it_again(srv, mc30, tmp_path):
    """Issue 46: the preview's Apply button keeps the file previewed (it was chosen again)."""
    import re

    from serve_kit import page_csrf
    from simeval.serve.service.organisers import add_organiser

    server, clock = srv
    client = server.client
    data, scores = pair_file(mc30, 9)
    upload(client, register(client, "alpha"), data, target="mc30")
    path, new_gold = _changed_gold(mc30, tmp_path)
    after = spearmanr(new_gold, scores).statistic
    token = add_organiser(server.db, "Ada", clock.now)
    client.post("/organiser/login", data={"csrf": page_csrf(client, "/organiser"), "token": token})
    csrf = page_csrf(client, "/organiser/campaigns/lex25")
    r = client.post("/organiser/campaigns/lex25/gold",
                    data={"csrf": csrf, "benchmark": "mc30", "action": "dry"},
                    files={"file": ("fixed.txt", path.read_bytes())})  # fmt: skip
    assert r.status_code == 200 and "would be replaced (nothing kept yet)" in r.text
    form = r.text.split('action="/organiser/campaigns/lex25/gold/apply"', 1)[1].split("</form>")[0]
    key = re.search(r'name="preview" value="([^"]+)"', form).group(1)
    csrf = re.search(r'name="csrf" value="([^"]+)"', form).group(1)
    r = client.post("/organiser/campaigns/lex25/gold/apply", data={"csrf": csrf, "preview": key})
    assert r.status_code == 200 and "Re-scored: 1 submission(s), 1 score(s) moved" in r.text
    assert _board(client)["alpha run 1"] == pytest.approx(after, abs=1e-12)
    assert "(fixed.txt)" in client.get("/organiser/campaigns/lex25").text
    r = client.post("/organiser/campaigns/lex25/gold/apply", data={"csrf": csrf, "preview": key})
    assert r.status_code == 422 and "choose the gold file again" in r.text  # used once
    assert not list((server.files / "tmp").iterdir())  # no upload left behind


def test_the_command_line_replaces_gold(tmp_path, mc30) -> None:
    from typer.testing import CliRunner

    from simeval.cli import app

    clock = Clock(OPENS + timedelta(days=1))
    server = make_server(f"sqlite:///{tmp_path / 'serve.db'}", tmp_path, clock)
    data, scores = pair_file(mc30, 10)
    upload(server.client, register(server.client, "alpha"), data, target="mc30")
    server.app.state.service.close()
    server.db.dispose()
    stop(server.app)
    path, new_gold = _changed_gold(mc30, tmp_path)
    before = spearmanr([g for *_, g in mc30], scores).statistic
    after = spearmanr(new_gold, scores).statistic
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    args = ["serve", "gold", str(tmp_path), "mc30", str(path), "-c", "lex25"]
    dry = CliRunner().invoke(app, [*args, "--dry-run"], env={"COLUMNS": "200"})
    assert dry.exit_code == 0, dry.output
    assert f"alpha run 1  mc30  mc30  spearman  {before:.6f} -> {after:.6f}" in dry.output
    assert "would replace the gold of mc30: sha256 " in dry.output and f"{sha[:12]}" in dry.output
    done = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert done.exit_code == 0 and "re-scored: 1 submission(s), 1 score(s) moved" in done.output
    again = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert again.exit_code == 2 and "nothing to replace" in again.output


@pytest.mark.slow
def test_the_console_gold_upload_in_chromium(serve_db, mc30, tmp_path) -> None:
    """An organiser signs in, replaces mc30's gold in the browser and sees the moves table:
    the score after equals scipy's on the new gold. Screenshots of the campaign page's Gold
    section and of the answer (copied to SIMEVAL_SHOTS when set)."""
    import os
    import shutil

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    from browser import chromium
    from serve_kit import live
    from simeval.serve.service.organisers import add_organiser

    pytest.importorskip("uvicorn")
    clock = Clock(OPENS + timedelta(days=1))
    server = make_server(serve_db, tmp_path / "server", clock)
    data, scores = pair_file(mc30, 11)
    upload(server.client, register(server.client, "alpha"), data, target="mc30")
    path, new_gold = _changed_gold(mc30, tmp_path)
    before = spearmanr([g for *_, g in mc30], scores).statistic
    after = spearmanr(new_gold, scores).statistic
    token = add_organiser(server.db, "Ada", clock.now)
    shots = []
    driver = chromium(1280, 1400)
    try:
        with live(server.app) as base:
            driver.get(f"{base}/organiser")
            driver.find_element(By.NAME, "token").send_keys(token)
            driver.find_element(By.CSS_SELECTOR, "form[action$='/login'] button").click()
            WebDriverWait(driver, 30).until(lambda d: "lex25" in d.page_source)
            driver.get(f"{base}/organiser/campaigns/lex25")
            form = driver.find_element(By.CSS_SELECTOR, "form[action$='/gold']")
            heading = driver.find_element(By.XPATH, "//h2[text()='Gold']")
            driver.execute_script("arguments[0].scrollIntoView()", heading)
            shots.append(tmp_path / "console-gold-section.png")
            assert driver.save_screenshot(str(shots[-1]))
            Select(form.find_element(By.NAME, "benchmark")).select_by_visible_text("mc30")
            form.find_element(By.NAME, "file").send_keys(str(path))
            form.find_element(By.CSS_SELECTOR, "button[value=apply]").click()
            WebDriverWait(driver, 30).until(lambda d: "Re-scored" in d.page_source)
            cells = driver.execute_script(
                "return [...document.querySelectorAll('table tbody tr')]"
                ".map(r => [...r.cells].map(c => c.textContent));"
            )
            shots.append(tmp_path / "console-gold-replaced.png")
            assert driver.save_screenshot(str(shots[-1]))
    finally:
        driver.quit()
        server.db.dispose()
    assert [c[:5] for c in cells] == [["trial", "alpha run 1", "mc30", "mc30", "spearman"]]
    assert float(cells[0][5]) == pytest.approx(before, abs=1e-6)
    assert float(cells[0][6]) == pytest.approx(after, abs=1e-6)
    keep = os.environ.get("SIMEVAL_SHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        for shot in shots:
            shutil.copy(shot, Path(keep) / shot.name)


def test_an_sts_gold_is_replaced_line_for_line(srv, data_dir, tmp_path) -> None:
    """STS: the gold is aligned with the input by line; a changed score re-scores (Pearson
    equals scipy's on the new gold), a line left blank (no longer scored) is another pair set."""
    import numpy as np
    from scipy.stats import pearsonr

    from simeval.errors import InputError
    from simeval.serve.service.gold_replace import replace_gold

    server, clock = srv
    client, service = server.client, server.app.state.service
    lines = (data_dir / "sts2012/test/STS.gs.MSRvid.txt").read_text().splitlines()
    gs = [float(x) for x in lines]
    published = sts_lines((data_dir / "sts2012/test/STS.input.MSRvid.txt").read_text("utf-8"))
    scores = np.array([text_score(p) for p in published])  # by pair: any order scores alike
    token = register(client, "alpha")
    handed = client.get("/campaigns/lex25/phases/trial/inputs/sts12-msrvid").text
    r = upload(client, token, sts_run(handed), target="sts12-msrvid")
    assert r.status_code == 201, r.text
    blank = tmp_path / "STS.gs.MSRvid.txt"
    blank.write_text("\n".join(["", *lines[1:]]) + "\n")
    with pytest.raises(InputError, match=r"1 pair\(s\) of the gold in use missing: \("):
        replace_gold(service, "lex25", "sts12-msrvid", blank, "gs.txt", clock.now, "me")
    fixed = tmp_path / "fixed.txt"
    fixed.write_text("\n".join(["0.000", *lines[1:]]) + "\n")
    done = replace_gold(service, "lex25", "sts12-msrvid", fixed, "fixed.txt", clock.now, "me")
    (change,) = done.rescore.moved
    assert change.before == pytest.approx(pearsonr(gs, scores).statistic, abs=1e-9)
    assert change.after == pytest.approx(pearsonr([0.0, *gs[1:]], scores).statistic, abs=1e-9)
    assert mine(client, token)[0]["results"][0]["score"] == pytest.approx(change.after, abs=1e-12)


def test_a_suite_members_gold_in_a_hidden_phase_shows_nothing_until_published(
    serve_db, data_dir, tmp_path
) -> None:
    """RUSSE's one-file suite: the gold of its member russe-hj is replaced; the run's hj score
    moves (scipy's Spearman over hj's pairs, the test's own alignment), the other members'
    scores do not, and in a hidden phase the team sees no score before publication."""
    import csv
    import io

    import numpy as np

    from simeval.serve.service.editing import publish
    from simeval.serve.service.gold_replace import replace_gold

    clock = Clock(OPENS + timedelta(days=1))
    campaign = campaign_toml("r25", phase_toml("final", ["russe"], max_bytes=2_000_000,
                                               hidden=True))  # fmt: skip
    server = make_server(serve_db, tmp_path / "srv", clock, campaign=campaign)
    client, service = server.client, server.app.state.service
    pairs = [
        tuple(r[:2]) for r in csv.reader(io.StringIO((data_dir / "russe/test.csv").read_text()))
    ][1:]
    pairs = list(dict.fromkeys(pairs))  # test.csv repeats some pairs: one score each
    scores = np.round(np.random.default_rng(13).random(len(pairs)), 6)
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(["word1", "word2", "sim"])
    writer.writerows((a, b, s) for (a, b), s in zip(pairs, scores, strict=True))
    token = register(client, "alpha", campaign="r25")
    r = upload(client, token, text.getvalue().encode(), phase="final", target="russe")
    assert r.status_code == 201, r.text
    score_of = dict(zip(pairs, scores, strict=True))
    hj = list(csv.reader(io.StringIO((data_dir / "russe/hj-test.csv").read_text())))
    header, rows = hj[0], hj[1:]
    gold = [float(g) for *_, g in rows]
    mine_ = [score_of[(a, b)] for a, b, _ in rows]
    rows[0][2] = "0.1"  # the first pair's judgement corrected by hand (0.958333 -> 0.1)
    fixed = tmp_path / "hj-test.csv"
    fixed.write_text("".join(",".join(r) + "\n" for r in [header, *rows]), encoding="utf-8")

    done = replace_gold(service, "r25", "russe-hj", fixed, "hj-test.csv", clock.now, "me")
    assert done.targets == ["russe"]
    moved = {c.benchmark: c for c in done.rescore.moved}
    assert set(moved) <= {"russe-hj", "russe"}  # the suite's sum moves with its member
    assert moved["russe-hj"].before == pytest.approx(spearmanr(gold, mine_).statistic, abs=1e-9)
    after = spearmanr([0.1, *gold[1:]], mine_).statistic
    assert moved["russe-hj"].after == pytest.approx(after, abs=1e-9)
    (view,) = mine(client, token)
    assert view["hidden"] is True and view["results"] is None  # the team sees no score
    board = client.get("/campaigns/r25/phases/final").text
    assert "alpha" not in board and f"{after:.3f}" not in board
    clock.now = TRIAL_END + timedelta(hours=1)  # the phase closed: its scores may be published
    publish(server.db, "r25", "final", clock.now, "me")
    results = mine(client, token)[0]["results"]
    (hj_score,) = [x["score"] for x in results if x["benchmark"] == "russe-hj"]
    assert hj_score == pytest.approx(after, abs=1e-12)
    server.db.dispose()


def test_a_run_scored_against_the_old_gold_during_the_replacement_is_scored_again(
    srv, mc30, tmp_path
) -> None:
    """An upload that read the old gold and was recorded after the re-scoring chose its runs
    (simulated: its records written back as the old gold gave them) is found by the records'
    gold sha256 and scored again against the new gold."""
    from simeval.serve.db.models import Submission
    from simeval.serve.service.gold_replace import replace_gold, rescore_late
    from simeval.serve.service.rescoring import history

    server, clock = srv
    client, service = server.client, server.app.state.service
    data, scores = pair_file(mc30, 14)
    sid = upload(client, register(client, "alpha"), data, target="mc30").json()["id"]
    with server.db.reading() as s:
        old_records = s.get(Submission, sid).results
    path, new_gold = _changed_gold(mc30, tmp_path)
    done = replace_gold(service, "lex25", "mc30", path, "fixed.txt", clock.now, "me")
    assert (
        rescore_late(service, "lex25", "mc30", MC30_GOLD, done.after, clock.now, "me", "-") is None
    )
    (old,) = history(server.db, sid)
    assert old.results == old_records
    with server.db.session() as s:  # as if scored against the old gold, recorded late
        row = s.get(Submission, sid)
        row.results, row.results_file = old.results, old.results_file
    late = rescore_late(service, "lex25", "mc30", MC30_GOLD, done.after, clock.now, "me", "late")
    assert late is not None and late.submissions == 1
    expected = spearmanr(new_gold, scores).statistic
    assert late.moved[0].after == pytest.approx(expected, abs=1e-12)
    assert _board(client)["alpha run 1"] == pytest.approx(expected, abs=1e-12)
