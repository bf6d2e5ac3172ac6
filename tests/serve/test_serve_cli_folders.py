"""Issue 44: a command that reads a server never makes one. `simeval serve backup NO_SUCH_FOLDER
-o OUT` exited 0 and wrote an empty server; `serve export --key` without `--anonymise` was
ignored without a word."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("fastapi")

from simeval.cli import app

READERS = [
    ["backup", "{folder}", "-o", "{out}"],
    ["export", "{folder}", "-c", "lex25", "-o", "{out}"],
    ["publish", "{folder}", "-c", "lex25", "--phase", "test"],
    ["audit", "{folder}"],
    ["organiser", "list", "{folder}"],
    ["audit-inputs", "{folder}", "-c", "lex25"],
]


@pytest.mark.parametrize("words", READERS, ids=lambda w: w[0] if w[0] != "organiser" else "list")
def test_a_command_that_reads_a_server_refuses_a_missing_folder(tmp_path: Path, words):
    folder, out = tmp_path / "no-such-server", tmp_path / "out"
    args = ["serve", *(w.format(folder=folder, out=out) for w in words)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert f"no server folder at {folder}" in result.output.replace("\n", " ")
    assert not folder.exists() and not out.exists()  # nothing made


def test_export_key_without_anonymise_is_refused(tmp_path: Path):
    folder = tmp_path / "srv"
    assert CliRunner().invoke(app, ["serve", "init", str(folder)]).exit_code == 0
    args = ["serve", "export", str(folder), "-c", "lex25", "-o", str(tmp_path / "out"),
            "--key", str(tmp_path / "key.csv")]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert "--key goes with --anonymise" in result.output
    assert not (tmp_path / "out").exists() and not (tmp_path / "key.csv").exists()
