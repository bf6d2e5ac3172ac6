"""The summary table at the top of the strong-baselines page: every "before" and "now" figure
is the one the table of its own section prints (each of those tables is checked against its
commands by its own test), and "reached" says what the figure and the goal say."""

from __future__ import annotations

import readme_text

PAGE = "guide/strong-baselines.md"
RUSSIAN = "guide/russian.md"
ZH = "`dictionary:csls=3,simplified=true,cedict=true,segment=headwords,names=true`"

# benchmark -> where its "before" and its "now" figures are: (page, column or measure, row);
# a column-style table has the measure as a column and the benchmark as a row, the zh table
# has one measure per row and success@1 as its second column
SOURCES = {
    "sts12": (
        (PAGE, "learned:model=models/sts12-combined", "sts12"),
        (PAGE, "learned:model=models/sts12-combined", "sts12"),
    ),
    "sts12-smteuroparl": (
        (PAGE, "learned:model=models/sts12-combined", "sts12-smteuroparl"),
        (PAGE, "learned:model=models/sts12-crossfit", "sts12-smteuroparl"),
    ),
    "simlex999": (
        (PAGE, "encoder:model=models/words-minilm", "simlex999"),
        (PAGE, "encoder:model=models/words-minilm", "simlex999"),
    ),
    "xling-hard-de": (
        (PAGE, "dictionary:csls=10,simplified=true", "xling-hard-de"),
        (PAGE, "dictionary:csls=10,simplified=true", "xling-hard-de"),
    ),
    "xling-hard-fr": (
        (PAGE, "dictionary:csls=10,simplified=true", "xling-hard-fr"),
        (PAGE, "dictionary:csls=10,simplified=true", "xling-hard-fr"),
    ),
    "xling-hard-zh": (
        (PAGE, "dictionary:csls=10,simplified=true", "xling-hard-zh"),
        (PAGE, "success@1", ZH),
    ),
    "russe-hj": (
        (PAGE, "graph:path=models/ru-graph,score=adamic_adar", "russe-hj"),
        (RUSSIAN, "navec", "russe-hj"),
    ),
    "russe-rt": (
        (PAGE, "walk + fastText fallback", "russe-rt"),
        (PAGE, "walk + fastText fallback", "russe-rt"),
    ),
    "russe-ae": (
        (PAGE, "graph:path=models/ru-graph,score=adamic_adar", "russe-ae"),
        (RUSSIAN, "combination", "russe-ae"),
    ),
    "russe-ae2": (
        (PAGE, "walk + fastText fallback", "russe-ae2"),
        (RUSSIAN, "navec", "russe-ae2"),
    ),
}


def _cell(page: str, column: str, row: str) -> str:
    """The cell of ``row`` (first cell) under ``column`` in the first table of ``page`` that
    has both, the summary table left out."""
    for table in readme_text.tables(readme_text.doc(page)):
        header = [c.strip("`") for c in table[0]]
        if "reached" in header or column not in header:
            continue
        for cells in table[2:]:
            if cells[0] == row:
                return cells[header.index(column)].strip("*")  # bold: the same figure
    raise AssertionError(f"no {column!r} cell for {row!r} in {page}")


def test_every_summary_figure_is_its_sections_and_reached_follows_from_the_goal() -> None:
    (summary,) = [t for t in readme_text.tables(readme_text.doc(PAGE)) if "reached" in t[0]]
    header = summary[0]
    rows = {cells[0]: dict(zip(header, cells, strict=True)) for cells in summary[2:]}
    assert set(rows) == set(SOURCES)
    for benchmark, (before, now) in SOURCES.items():
        row = rows[benchmark]
        assert row["before"] == _cell(*before), benchmark
        assert row["now"] == _cell(*now), benchmark
        assert float(row["now"]) >= float(row["before"]), benchmark
        met = float(row["now"]) >= float(row["goal"])
        assert row["reached"].startswith("yes" if met else "no"), benchmark
