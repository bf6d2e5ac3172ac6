"""In headless Chromium, an organiser signs in, creates a campaign by choosing its file on the
console's *New campaign* page (first a wrong one, shown again with the error beside the
field), and downloads the campaign's export as a zip (issue 46); screenshots of the refused
form and of the new campaign's page are kept in the test's folder (``SIMEVAL_SHOTS``: a
folder to copy them into)."""

from __future__ import annotations

import os
import shutil
import time
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest

from browser import chromium
from serve_kit import OPENS, TRIAL_END, Clock, campaign_toml, live, make_server, phase_toml

WAIT = 60  # seconds a page (or the download) may take


def _body(driver) -> str:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.TAG_NAME, "body").text


def _wait(driver, ready) -> None:
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    def safe(d) -> bool:
        try:
            return ready(d)
        except WebDriverException:  # the page changed under us
            return False

    WebDriverWait(driver, WAIT).until(safe)


def _drawn(shot: Path) -> None:
    from PIL import Image

    colours = Image.open(shot).convert("RGB").getcolors(maxcolors=1 << 24)
    assert len(colours) > 50  # text and forms drawn, not a blank page
    if os.environ.get("SIMEVAL_SHOTS"):
        shutil.copy(shot, Path(os.environ["SIMEVAL_SHOTS"]) / shot.name)


@pytest.mark.slow
def test_an_organiser_creates_a_campaign_and_downloads_its_export_in_chromium(
    serve_db, tmp_path
) -> None:
    from selenium.webdriver.common.by import By

    from simeval.serve.service.organisers import add_organiser

    pytest.importorskip("PIL.Image")
    server = make_server(serve_db, tmp_path / "srv", Clock(OPENS + timedelta(days=1)))
    token = add_organiser(server.db, "Ada", OPENS)
    good = tmp_path / "lex26.toml"
    good.write_text(campaign_toml("lex26", phase_toml("dev", ["mc30"], OPENS, TRIAL_END),
                                  title="Made in the browser"), encoding="utf-8")  # fmt: skip
    wrong = tmp_path / "wrong.toml"
    wrong.write_text(good.read_text().replace('"mc30"', '"mc31"'), encoding="utf-8")
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    driver = chromium(1200, 1400)
    try:
        driver.execute_cdp_cmd(
            "Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)}
        )
        with live(server.app) as base:
            driver.get(f"{base}/organiser")
            driver.find_element(By.NAME, "token").send_keys(token)
            driver.find_element(By.CSS_SELECTOR, "form[action$='/login'] button").click()
            _wait(driver, lambda d: "New campaign" in _body(d))
            driver.find_element(By.LINK_TEXT, "New campaign").click()
            for path in (wrong, good):
                _wait(driver, lambda d: d.current_url.endswith("/organiser/new-campaign"))
                form = driver.find_element(By.CSS_SELECTOR, "form.new-campaign")
                form.find_element(By.CSS_SELECTOR, "input[type=file]").send_keys(str(path))
                form.find_element(By.TAG_NAME, "button").click()
                if path == wrong:
                    _wait(driver, lambda d: d.find_elements(By.ID, "file-error"))
                    error = driver.find_element(By.ID, "file-error").text
                    assert error.startswith("wrong.toml") and "mc31" in error
                    assert "lex26" in driver.find_element(By.NAME, "text").get_attribute("value")
                    shot = tmp_path / "new-campaign-refused.png"
                    assert driver.save_screenshot(str(shot))
                    _drawn(shot)
            _wait(driver, lambda d: d.current_url.endswith("/organiser/campaigns/lex26"))
            assert "Made in the browser" in _body(driver)
            shot = tmp_path / "new-campaign-made.png"
            assert driver.save_screenshot(str(shot))
            _drawn(shot)
            driver.find_element(By.CSS_SELECTOR, "form.export input[name=anonymise]").click()
            driver.find_element(By.CSS_SELECTOR, "form.export button").click()
            end = time.monotonic() + WAIT
            found = downloads / "lex26-export-anonymised.zip"
            while not found.is_file() and time.monotonic() < end:
                time.sleep(0.2)
            assert found.is_file(), list(downloads.iterdir())
            time.sleep(0.5)  # the download's last bytes
            with zipfile.ZipFile(found) as z:
                assert "lex26-export/submissions.csv" in z.namelist()
    finally:
        driver.quit()
        server.db.dispose()
