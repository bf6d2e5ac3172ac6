"""A whole campaign in headless Chromium, on a real ``simeval serve run`` (SQLite and
PostgreSQL): after ``simeval serve campaign`` and ``simeval serve organiser add`` (the only
steps outside the browser), the organiser signs in, opens the phase, extends its deadline and
sets terms; a team registers accepting the terms, uploads a bad file (and sees why it was
refused) and two good ones (a second team uploads through the API); the organiser replaces the
gold and sees every run's score before and after, disqualifies one run with a reason, closes
the phase and publishes it; the public board then ranks the other runs with scipy's Spearman's
rho on the new gold and lists the disqualified one with its reason. Every organiser page and
the board are screenshotted at 1280 px (copied to SIMEVAL_SHOTS=DIR when set).

The campaign has a second phase, ``final``: a Kaggle-style split phase on yp130 (half its pairs
scored live, one final run per team), where the team uploads two runs from the page, sees their
public scores (scipy's over the public pairs the server's recorded seed draws) and picks its
first run as its final one on its *my submissions* page."""

from __future__ import annotations

import os
import re
import shutil
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest
from scipy.stats import spearmanr

from browser import chromium
from serve_kit import bad_file, campaign_toml, gold, pair_file, phase_toml
from split_kit import YP130, drawn_public
from test_serve_browser import wait_for
from test_serve_security import CliServer

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("PIL.Image")  # the screenshots' pixels

ISO = "%Y-%m-%dT%H:%M:%SZ"
WIDTH = 1280
REASON = "used the test gold"
TEST_FORM = "form.phase[action='/organiser/campaigns/walk25/phases/test']"
CONFIRM_FORM = "form.confirm[action='/organiser/campaigns/walk25/phases/test']"  # Close, Publish
TEST_HEADING = "//h3[starts-with(normalize-space(), 'test (')]"  # the test phase's, on the console
TEST_PARAGRAPH = f"{TEST_HEADING}/following-sibling::p[1]"
FINAL_SHARE = 0.5  # of yp130's pairs scored live in the phase final (verbs: none in mc30)
TERMS = "Teams **must not** look at the test gold.\n\nOne fact sheet per team."


@dataclass
class Walk:
    """What the steps share: the browser, the server, the files and what was seen."""

    driver: Any
    base: str
    folder: Path
    files: Path
    shots: Path
    db_kind: str
    mc30: list[tuple[str, str, float]]
    yp130: list[tuple[str, str, float]] = field(default_factory=list)
    db_url: str = ""
    expected: dict[str, float] = field(default_factory=dict)  # system -> scipy's rho
    scores: dict[str, list[float]] = field(default_factory=dict)  # system -> its file's
    taken: list[Path] = field(default_factory=list)

    def go(self, path: str) -> None:
        self.driver.get(self.base + path)

    def find(self, css: str) -> Any:
        return wait_for(self.driver, css)

    def submit(self, button: Any) -> None:
        """Click a form's ``button`` and wait for the page it loads (the old page gone: its
        elements, a message or a link, would otherwise be read as the answer's). The old page
        is marked and the new one awaited by script: Chromium may answer a question about an
        element of a page being left with an error instead of "stale"."""
        from selenium.common.exceptions import WebDriverException
        from selenium.webdriver.support.ui import WebDriverWait

        self.driver.execute_script("window.walkLeaving = true;")
        button.click()

        def arrived(driver: Any) -> bool:
            try:
                return driver.execute_script(
                    "return !window.walkLeaving && document.readyState === 'complete';"
                )
            except WebDriverException:  # between the two pages
                return False

        WebDriverWait(self.driver, 30).until(arrived)

    def lines(self, css: str) -> list[int]:
        """How many lines the text of each element ``css`` takes on the page."""
        return self.driver.execute_script(
            "return [...document.querySelectorAll(arguments[0])].map(c => {"
            " const r = document.createRange(); r.selectNodeContents(c);"
            " return r.getClientRects().length; });",
            css,
        )

    def text(self) -> str:
        return self.driver.find_element("tag name", "body").text

    def fill(self, form: Any, name: str, value: str) -> None:
        box = form.find_element("name", name)
        if box.get_attribute("type") == "datetime-local":  # typed as its segments: set it
            self.driver.execute_script("arguments[0].value = arguments[1];", box,
                                       value.removesuffix("Z"))  # fmt: skip
            return
        box.clear()
        box.send_keys(value)

    def shot(self, name: str, css: str | None = None) -> Path:
        """The whole page in a window 1280 px wide (or the element ``css`` of it): saved,
        checked to fit the width, kept."""
        d = self.driver
        d.set_window_size(WIDTH, 800)
        inner = d.execute_script("return [window.innerWidth, window.innerHeight];")
        height = d.execute_script("return document.documentElement.scrollHeight;")
        d.set_window_size(2 * WIDTH - inner[0], min(int(height), 6000) + 800 - inner[1])
        fits = d.execute_script(
            "const d = document.documentElement; return d.scrollWidth <= d.clientWidth;"
        )
        assert fits, f"{name}: the page is wider than {WIDTH} px"
        path = self.shots / f"{self.db_kind}-{name}.png"
        target = d.find_element("css selector", css) if css else d
        assert (target.screenshot if css else d.save_screenshot)(str(path))
        self.taken.append(path)
        return path


