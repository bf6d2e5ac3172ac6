"""The ``score`` commands' shared options are declared once (:class:`ScoreOptions`): every
command has the output's four (--results, --name, --json, --wide), and a shared option
reads the same in every command that takes it (names, help, default)."""

from __future__ import annotations

import typer

from simeval.cli import app

SCORE = ("file", "russe", "sts12", "sts", "pairs", "trec")
TAKES = {  # each command's shared options, as its --help listed them before the declaration
    "file": {"missing", "complete", "max_retrieved", "kind", "gold_column", "duplicates",
             "registry", "data_dir"},
    "russe": {"missing", "data_dir"},
    "sts12": {"data_dir"},
    "sts": set(),
    "pairs": {"kind", "gold_column", "duplicates", "missing", "registry", "data_dir"},
    "trec": {"complete", "max_retrieved"},
}  # fmt: skip
OUTPUT = {"keep", "name", "as_json", "wide"}


def _commands() -> dict:
    root = typer.main.get_command(app)
    group = root.get_command(typer.Context(root), "score")
    context = typer.Context(group)
    return {name: group.get_command(context, name) for name in SCORE}


def test_each_score_command_has_its_shared_options_the_same_everywhere() -> None:
    seen: dict[str, tuple] = {}
    for name, command in _commands().items():
        shared = {p.name: p for p in command.params if p.name in {*OUTPUT, *TAKES["file"]}}
        assert set(shared) == TAKES[name] | OUTPUT, name
        last = [p.name for p in command.params][-4:]
        assert last == ["keep", "name", "as_json", "wide"], name
        for option, p in shared.items():
            shown = (tuple(p.opts), p.help, p.default)
            assert seen.setdefault(option, shown) == shown, (name, option)
    assert seen["keep"][0] == ("--results",) and seen["as_json"][0] == ("--json",)
