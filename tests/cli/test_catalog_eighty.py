"""``simeval data list`` and ``data info`` at 80 columns (issue 47, stumble 6): no line
wider than the terminal, and words are not broken ("eval-word-vecto rs")."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from simeval.api.catalog import data_sets
from simeval.cli import app

WIDTH = 80


def _shown(*args: str) -> str:
    done = CliRunner().invoke(app, list(args), env={"COLUMNS": str(WIDTH)})
    assert done.exit_code == 0, done.output
    return done.stdout


def _too_wide(text: str) -> list[str]:
    return [line for line in text.splitlines() if len(line) > WIDTH]


def _words(text: str) -> set[str]:
    """Every word (between spaces or box rules) of the printed text."""
    return set(re.split(r"[\s│┃]+", text))


def test_data_list_keeps_every_word_of_titles_and_licences_whole() -> None:
    text = _shown("data", "list")
    assert not _too_wide(text)
    printed = _words(text)
    for entry in data_sets().values():
        for word in f"{entry.title} {entry.licence}".split():
            if len(word) <= 20:  # a longer one (a URL) may be folded
                assert word in printed, (entry.name, word)


@pytest.mark.parametrize("name", ["simlex999", "russe", "wordsets_en", "men"])
def test_data_info_fits_80_columns_and_says_it_all(name: str) -> None:
    text = _shown("data", "info", name)
    assert not _too_wide(text), _too_wide(text)
    entry = data_sets()[name]
    joined = " ".join(text.split())
    assert " ".join(entry.description.split()) in joined
    assert entry.upstream in re.sub(r"\n +", "", text)  # a URL broken across lines, unaltered
