"""The README's sections, code blocks and tables, and those of the docs pages that were its
sections (the guide, the commands, speed and data pages), for the tests that run what they
show. A section moved to a page is that page: its ``## Title`` became the page's ``# Title``."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
DOCS = README.parent / "docs"
# the pages that hold what the README used to, for the tests that check their numbers against
# their own oracles; which blocks are run, and by whom, is each block's marker
# (tests/docs/test_executable_docs.py), not this list
PAGES = [
    README,
    *sorted((DOCS / "guide").glob("*.md")),
    DOCS / "reference" / "commands.md",
    DOCS / "speed.md",
    DOCS / "data.md",
]


def shown_text() -> str:
    """The README and the pages that were its sections, one after the other."""
    return "\n\n".join(p.read_text(encoding="utf-8") for p in PAGES)


def section(title: str) -> str:
    """The text of the section headed ``title`` (``## Title``): in the README up to the next
    ``## `` heading, or the whole docs page whose title it now is."""
    text = README.read_text(encoding="utf-8")
    if title in text:
        start = text.index(title)
        end = text.find("\n## ", start + 1)
        return text[start : end if end >= 0 else len(text)]
    page_title = title.removeprefix("#")
    for page in PAGES[1:]:
        text = page.read_text(encoding="utf-8")
        if text.startswith(page_title + "\n"):
            return text
    raise ValueError(f"no section {title!r} in the README or its pages")


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
    """The first Markdown table after the line that starts with ``start`` (README first, then
    its pages)."""
    lines = shown_text().splitlines()
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
