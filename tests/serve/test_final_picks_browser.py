"""In headless Chromium, a team of a split phase registers, uploads three runs from the page,
sees its public scores, and picks its final runs on its page (issue 32: "a team ... picks its
final runs"); the screenshot of its page is kept for a person to look at
(``SIMEVAL_SHOTS``: a folder to copy it into)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import spearmanr

from browser import chromium
from serve_kit import gold, live, pair_file
from split_kit import YP130, drawn_public, seed_of, split_server

WAIT = 30  # seconds a page may take to appear


def _shows(driver, path: str, text: str) -> None:
    """Wait for the page at ``path`` (the answer to a form just sent, not the page the form
    was on) to show ``text``."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    def ready(d) -> bool:
        try:
            body = d.find_element(By.TAG_NAME, "body").text
        except WebDriverException:  # the page changed under us
            return False
        return d.current_url.endswith(path) and text in body

    WebDriverWait(driver, WAIT).until(ready)


@pytest.mark.slow
def test_a_team_picks_its_final_runs_in_chromium(serve_db, data_dir, tmp_path) -> None:
    from selenium.webdriver.common.by import By

    pytest.importorskip("PIL.Image")
    made = split_server(tmp_path, serve_db)
    server, _ = next(made)
    pairs = gold(data_dir / YP130)
    g = np.array([x for *_, x in pairs])
    public = drawn_public(seed_of(server), pairs, 0.3)
    files, expected = [], []
    for seed in range(3):
        data, scores = pair_file(pairs, 40 + seed)
        files.append(tmp_path / f"run{seed + 1}.csv")
        files[-1].write_bytes(data)
        s = np.array(scores)
        expected.append(float(spearmanr(g[public], s[public]).statistic))

    driver = chromium(1200, 900)
    try:
        with live(server.app) as base:
            driver.get(f"{base}/campaigns/priv25")
            assert "public 30% of the pairs" in driver.find_element(By.TAG_NAME, "body").text
            form = driver.find_element(By.CSS_SELECTOR, "form[action$='/register']")
            form.find_element(By.NAME, "team").send_keys("web")
            form.find_element(By.TAG_NAME, "button").click()
            _shows(driver, "/register", "token")
            for path in files:
                driver.get(f"{base}/campaigns/priv25")
                form = driver.find_element(By.CSS_SELECTOR, "form[action$='/phases/dev/upload']")
                form.find_element(By.CSS_SELECTOR, "input[type=file]").send_keys(str(path))
                form.find_element(By.TAG_NAME, "button").click()
                _shows(driver, "/upload", "public spearman")
            driver.get(f"{base}/mine")
            body = driver.find_element(By.TAG_NAME, "body").text
            for rho in expected:
                assert f"yp130: public spearman {rho:.4f}" in body
            assert "Final: run 2, run 3 (your last 2 (the default))" in body
            boxes = {
                b.get_attribute("name"): b
                for b in driver.find_elements(By.CSS_SELECTOR, "form.finals input[type=checkbox]")
            }
            assert [n for n, b in boxes.items() if b.is_selected()] == ["run-2", "run-3"]
            boxes["run-2"].click()  # unpick run 2, pick run 1
            boxes["run-1"].click()
            driver.find_element(By.CSS_SELECTOR, "form.finals button").click()
            _shows(driver, "/mine", "picked by your team")
            body = driver.find_element(By.TAG_NAME, "body").text
            assert "Final: run 1, run 3 (picked by your team)" in body
            checked = driver.find_elements(By.CSS_SELECTOR, "form.finals input:checked")
            assert [b.get_attribute("name") for b in checked] == ["run-1", "run-3"]
            shot = tmp_path / "final-runs.png"
            assert driver.save_screenshot(str(shot))
    finally:
        driver.quit()
        next(made, None)

    from PIL import Image

    colours = Image.open(shot).convert("RGB").getcolors(maxcolors=1 << 24)
    assert len(colours) > 50  # text and forms drawn, not a blank page
    if os.environ.get("SIMEVAL_SHOTS"):
        shutil.copy(shot, Path(os.environ["SIMEVAL_SHOTS"]) / shot.name)
