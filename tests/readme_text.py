"""The README's sections, code blocks and tables, for the tests that run what it shows."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def section(title: str) -> str:
    """The text of the section headed ``title`` (up to the next ``## `` heading)."""
    text = README.read_text(encoding="utf-8")
    start = text.index(title)
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def blocks(text: str, kind: str) -> list[str]:
    """The fenced code blocks of ``kind`` (bash, toml, python) in ``text``."""
    return re.findall(rf"```{kind}\n(.*?)```", text, flags=re.S)


def tables(text: str) -> list[list[list[str]]]:
    """Every Markdown table in ``text``: rows of stripped cells, header and separator kept."""
    out: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in text.splitlines():
        if line.strip().startswith("|"):
            current.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif current:
            out.append(current)
            current = []
    return [*out, current] if current else out


def table_after(start: str) -> list[list[str]]:
    """The first Markdown table after the README line that starts with ``start``."""
    lines = README.read_text(encoding="utf-8").splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith(start))
    table: list[list[str]] = []
    for line in lines[first + 1 :]:
        if line.startswith("|"):
            table.append([c.strip() for c in line.strip("|").split("|")])
        elif table:
            break
    return table


def doc(name: str) -> str:
    """The text of ``docs/<name>``."""
    return (README.parent / "docs" / name).read_text(encoding="utf-8")
