"""The command-line reference page, generated from the command definitions themselves: every
command and group, its usage, its help and a table of its arguments and options.

``python -m simeval.cli.reference > docs/reference/cli.md`` writes the page; a test keeps the
committed page equal to it, so the reference cannot drift from the code."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import typer

from simeval.cli import app

HEADER = """# Command-line reference

Generated from the command definitions by `python -m simeval.cli.reference`; do not edit by
hand. `simeval COMMAND --help` prints the same text at your terminal's width.

Every command exits with status 0 on success and 2 when an input is wrong, with one line that
names the file, the line or key, and what was expected ([Errors](../errors.md)).
"""


def commands(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every command under ``command`` (itself first), depth first, in the order ``--help``
    lists them, with the words that call it."""
    yield path, command
    if hasattr(command, "list_commands"):
        context = typer.Context(command)
        for name in command.list_commands(context):
            sub = command.get_command(context, name)
            if sub is not None and not sub.hidden:
                yield from commands(sub, (*path, name))


def _markdown(text: str) -> str:
    """Help text as Markdown that shows it as written: outside backtick spans, the characters
    Markdown would read as emphasis, links or HTML are escaped."""
    parts = text.split("`")
    for i in range(0, len(parts), 2):  # the even parts lie outside backticks
        parts[i] = re.sub(r"([\\*_<>\[\]#])", r"\\\1", parts[i])
    return "`".join(parts)


def _cell(text: str) -> str:
    return _markdown(" ".join(text.split())).replace("|", "\\|")


def section(path: tuple[str, ...], command: Any) -> str:
    """One command's part of the page: its help, usage, and its arguments and options as
    ``--help`` describes them (defaults and environment variables included)."""
    title = " ".join(("simeval", *path))
    context = typer.Context(command, info_name=title)
    usage = " ".join(command.collect_usage_pieces(context))
    lines = [f"{'#' * (1 + max(1, len(path)))} `{title}`", ""]
    if command.help:
        lines += [_markdown(command.help.strip()), ""]
    lines += ["```text", f"{title} {usage}".rstrip(), "```", ""]
    rows = []
    for param in command.params:
        record = param.get_help_record(context)
        if record is None or "--help" in record[0]:
            continue
        names, help_text = record
        rows.append(f"| `{_cell(names)}` | {_cell(help_text)} |")
    if rows:
        lines += ["| argument or option | meaning |", "|---|---|", *rows, ""]
    if hasattr(command, "list_commands"):
        listed = [
            f"- [`{title} {name}`](#{_anchor(f'{title} {name}')})"
            for name in command.list_commands(context)
        ]
        lines += ["Commands:", "", *listed, ""]
    return "\n".join(lines)


def _anchor(title: str) -> str:
    """The anchor mkdocs gives a heading ``` `title` ```: lower case, spaces as hyphens."""
    return "-".join(title.lower().split())


def markdown_page() -> str:
    root = typer.main.get_command(app)
    parts = [HEADER] + [section(path, command) for path, command in commands(root)]
    return "\n".join(parts).rstrip() + "\n"


if __name__ == "__main__":
    print(markdown_page(), end="")