def spearman(pairs: list[tuple[str, str, float]], scores: list[float]) -> float:
    return float(spearmanr([g for *_, g in pairs], scores).statistic)


def cli(*args: str) -> str:
    """A ``simeval`` command run in-process (typer's runner); what it printed."""
    from typer.testing import CliRunner

    from simeval.cli import app

    done = CliRunner().invoke(app, list(args))
    assert done.exit_code == 0, done.output
    return done.output


def step_organiser_signs_in(w: Walk, token: str) -> None:
    w.go("/organiser")
    form = w.find("form[action='/organiser/login']")
    w.fill(form, "token", token)
    w.submit(form.find_element("tag name", "button"))
    w.find("a[href='/organiser/campaigns/walk25']")
    assert "walk25" in w.text() and "test: not open yet" in w.text(), w.text()
    w.shot("console-overview")


def phase_form(w: Walk) -> Any:
    w.go("/organiser/campaigns/walk25")
    return w.find(TEST_FORM)


def step_open_the_phase_and_extend_it(w: Walk) -> None:
    """The opening moved to now (the phase opens), then the deadline a day later."""
    form = phase_form(w)
    w.shot("console-campaign-before")
    before = form.find_element("name", "deadline").get_attribute("value") + "Z"  # UTC
    now = datetime.now(UTC).replace(microsecond=0)
    w.fill(form, "opens", f"{now:{ISO}}")
    w.submit(form.find_element("css selector", "button[value=save]"))
    shown = w.find("p.countdown").text
    assert shown.startswith("test: opens ") and f"→ {now:{ISO}}" in shown, shown
    assert "(open)" in w.driver.find_element("xpath", f"{TEST_HEADING}/small").text
    form = w.find(TEST_FORM)
    later = datetime.strptime(before, ISO).replace(tzinfo=UTC) + timedelta(days=1)
    w.fill(form, "deadline", f"{later:{ISO}}")
    w.submit(form.find_element("css selector", "button[value=save]"))
    assert w.find("p.countdown").text == f"test: deadline {before} → {later:{ISO}}"
    w.shot("console-phase-form", TEST_FORM)


def step_set_the_terms(w: Walk) -> None:
    w.go("/organiser/campaigns/walk25")
    form = w.find("form[action='/organiser/campaigns/walk25/texts']")
    w.fill(form, "terms", TERMS)
    w.submit(form.find_element("tag name", "button"))
    assert w.find("p.countdown").text == "description and terms saved"


def upload(w: Walk, path: Path, phase: str = "test") -> str:
    """Upload ``path`` to ``phase`` from the campaign's page; the answer page's text."""
    w.go("/campaigns/walk25")
    form = w.find(f"form[action='/campaigns/walk25/phases/{phase}/upload']")
    form.find_element("css selector", "input[type=file]").send_keys(str(path))
    w.submit(form.find_element("tag name", "button"))
    w.find("a[href='/mine']")
    return w.text()


