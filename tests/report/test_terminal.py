"""The one terminal table (:mod:`simeval.report.terminal`) on hand-made columns: parts at a
width, key columns in every part, priority first, long names numbered with a legend, prose
wrapped, everything whole when wide."""

from __future__ import annotations

import io

from rich.console import Console

from simeval.report.terminal import Column, Legend, TerminalTable

COLUMNS = [
    Column("rank", key=True, number=True),
    Column("system", key=True, name=True),
    *(Column(f"bench-{k}", number=True) for k in range(1, 9)),
    Column("sum", number=True, priority=1),
]
ALPHA = "a/long/path/to/a/system/that/differs/only/at/the/very/end/alpha"
BETA = "a/long/path/to/a/system/that/differs/only/at/the/very/end/beta"
ROWS = [["1", ALPHA, *["0.1234"] * 8, "0.9872"], ["2", BETA, *["0.0123"] * 8, "0.0984"]]


def _lines(table, width: int, wide: bool = False) -> tuple[list[list[str]], Legend]:
    legend = Legend()
    parts = []
    for part in table.parts(width, wide, legend):
        console = Console(width=10**5 if wide else width, record=True, file=io.StringIO())
        console.print(part.table)
        parts.append(console.export_text().splitlines())
    return parts, legend


def test_parts_fit_repeat_the_keys_and_put_the_sum_first() -> None:
    parts, legend = _lines(TerminalTable(COLUMNS, ROWS), 60)
    assert len(parts) > 1
    assert all(len(line) <= 60 for part in parts for line in part)
    heads = [next(line for line in part if "rank" in line) for part in parts]
    assert all("system" in h for h in heads)  # the keys in every part
    assert "sum" in heads[0] and all("sum" not in h for h in heads[1:])
    shown = [h.count("bench-") for h in heads]
    assert sum(shown) == 8  # each benchmark once
    # the long names: numbered by their place, told apart, given in full in the legend
    assert legend.shown == {"[1]": ALPHA, "[2]": BETA}
    rows = [line for line in parts[0] if line.startswith("│")]
    assert rows[0].split("│")[2].strip() == "[1]" and rows[1].split("│")[2].strip() == "[2]"
    assert legend.lines(30)[0] == "[1] a/long/path/to/a/system/"  # broken after a /


def test_wide_is_one_table_with_everything() -> None:
    parts, legend = _lines(TerminalTable(COLUMNS, ROWS), 60, wide=True)
    assert len(parts) == 1 and not legend.shown
    assert any(ALPHA in line for line in parts[0])
    assert all(f"bench-{k}" in parts[0][1] for k in range(1, 9))


def test_short_names_stay_and_prose_wraps() -> None:
    columns = [Column("name", key=True, name=True), Column("description", wrap=True)]
    text = "a description of many words that cannot fit on one line of forty characters"
    parts, legend = _lines(TerminalTable(columns, [["simlex999", text]]), 40)
    assert len(parts) == 1 and not legend.shown
    assert all(len(line) <= 40 for line in parts[0])
    body = " ".join(line.split("│")[2].strip() for line in parts[0] if line.startswith("│"))
    assert body == text


def test_one_name_one_number_across_tables() -> None:
    legend = Legend()
    first = TerminalTable(COLUMNS, ROWS).parts(60, legend=legend)
    second = TerminalTable(COLUMNS, ROWS[::-1]).parts(60, legend=legend)
    assert first and second and legend.shown == {"[1]": ALPHA, "[2]": BETA}
