"""Pair files as spreadsheets save them (issue 33, stumbles 3, 4 and 9): word columns found by
their header names wherever they stand, semicolon-separated CSV read, and a warning when
RUSSE's accuracy cannot mean anything. Expected numbers are scipy's and by hand."""

from __future__ import annotations

from pathlib import Path

import pytest
from scipy.stats import spearmanr
from typer.testing import CliRunner

from simeval.cli import app
from simeval.data.pair_files import read_scored_pairs
from simeval.errors import InputError

GOLD = [("cat", "dog", 7.5), ("car", "sun", 1.0), ("sea", "ship", 6.0), ("red", "moon", 2.5)]
PRED = [0.9, 0.1, 0.5, 0.3]


@pytest.mark.parametrize(
    ("header", "row"),
    [
        ("sim,word1,word2", "{s},{a},{b}"),
        ("word2\tsim\tword1", "{b}\t{s}\t{a}"),
        ("Word 1;Word 2;sim", "{a};{b};{s}"),
        ("w1;score;w2", "{a};{s};{b}"),
    ],
)
def test_word_columns_found_by_name(tmp_path: Path, header: str, row: str) -> None:
    path = tmp_path / "gold.csv"
    path.write_text("\n".join([header, *(row.format(a=a, b=b, s=s) for a, b, s in GOLD)]) + "\n")
    got = read_scored_pairs(path)
    assert got.pairs == [(a, b) for a, b, _ in GOLD]
    assert list(got.scores) == [s for *_, s in GOLD]


def test_a_spreadsheet_csv_scores_as_scipy(tmp_path: Path) -> None:
    gold, pred = tmp_path / "gold.csv", tmp_path / "pred.csv"
    gold.write_text("sim;word1;word2\n" + "".join(f"{s};{a};{b}\n" for a, b, s in GOLD))
    pred.write_text("word1;word2;sim\n" + "".join(
        f"{a};{b};{p}\n" for (a, b, _), p in zip(GOLD, PRED, strict=True)))  # fmt: skip
    result = CliRunner().invoke(app, ["score", "pairs", "--gold", str(gold), "--pred", str(pred)])
    assert result.exit_code == 0, result.output
    expected = spearmanr([s for *_, s in GOLD], PRED)[0]
    assert f"{expected:.4f}" in result.output


def test_related_accuracy_with_single_pair_word1s_is_flagged(tmp_path: Path) -> None:
    """Every word1 once: RUSSE's accuracy labels floor(1/2) = 0 of each word1's pairs related,
    so accuracy is the share of unrelated pairs (2 of 4 here, whatever the scores)."""
    gold, pred = tmp_path / "gold.csv", tmp_path / "pred.csv"
    labels = [1, 0, 1, 0]
    gold.write_text("word1,word2,sim\n" + "".join(
        f"{a},{b},{y}\n" for (a, b, _), y in zip(GOLD, labels, strict=True)))  # fmt: skip
    pred.write_text("word1,word2,sim\n" + "".join(
        f"{a},{b},{p}\n" for (a, b, _), p in zip(GOLD, PRED, strict=True)))  # fmt: skip
    args = ["score", "pairs", "--gold", str(gold), "--pred", str(pred), "--kind", "related"]
    result = CliRunner().invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    assert "4 of 4 word1s have a single pair" in result.output
    assert '"accuracy": 0.5' in result.output


@pytest.mark.parametrize(
    ("name", "how"),
    [
        ("sim   ", "trailing white space"),
        ("  sim", "leading white space"),
        (" sim ", "white space around it"),
    ],
)
def test_a_header_name_with_spaces_is_refused_showing_them(
    tmp_path: Path, name: str, how: str
) -> None:
    """``word1,word2,sim   `` and ``--gold-column sim`` said "no column named 'sim'; columns
    are word1, word2, sim", the spaces unseen. RUSSE's evaluate_test.py (pandas' read_csv,
    ``r["sim"]``) does not strip a header name either, so it is refused, with the header's
    line (1) and the name as written, spaces shown."""
    gold = tmp_path / "gold.txt"
    gold.write_text(
        ",".join(["word1", "word2", name])
        + "\n"
        + "".join(f"{a},{b},{s}" + "\n" for a, b, s in GOLD)
    )
    (tmp_path / "pred.tsv").write_text(
        "".join(f"{a}\t{b}\t{p}\n" for (a, b, _), p in zip(GOLD, PRED, strict=True))
    )
    args = ["score", "pairs", "--gold", str(gold), "--pred", str(tmp_path / "pred.tsv")]
    done = CliRunner().invoke(app, [*args, "--gold-column", "sim"])
    assert done.exit_code == 2, done.output
    assert f"{gold}:1: no column named 'sim': column {name!r} has {how}" in done.stderr, done.stderr
    assert f"columns are 'word1', 'word2', {name!r}" in done.stderr, done.stderr


@pytest.mark.parametrize("spelled", ["1_0", "\uff11", "inf", "nan", "3,5", "1e999"])
def test_a_first_row_with_a_misspelled_number_is_data_not_a_header(
    tmp_path: Path, spelled: str
) -> None:
    """A header-less file whose first score is a number the readers refuse (found by
    tests/cli/test_commands_properties.py): it was taken for a header, its pair silently
    dropped (``--missing zero`` then scored it 0). Now it is a row, refused at line 1."""
    path = tmp_path / "pred.tsv"
    path.write_text(f"cat\tdog\t{spelled}\ncar\tsun\t0.5\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_scored_pairs(path)
    assert (caught.value.path, caught.value.line) == (str(path), 1)
