"""The shared-task server's web pages in headless Chromium, served by a real uvicorn on
127.0.0.1 (over SQLite and PostgreSQL): register, a bad file's error as `simeval score` prints
it, a good file, and the leaderboard: the team's rows highlighted, scores equal to scipy's,
sorting by every column, the countdown from the server's clock, and a screenshot that shows
the table (not a blank page) fitting a 1280 px and a 640 px window."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from scipy.stats import spearmanr

from browser import chromium
from serve_kit import (
    TRIAL_END,
    Clock,
    bad_file,
    gold,
    live,
    make_server,
    mine,
    pair_file,
    register,
    upload,
)

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("PIL.Image")  # the screenshot's pixels

# The server's clock stands this long before the trial deadline. The browser's clock is the
# machine's (after 2025), so a countdown from the browser's clock would say "closed".
LEFT = timedelta(days=3, hours=4, minutes=5, seconds=50)
LEFT_TEXT = "3 d 4 h 5 min"  # LEFT by hand, to the minute (the page drops the seconds)
TEST_LEFT_TEXT = "12 d 4 h 5 min"  # to the test phase's deadline, 9 days after the trial's
HIGHLIGHT = (0xFF, 0xF4, 0xC2)  # tr.mine's background in pages.STYLE
WAIT = 30  # seconds a page may take to appear


def spearman(pairs: list[tuple[str, str, float]], scores: list[float]) -> float:
    return float(spearmanr([g for *_, g in pairs], scores).statistic)


def board_rows(driver: Any) -> list[list[str]]:
    """The leaderboard's body as cell texts, top to bottom, with each row's class first."""
    return driver.execute_script(
        "return [...document.querySelectorAll('table.board tbody tr')]"
        ".map(r => [r.className, ...[...r.cells].map(c => c.textContent)]);"
    )


def sort_key(text: str, numeric: bool) -> Any:
    return float(text) if numeric else text


def check_sorted(rows: list[list[str]], j: int, direction: str, numeric: bool) -> None:
    """Column ``j`` (cell texts) is in ``direction`` order by Python's sorted(), with the
    missing values (– undefined, — no result) last."""
    values = [r[j + 1] for r in rows]
    present = [v for v in values if v not in ("–", "—")]
    missing = values[len(present) :]
    assert all(v in ("–", "—") for v in missing), values  # missing ones last
    keys = [sort_key(v, numeric) for v in present]
    assert keys == sorted(keys, reverse=direction == "descending"), (j, direction, values)


def wait_for(driver: Any, css: str) -> Any:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, WAIT).until(lambda d: d.find_element(By.CSS_SELECTOR, css))


def upload_in_page(driver: Any, base: str, path: Path, target: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver.get(f"{base}/campaigns/lex25")
    form = driver.find_element(By.CSS_SELECTOR, "form[action$='/phases/trial/upload']")
    Select(form.find_element(By.NAME, "target")).select_by_visible_text(target)
    form.find_element(By.CSS_SELECTOR, "input[type=file]").send_keys(str(path))
    form.find_element(By.TAG_NAME, "button").click()
    wait_for(driver, "a[href='/mine']")  # the upload's answer page


@pytest.mark.slow
def test_register_upload_and_leaderboard_in_chromium(serve_db, data_dir, tmp_path, monkeypatch):
    from selenium.webdriver.common.by import By

    from simeval.api import score
    from simeval.errors import InputError

    mc30 = gold(data_dir / "mc30" / "EN-MC-30.txt")
    rg65 = gold(data_dir / "rg65" / "EN-RG-65.txt")
    server = make_server(serve_db, tmp_path / "server", Clock(TRIAL_END - LEFT))
    client = server.client
    files = tmp_path / "files"
    files.mkdir()
    (files / "bad.csv").write_bytes(bad_file(mc30))
    good, good_scores = pair_file(mc30, 1)
    (files / "good.csv").write_bytes(good)
    monkeypatch.chdir(files)
    with pytest.raises(InputError) as offline:
        score("mc30", Path("bad.csv"))
    expected_error = str(offline.value)  # as `simeval score bad.csv` prints it

    # two other teams: alpha with 2 runs of both targets, beta without a second rg65 run
    expected: dict[str, dict[str, float]] = {}
    for team, seed, targets in (
        ("alpha", 10, [("mc30", mc30), ("rg65", rg65)] * 2),
        ("beta", 20, [("mc30", mc30), ("rg65", rg65), ("mc30", mc30)]),
    ):
        token = register(client, team)
        for k, (target, pairs) in enumerate(targets):
            data, scores = pair_file(pairs, seed + k)
            r = upload(client, token, data, target=target)
            assert r.status_code == 201, r.text
            system = f"{team} run {r.json()['run']}"
            expected.setdefault(system, {})[target] = spearman(pairs, scores)

    driver = chromium()
    try:
        with live(server.app) as base:
            driver.get(f"{base}/campaigns/lex25")
            countdowns = driver.find_elements(By.CSS_SELECTOR, "[data-deadline]")
            assert [c.text for c in countdowns] == [LEFT_TEXT, TEST_LEFT_TEXT]
            form = driver.find_element(By.CSS_SELECTOR, "form[action$='/register']")
            form.find_element(By.NAME, "team").send_keys("web")
            form.find_element(By.TAG_NAME, "button").click()
            wait_for(driver, "code")
            codes = [c.text for c in driver.find_elements(By.TAG_NAME, "code")]
            (token,) = [c for c in codes if c.startswith("st_")]
            assert mine(client, token) == []  # the shown token is the team's

            upload_in_page(driver, base, files / "bad.csv", "mc30")
            shown = driver.find_element(By.CSS_SELECTOR, "p.error").text
            assert shown == expected_error
            assert shown.startswith("bad.csv:4:")  # the client's name and the bad line
            upload_in_page(driver, base, files / "good.csv", "mc30")
            rho = spearman(mc30, good_scores)
            assert f"mc30: spearman {rho:.4f}" in driver.find_element(By.TAG_NAME, "body").text
            assert sorted((m["status"], m["run"]) for m in mine(client, token)) == [
                ("rejected", None),
                ("scored", 1),
            ]
            expected["web run 1"] = {"mc30": rho}
            for k, (target, pairs) in enumerate([("mc30", mc30), ("rg65", rg65), ("rg65", rg65)]):
                data, scores = pair_file(pairs, 30 + k)
                r = upload(client, token, data, target=target)
                assert r.status_code == 201, r.text
                expected.setdefault(f"web run {r.json()['run']}", {})[target] = spearman(
                    pairs, scores
                )

            driver.get(f"{base}/campaigns/lex25/phases/trial")
            shown_left = driver.find_element(By.CSS_SELECTOR, ".countdown [data-deadline]")
            assert shown_left.text == LEFT_TEXT
            # the page's script, run again, counts from the server's time, not the browser's
            assert driver.execute_script("return Date.now() / 1000") > TRIAL_END.timestamp()
            again = driver.execute_script(
                "const e = document.querySelector('.countdown [data-deadline]');"
                "e.textContent = ''; tick(); return e.textContent;"
            )
            assert again == LEFT_TEXT

            page_text = driver.find_element(By.TAG_NAME, "body").text
            assert "2 run(s) per target" in page_text  # the trial phase's run limit
            assert "dominated" in page_text and "sum adds them" in page_text  # the note

            heads = driver.find_elements(By.CSS_SELECTOR, "table.board thead th")
            columns = [h.text.rstrip(" ↕▲▼") for h in heads]
            assert columns == ["rank", "system", "mc30", "rg65", "sts12-msrvid", "sum"]
            rows = board_rows(driver)
            assert len(rows) == 6  # 3 teams x 2 runs, every run listed
            by_system = {r[2]: r for r in rows}
            assert set(by_system) == set(expected)
            for system, scores in expected.items():
                row = by_system[system]
                assert row[0] == ("mine" if system.startswith("web ") else "")
                for j, target in ((3, "mc30"), (4, "rg65")):
                    want = f"{scores[target]:.4f}" if target in scores else "—"
                    assert row[j] == want, (system, target)
                assert row[5] == "—"  # nobody sent sts12-msrvid: a column all the same
                assert row[6] == f"{sum(scores.values()):.4f}"
            # ranked at first by sum, a run missing a target after every complete one
            ranked = [("—" in r[3:5], -float(r[6])) for r in rows]
            assert ranked == sorted(ranked), rows
            assert any(r[3] == "—" or r[4] == "—" for r in rows)  # there is one to rank

            first = {"rank": "descending", "system": "ascending"}  # rank starts ascending
            for j, (head, name) in enumerate(zip(heads, columns, strict=True)):
                direction = first.get(name, "descending")  # scores: best first
                for _ in range(2):
                    head.click()
                    assert head.get_attribute("aria-sort") == direction
                    others = [h.get_attribute("aria-sort") for h in heads if h != head]
                    assert others == [None] * 5  # one indicator at a time
                    rows = board_rows(driver)
                    check_sorted(rows, j, direction, numeric=name != "system")
                    assert {r[2]: r for r in rows} == by_system  # rows moved whole
                    direction = "ascending" if direction == "descending" else "descending"

            driver.refresh()  # the shots show the table as it opens: ranked, rank ▲
            wait_for(driver, "table.board thead th[aria-sort=ascending]")
            shots = {}
            for width in (1280, 640):
                driver.set_window_size(width, 1000)
                fits = driver.execute_script(
                    "const t = document.querySelector('table.board'), d = document.documentElement;"
                    "return [t.scrollWidth <= t.parentElement.clientWidth,"
                    " d.scrollWidth <= d.clientWidth, window.innerWidth];"
                )
                assert fits[:2] == [True, True], (width, fits)
                shots[width] = tmp_path / f"board-{width}.png"
                assert driver.save_screenshot(str(shots[width]))
    finally:
        driver.quit()

    from PIL import Image

    for width, shot in shots.items():
        pixels = Image.open(shot).convert("RGB")
        colours = dict((c, n) for n, c in pixels.getcolors(maxcolors=1 << 24))
        assert len(colours) > 50, width  # text and table drawn, not a blank page
        assert colours.get(HIGHLIGHT, 0) > 2000, width  # the team's two rows highlighted
