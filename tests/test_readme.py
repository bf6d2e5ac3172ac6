"""Every `simeval` command the README shows (in code blocks and inline code) exists, and every
option it uses is one the command accepts: renaming a command or an option without updating
the README makes this fail."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simeval.cli import app

README = Path(__file__).resolve().parents[1] / "README.md"
GROUPS = {"data", "score", "build"}  # commands with sub-commands


def readme_commands() -> list[str]:
    """The `simeval …` commands inside fenced blocks and inline code of the README."""
    text = README.read_text(encoding="utf-8")
    code = re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.S)
    code += re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", text, flags=re.S))
    found: list[str] = []
    for block in code:
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("#", 1)[0]
            for part in re.split(r"&&|;|\|\|", line):
                part = part.strip()
                if part.startswith("do "):
                    part = part[3:].strip()
                if part.startswith("simeval "):
                    found.append(part)
    return list(dict.fromkeys(found))


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


COMMANDS = readme_commands()


def test_the_readme_shows_the_main_commands() -> None:
    shown = {" ".join(_words(c)[1:3]) for c in COMMANDS}
    for expected in ("evaluate encoder", "score file", "results results/main", "data list"):
        assert any(s.startswith(expected) for s in shown), expected
    assert len(COMMANDS) >= 30


@pytest.mark.parametrize("command", COMMANDS)
def test_readme_command_exists_with_its_options(command: str) -> None:
    words = _words(command)[1:]
    path = words[:2] if words[0] in GROUPS else words[:1]
    if path[-1] == "…":  # "simeval score … --results DIR": any scorer; `score file` stands in
        path = [path[0], "file"]
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, f"README shows `{command}`, but `simeval {' '.join(path)}` fails"
    help_text = result.stdout
    for word in words[len(path) :]:
        option = word.strip("[]").split("=")[0]
        if option.startswith("-") and option not in ("-", "--") and not option.startswith("-…"):
            assert option in help_text, f"README uses {option} with `simeval {' '.join(path)}`"