def step_team_registers_and_uploads(w: Walk) -> None:
    """The terms shown and accepted; a refused file's reason shown, no run used; two runs."""
    w.go("/campaigns/walk25")
    assert "must not" in w.find("div.terms strong").text
    form = w.find("form[action='/campaigns/walk25/register']")
    w.fill(form, "team", "web")
    form.find_element("name", "accept_terms").click()
    w.submit(form.find_element("tag name", "button"))
    w.find("code")
    codes = [c.text for c in w.driver.find_elements("tag name", "code")]
    assert [c[:3] for c in codes if c.startswith("st_")] == ["st_"], codes
    said = upload(w, w.files / "bad.csv")
    assert "Not accepted (no run used)" in said
    assert w.find("p.error").text.startswith("bad.csv:4:")
    for run, seed in ((1, 7), (2, 8)):
        data, scores = pair_file(w.mc30, seed)
        path = w.files / f"run{run}.csv"
        path.write_bytes(data)
        said = upload(w, path)
        assert f"Received: run {run} of 2; scores hidden until published." in said, said
        w.scores[f"web run {run}"] = scores
        w.expected[f"web run {run}"] = spearman(w.mc30, scores)
    # another team, through the API (simeval submit's way), for a board of more than one
    with httpx.Client(base_url=w.base, trust_env=False, timeout=60) as http:
        answer = http.post("/api/campaigns/walk25/teams", json={"team": "beta",
                                                               "accept_terms": True})  # fmt: skip
        assert answer.status_code == 201, answer.text
        auth = {"authorization": f"Bearer {answer.json()['token']}"}
        for seed in (11, 12):
            data, scores = pair_file(w.mc30, seed)
            r = http.post("/api/phases/test/submissions", content=data, headers=auth,
                          params={"target": "mc30", "filename": "beta.csv"})  # fmt: skip
            assert r.status_code == 201, r.text
            w.scores[f"beta run {r.json()['run']}"] = scores
            w.expected[f"beta run {r.json()['run']}"] = spearman(w.mc30, scores)


def public_pairs(w: Walk, share: float) -> np.ndarray:
    """Which of yp130's pairs the ``final`` phase scores live, drawn by the test from the seed
    the server recorded (the organiser's to read, never shown to teams), by the rule the
    shared-task guide states (:func:`split_kit.drawn_public`)."""
    from sqlalchemy import create_engine, select

    from simeval.serve.db.models import Phase

    engine = create_engine(w.db_url)
    with engine.connect() as connection:
        seed = connection.execute(select(Phase.split_seed).where(Phase.name == "final")).scalar()
    engine.dispose()
    return drawn_public(str(seed), w.yp130, share)


def step_team_picks_its_final_runs(w: Walk) -> None:
    """In the split phase ``final`` web uploads two runs from the page, each answered with its
    public score (scipy's over the public pairs) and no other; on its page its last run is
    final by default, and it picks run 1 instead."""
    public = public_pairs(w, FINAL_SHARE)
    gold_scores = np.array([g for *_, g in w.yp130])
    assert 0 < public.sum() < len(w.yp130)
    for run, seed in ((1, 21), (2, 22)):
        data, scores = pair_file(w.yp130, seed)
        path = w.files / f"final{run}.csv"
        path.write_bytes(data)
        said = upload(w, path, "final")
        rho = spearmanr(gold_scores[public], np.array(scores)[public]).statistic
        assert f"public spearman {rho:.4f}" in said, said
        whole = spearman(w.yp130, scores)
        assert f"{whole:.4f}" not in said  # the score over every pair is not shown
    w.go("/mine")
    w.find("form.finals")
    assert "Final: run 2 (your last 1 (the default))." in w.text(), w.text()
    boxes = {
        b.get_attribute("name"): b
        for b in w.driver.find_elements("css selector", "form.finals input[type=checkbox]")
    }
    assert [n for n, b in boxes.items() if b.is_selected()] == ["run-2"]  # fmt: skip
    boxes["run-2"].click()
    boxes["run-1"].click()
    w.submit(w.find("form.finals button"))
    assert "Final: run 1 (picked by your team)." in w.text(), w.text()
    checked = w.driver.find_elements("css selector", "form.finals input:checked")
    assert [b.get_attribute("name") for b in checked] == ["run-1"]
    w.shot("team-final-runs")


