"""Where records go when no folder is named: a folder of the user's own runs, apart from the
README's main job (which names ``results/main``), so one's experiments never join the main
job's leaderboard. ``SIMEVAL_RESULTS`` names another."""

from __future__ import annotations

import os
from pathlib import Path

RESULTS_ENV = "SIMEVAL_RESULTS"
DEFAULT_FOLDER = Path("results/mine")
HOW_TO_CHANGE = f"--results or {RESULTS_ENV} to change"


def default_folder() -> Path:
    """``SIMEVAL_RESULTS`` when set (and not empty), else :data:`DEFAULT_FOLDER`."""
    return Path(os.environ.get(RESULTS_ENV) or DEFAULT_FOLDER)
