"""``--help`` reads as click's convention and lists what a user reaches for first (issue 47,
stumble 5): arguments as ``MEASURE`` (required) and ``[FOLDER]`` (optional), never Typer's
``{measure}``; ``simeval --help`` starts with evaluate, results, report."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from simeval.cli import app

runner = CliRunner()


def _help(*command: str) -> str:
    done = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "80"}, prog_name="simeval")
    assert done.exit_code == 0, done.output
    return done.stdout


def _commands(text: str) -> list[str]:
    """The command names listed under "Commands:", in their order."""
    listed = text.split("Commands:", 1)[1]
    return [m.group(1) for m in re.finditer(r"^  (\S+)\s", listed, re.M)]


def test_usage_lines_name_arguments_in_capitals_without_braces() -> None:
    assert "Usage: simeval evaluate [OPTIONS] MEASURE\n" in _help("evaluate")
    assert "Usage: simeval results [OPTIONS] [FOLDER]\n" in _help("results")
    assert "Usage: simeval compare [OPTIONS] A B\n" in _help("compare")
    for command in [("score", "pairs"), ("data", "info"), ("predict",), ("report",)]:
        text = _help(*command)
        usage = text.splitlines()[0]
        assert not re.search(r"\{[a-z_]+\}", text), (command, usage)


def test_arguments_section_names_them_as_the_usage_line_does() -> None:
    text = _help("results")
    arguments = text.split("Arguments:", 1)[1].split("Options:", 1)[0]
    assert re.search(r"^  FOLDER\s", arguments, re.M), arguments


def test_commands_are_listed_by_what_a_user_reaches_for_first() -> None:
    names = _commands(_help())
    assert names[:7] == ["evaluate", "results", "report", "compare", "leaderboard", "score",
                         "predict"]  # fmt: skip
    assert sorted(names) == sorted(set(names)) and "serve" in names and "agreement" in names
    assert names.index("agreement") > names.index("evaluate")