def step_organiser_replaces_gold_and_sees_the_rescored_board(w: Walk) -> None:
    """The organiser replaces mc30's gold (the first pair's score corrected by hand, 3.92 ->
    0.2) on the console; the moves table lists every run, before (the old gold) and after
    (the new), each equal to scipy's; the board published later shows the new figures."""
    fixed = [(a, b, 0.2 if i == 0 else g) for i, (a, b, g) in enumerate(w.mc30)]
    path = w.files / "EN-MC-30-fixed.txt"
    path.write_text("".join(f"{a}\t{b}\t{g}\n" for a, b, g in fixed), encoding="utf-8")
    w.go("/organiser/campaigns/walk25")
    form = w.find("form[action='/organiser/campaigns/walk25/gold']")
    from selenium.webdriver.support.ui import Select

    Select(form.find_element("name", "benchmark")).select_by_visible_text("mc30")
    form.find_element("css selector", "input[type=file]").send_keys(str(path))
    w.submit(form.find_element("css selector", "button[value=apply]"))
    assert "The gold of mc30 replaced" in w.text(), w.text()
    moved = w.driver.execute_script(
        "return [...document.querySelectorAll('table tbody tr')]"
        ".map(r => [...r.cells].map(c => c.textContent));"
    )
    after = {system: spearman(fixed, scores) for system, scores in w.scores.items()}
    shown = {c[1]: (float(c[5]), float(c[6])) for c in moved}  # six decimals shown
    assert sorted(shown) == sorted(w.scores)
    for system, (before, now) in shown.items():
        assert before == pytest.approx(w.expected[system], abs=1e-6), system
        assert now == pytest.approx(after[system], abs=1e-6), system
    aligned = w.driver.execute_script(
        "return [...document.querySelectorAll('table tbody td:nth-child(n+6)')]"
        ".map(c => getComputedStyle(c).textAlign);"
    )
    assert set(aligned) == {"right"}, aligned  # the figures' digits line up
    w.shot("console-gold-replaced")
    w.expected.update(after)


def step_disqualify_close_and_publish(w: Walk) -> None:
    """Run 2 disqualified with a reason (listed on the console), the phase closed now, and
    its results published."""
    from selenium.webdriver.support.ui import Select

    w.go("/organiser/campaigns/walk25")
    form = w.find("form[action='/organiser/campaigns/walk25/phases/test/runs']")
    form.find_element("xpath", "./ancestor::details/summary").click()  # the test phase's
    Select(form.find_element("name", "system")).select_by_visible_text("web run 2")
    w.fill(form, "reason", REASON)
    w.submit(form.find_element("tag name", "button"))
    assert w.find("p.countdown").text == "web run 2: disqualified"
    assert w.find("ul.excluded li").text.startswith(f"web run 2: disqualified — {REASON}")
    w.find(f"{CONFIRM_FORM}:has(button[value=close]) input[name=confirm]").click()
    w.submit(w.find(f"{CONFIRM_FORM} button[value=close]"))
    assert w.find("p.countdown").text.startswith("test: deadline ")
    w.find(f"{CONFIRM_FORM}:has(button[value=publish]) input[name=confirm]").click()
    w.submit(w.find(f"{CONFIRM_FORM} button[value=publish]"))
    assert w.find("p.countdown").text == "test: published"
    said = w.driver.find_element("xpath", TEST_PARAGRAPH).text  # no longer "hidden until …"
    assert "scores hidden until published" not in said, said
    assert re.search(r"; hidden until its scores were published at [\d-]+ [\d:]+ UTC;", said)
    # each team's buttons on its row's line (a form in a cell once had the page's margins);
    # Revoke and Reset token, each with its confirm box, follow on their own lines
    offsets = w.driver.execute_script(
        "return [...document.querySelectorAll('td form:first-child button')].map(b =>"
        " b.getBoundingClientRect().top - b.closest('td').getBoundingClientRect().top);"
    )
    assert offsets and max(offsets) < 12, offsets
    w.shot("console-campaign")
    w.shot("console-audit-log", "div.audit")
    log = w.driver.execute_script(
        "return [...document.querySelectorAll('div.audit tbody tr')]"
        ".map(r => [...r.cells].map(c => c.textContent));"
    )
    # the times on one line, though the gold's entry has long checksums to show beside them
    assert w.lines("div.audit tbody td:first-child") == [1] * len(log)
    assert w.lines("div.audit tbody td:nth-child(3)") == [1] * len(log)  # the action too
    assert [(who, what) for _, who, what, _ in log] == [
        ("organiser:Ada", a) for a in
        ("publish", "edit phase", "disqualify", "re-score", "gold-replace", "edit texts",
         "edit phase", "edit phase")
    ], log  # fmt: skip


