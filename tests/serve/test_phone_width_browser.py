"""On a phone (390 × 844 CSS px, headless Chromium), no page of the server is wider than the
screen (issue 46: "the console is 672 px wide on a 390 px screen; the registration token runs
off the screen"): the console's campaign list and campaign page, the public campaign page,
the page that shows a new team its token, and the board. Tables scroll in their own box;
long tokens wrap. Each page's screenshot is kept in the test's folder (``SIMEVAL_SHOTS``: a
folder to copy them into too)."""

from __future__ import annotations

import os
import shutil
from datetime import timedelta
from pathlib import Path

import pytest

from browser import chromium
from serve_kit import OPENS, Clock, live, make_server, perturbed, register, upload

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("PIL.Image")

WIDTH, HEIGHT = 390, 844  # an iPhone 12-15's screen in CSS pixels
WAIT = 30


def _wait(driver, css: str):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, WAIT).until(lambda d: d.find_element(By.CSS_SELECTOR, css))


def _width(driver) -> int:
    return driver.execute_script("return document.scrollingElement.scrollWidth")


@pytest.mark.slow
def test_no_page_is_wider_than_a_phone(serve_db, tmp_path: Path, mc30, rg65) -> None:
    from selenium.webdriver.common.by import By

    from simeval.serve.service.editing import set_registration
    from simeval.serve.service.organisers import add_organiser

    clock = Clock(OPENS + timedelta(days=1))
    server = make_server(serve_db, tmp_path / "server", clock)
    client = server.client
    for k, team in enumerate(("alpha", "a-rather-long-team-name-from-the-lab", "gamma")):
        token = register(client, team)
        for target, pairs in (("mc30", mc30), ("rg65", rg65)):
            assert (
                upload(client, token, perturbed(pairs, 0.5 + k, k), target=target).status_code
                == 201
            )
    set_registration(server.db, "lex25", "approval", None, clock.now)
    register(client, "waiting-team")  # a pending team: the approve column
    organiser = add_organiser(server.db, "Ada", clock.now)
    shots = tmp_path / "shots"
    shots.mkdir()
    widths: dict[str, int] = {}
    driver = chromium(WIDTH, HEIGHT)
    try:
        # a window is at least 500 px wide in headless Chromium: the phone's screen is emulated
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": True,
        })  # fmt: skip
        with live(server.app) as base:

            def measure(name: str) -> None:
                widths[name] = _width(driver)
                assert driver.save_screenshot(str(shots / f"{name}.png"))

            driver.get(f"{base}/campaigns/lex25")
            form = driver.find_element(By.CSS_SELECTOR, "form[action$='/register']")
            # the page's viewport is the phone's width (meta viewport: device-width)
            assert driver.execute_script("return window.innerWidth") == WIDTH
            measure("campaign")
            form.find_element(By.NAME, "team").send_keys("web-team")
            form.find_element(By.TAG_NAME, "button").click()
            _wait(driver, "code.token")
            measure("registered-token")
            driver.get(f"{base}/campaigns/lex25/phases/trial")
            _wait(driver, "table.board")
            measure("board")
            driver.get(f"{base}/organiser")
            driver.find_element(By.NAME, "token").send_keys(organiser)
            driver.find_element(By.CSS_SELECTOR, "form[action$='/login'] button").click()
            _wait(driver, "a[href='/organiser/campaigns/lex25']")
            measure("console-home")
            driver.get(f"{base}/organiser/campaigns/lex25")
            _wait(driver, "nav.toc")
            measure("console-campaign")
            revoke = driver.find_element(
                By.XPATH, "//form[@class='confirm'][.//button[@value='revoke']]"
            )
            revoke.find_element(By.NAME, "confirm").click()
            revoke.find_element(By.CSS_SELECTOR, "button[value=revoke]").click()
            _wait(driver, "p[role=status]")
            measure("console-after-revoke")
            assert "revoked" in driver.find_element(By.CSS_SELECTOR, "p[role=status]").text
            assert driver.current_url.endswith("/organiser/campaigns/lex25#teams")
    finally:
        driver.quit()
        server.db.dispose()

    from PIL import Image

    for shot in sorted(shots.iterdir()):
        colours = Image.open(shot).convert("RGB").getcolors(maxcolors=1 << 24)
        assert len(colours) > 20, shot.name  # drawn, not a blank page
        if os.environ.get("SIMEVAL_SHOTS"):
            shutil.copy(shot, Path(os.environ["SIMEVAL_SHOTS"]) / shot.name)
    print("widths at 390 px:", widths, "screenshots:", sorted(p.name for p in shots.iterdir()))
    assert all(w <= WIDTH for w in widths.values()), widths
