"""Names reaching a terminal or a page (issue 30, hole 7): a benchmark, measure or registry
description holding ESC, OSC, BEL or CR shows no raw control byte in what ``results``,
``compare``, ``leaderboard`` (every format) and ``benchmarks`` print, and ``report`` over a
system named ``$\\frac{a$`` (mathtext that cannot be parsed) writes its page with the plot.

The names come from where a user puts them: a pair file's path (a path-named benchmark), a
Python measure's ``name=``, a registry file's ``description``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simeval.api import evaluate
from simeval.cli import app

runner = CliRunner()

# ESC [31m (colour), ESC ] 0;title BEL (OSC: retitles the window), CR (hides what precedes)
EVIL = "e\x1b[31mv\x1b]0;pwn\x07i\rl"
SHOWN = "e?[31mv?]0;pwn?i?l"  # each control character as ?, by hand
MATH = "$\\frac{a$"
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # C0 but tab and newline, DEL, C1


def _scores_a(pairs: list[tuple[str, str]]) -> list[float]:
    return [float(len(a) + len(b) + i % 3) for i, (a, b) in enumerate(pairs)]


def _scores_b(pairs: list[tuple[str, str]]) -> list[float]:
    return [float((i * 3) % 7) for i in range(len(pairs))]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A results folder: two systems, ``A`` + EVIL and MATH, on a pair file whose name holds
    EVIL (30 made-up pairs); and the gold file."""
    root = tmp_path_factory.mktemp("names")
    gold = root / f"g{EVIL}.tsv"
    rows = "".join(f"w{i}\tv{i}\t{(i * 7) % 10}\n" for i in range(30))
    gold.write_text("word1\tword2\tsim\n" + rows)
    evaluate(_scores_a, str(gold), name="A" + EVIL, results_dir=root / "res")
    evaluate(_scores_b, str(gold), name=MATH, results_dir=root / "res")
    return root / "res", gold


def _clean(args: list[str]) -> str:
    result = runner.invoke(app, args)
    assert result.exit_code == 0, (result.output, result.exception)
    assert not RAW.findall(result.output), sorted(set(RAW.findall(result.output)))
    return result.output


@pytest.mark.parametrize(
    "command",
    [
        ["results"],
        ["leaderboard"],
        ["leaderboard", "-f", "csv"],
        ["leaderboard", "-f", "latex"],
        ["leaderboard", "-f", "html", "--top", "2"],
        ["leaderboard", "-f", "markdown", "--top", "2"],
    ],
    ids=["results", "markdown", "csv", "latex", "html", "markdown-top"],
)
def test_listings_show_no_control_byte(recorded: tuple[Path, Path], command: list[str]) -> None:
    results, _ = recorded
    shown = _clean([*command, str(results)])
    # the names are shown (their control characters replaced), not dropped; Markdown escapes
    # the brackets, HTML writes a character reference instead of the byte
    assert any(x in shown for x in ("A" + SHOWN, "Ae?\\[31mv", "Ae&#27;[31mv")), shown


def test_a_short_name_as_a_header_shows_no_control_byte(tmp_path: Path) -> None:
    """A system name short enough to head its column (not numbered into the legend) reached
    the terminal with its ESC as it was (issue 44)."""
    gold = tmp_path / "g.tsv"
    gold.write_text("".join(f"w{i}\tv{i}\t{(i * 7) % 10}\n" for i in range(30)))
    evaluate(_scores_a, str(gold), name="B\x1b[2J", results_dir=tmp_path / "res")
    shown = _clean(["results", str(tmp_path / "res")])
    assert "B?[2J" in shown


def test_compare_shows_no_control_byte(recorded: tuple[Path, Path]) -> None:
    results, gold = recorded
    args = ["compare", "A", "frac", "-b", str(gold), "--results", str(results), "-B", "50"]
    shown = " ".join(_clean(args).split())  # the line may wrap at the terminal's width
    assert f"A = A{SHOWN}" in shown and "verdict:" in shown


def test_benchmarks_show_no_control_byte(tmp_path: Path) -> None:
    """A registry's description carries the characters to ``simeval benchmarks``; a name
    carrying them is refused, and the refusal shows none either."""
    (tmp_path / "gold.tsv").write_text("word1\tword2\tsim\na\tb\t1\nc\td\t2\ne\tf\t3\n")
    registry = tmp_path / "lab.toml"
    registry.write_text(
        '[benchmark.lab]\ngold = "gold.tsv"\ndescription = "d\\u001b]0;x\\u0007\\r"\n'
    )
    shown = _clean(["benchmarks", "--registry", str(registry)])
    assert "d?]0;x??" in shown
    registry.write_text('[benchmark."n\\u001b[2J"]\ngold = "gold.tsv"\n')
    refused = runner.invoke(app, ["benchmarks", "--registry", str(registry)])
    assert refused.exit_code == 2 and not RAW.findall(refused.output), refused.output
    assert "benchmark name 'n\\x1b[2J'" in refused.output


def test_report_over_mathtext_and_control_names(recorded: tuple[Path, Path], tmp_path) -> None:
    results, _ = recorded
    page = tmp_path / "report.html"
    _clean(["report", str(results), "--html", str(page), "-B", "50", "-j", "1"])
    html = page.read_text(encoding="utf-8")
    assert "data:image/png" in html  # the plot is there
    assert MATH in html and "Ae&#27;[31mv" in html
    assert not RAW.findall(html)
