"""Headless Chromium for the tests that open pages in a real browser (the HTML report, the
shared-task server's pages): skipped where chromium or chromedriver is missing, a failure
instead when SIMEVAL_REQUIRE_BROWSER is set (as CI does)."""

from __future__ import annotations

import os
import shutil
from typing import Any

import pytest

FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def chromium(width: int = 1300, height: int = 2000) -> Any:
    """A selenium driver for headless Chromium with a ``width`` × ``height`` window."""
    webdriver = pytest.importorskip("selenium.webdriver")
    driver_path = shutil.which("chromedriver")
    browser = shutil.which("chromium")
    if not (driver_path and browser):
        if os.environ.get("SIMEVAL_REQUIRE_BROWSER"):
            pytest.fail(
                "chromium and chromedriver are required (apt install chromium chromium-driver)"
            )
        pytest.skip("no chromium/chromedriver on this machine")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in (*FLAGS, f"--window-size={width},{height}"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(driver_path), options=options)
