"""`simeval --version` (issue 33, stumble 9): the version the installed package's metadata
gives, and exit 0, before any command runs."""

from __future__ import annotations

from importlib.metadata import version

from typer.testing import CliRunner

from simeval.cli import app


def test_version_is_the_installed_packages() -> None:
    done = CliRunner().invoke(app, ["--version"])
    assert done.exit_code == 0, done.output
    assert done.stdout.strip() == f"simeval {version('simeval')}"
    assert "--version" in CliRunner().invoke(app, ["--help"]).stdout
