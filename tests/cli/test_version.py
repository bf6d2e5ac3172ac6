"""`simeval --version` (issue 33, stumble 9; issue 47): the version the installed package's
metadata gives and the git commit the code is, and exit 0, before any command runs. From a
checkout the commit is its HEAD (git asked here, as the oracle); from a wheel, the one recorded
when the wheel was built (tests/packaging/test_wheel.py installs one)."""

from __future__ import annotations

import subprocess
import sys
import types
from importlib.metadata import version
from pathlib import Path

import pytest
from typer.testing import CliRunner

import simeval
from simeval.cli import app

CHECKOUT = Path(simeval.__file__).resolve().parents[2]


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(CHECKOUT), *args], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_version_is_the_installed_packages_and_the_checkouts_commit() -> None:
    if not (CHECKOUT / ".git").exists():
        pytest.skip("simeval is not imported from a git checkout")
    head = _git("rev-parse", "HEAD")
    dirty = "+dirty" if _git("status", "--porcelain", "--untracked-files=no") else ""
    done = CliRunner().invoke(app, ["--version"])
    assert done.exit_code == 0, done.output
    assert done.stdout.strip() == (
        f"simeval {version('simeval')} (git {head}{dirty}, the checkout at {CHECKOUT})"
    )
    assert "--version" in CliRunner().invoke(app, ["--help"]).stdout


def test_outside_a_checkout_the_version_names_the_commit_recorded_at_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the package is not in a checkout, the commit is simeval._build's, which the
    build writes; without that module the line says the commit is unknown."""
    from simeval import build_info

    monkeypatch.setattr(build_info, "ROOT", tmp_path)  # no .git there
    recorded = types.ModuleType("simeval._build")
    recorded.COMMIT = "0123456789abcdef0123456789abcdef01234567"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "simeval._build", recorded)
    done = CliRunner().invoke(app, ["--version"])
    assert done.stdout.strip() == (
        f"simeval {version('simeval')} (git {recorded.COMMIT}, recorded when it was built)"
    )
    monkeypatch.setitem(sys.modules, "simeval._build", None)  # import fails: none recorded
    done = CliRunner().invoke(app, ["--version"])
    assert done.stdout.strip() == f"simeval {version('simeval')} (git commit unknown)"