def step_the_board_shows_the_result(w: Walk) -> None:
    """The public board, once its rank tiers are computed: web's run 1 and beta's runs ranked
    by scipy's figures, web's run 2 under Not ranked with its reason; the submissions page
    lists all five uploads."""
    w.go("/organiser/campaigns/walk25/submissions")
    rows = w.driver.find_elements("css selector", "table tbody tr")
    assert len(rows) == 7  # web's three uploads to test and two to final, beta's two
    assert w.lines("tbody tr td:first-child") == [1] * 7  # the time received: one line
    w.shot("console-submissions")
    heads: list[str] = []
    for _ in range(240):  # the tiers are computed in the background: reload until shown
        w.go("/campaigns/walk25/phases/test")
        shown = w.driver.find_elements("css selector", "table.board thead th")
        heads = [h.text.rstrip(" ↕▲▼") for h in shown]
        if "tier" in heads:
            break
        time.sleep(0.5)
    assert heads[:4] == ["rank", "system", "mc30", "sum"] and "tier" in heads, heads
    cells = w.driver.execute_script(
        "return [...document.querySelectorAll('table.board tbody tr')]"
        ".map(r => [...r.cells].map(c => c.textContent));"
    )
    ranked = sorted(((s, r) for s, r in w.expected.items() if s != "web run 2"),
                    key=lambda x: -x[1])  # fmt: skip
    assert [c[:3] for c in cells] == [[str(k), s, f"{r:.4f}"] for k, (s, r) in enumerate(ranked, 1)]
    assert w.find("ul.excluded li").text == f"web run 2: disqualified — {REASON}"
    w.shot("board")


@pytest.mark.slow
def test_a_whole_campaign_in_the_browser(serve_db: str, data_dir: Path, tmp_path: Path) -> None:
    now = datetime.now(UTC).replace(microsecond=0)
    folder = tmp_path / "srv"
    campaign = tmp_path / "walk25.toml"
    test = phase_toml("test", ["mc30"], now + timedelta(days=1), now + timedelta(days=2),
                      max_bytes=100_000, hidden=True)  # fmt: skip
    final = phase_toml("final", ["yp130"], now - timedelta(hours=1), now + timedelta(days=2),
                       runs=2) + f"public_share = {FINAL_SHARE}\nfinal_runs = 1\n"  # fmt: skip
    campaign.write_text(campaign_toml("walk25", test + final, title="Walk-through 2025"), "utf-8")
    cli("serve", "campaign", str(folder), str(campaign), "--db", serve_db)
    printed = cli("serve", "organiser", "add", str(folder), "Ada", "--db", serve_db)
    (token,) = [t for t in printed.split() if t.startswith("so_")]
    mc30 = gold(data_dir / "mc30" / "EN-MC-30.txt")
    files, shots = tmp_path / "files", tmp_path / "shots"
    files.mkdir()
    shots.mkdir()
    (files / "bad.csv").write_bytes(bad_file(mc30))
    server = CliServer(folder, serve_db, tmp_path / "server.log")
    driver = chromium(WIDTH, 900)
    kind = "sqlite" if serve_db.startswith("sqlite") else "postgres"
    try:
        with server.running():
            w = Walk(driver, server.base, folder, files, shots, kind, mc30,
                     gold(data_dir / YP130), serve_db)  # fmt: skip
            step_organiser_signs_in(w, token)
            step_open_the_phase_and_extend_it(w)
            step_set_the_terms(w)
            step_team_registers_and_uploads(w)
            step_team_picks_its_final_runs(w)
            step_organiser_replaces_gold_and_sees_the_rescored_board(w)
            step_disqualify_close_and_publish(w)
            step_the_board_shows_the_result(w)
    finally:
        driver.quit()
    keep = os.environ.get("SIMEVAL_SHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        for shot in w.taken:
            shutil.copy(shot, Path(keep) / shot.name)
    from PIL import Image

    for shot in w.taken:
        colours = Image.open(shot).convert("RGB").getcolors(maxcolors=1 << 24)
        assert len(colours) > 50, shot.name  # text drawn, not a blank page
