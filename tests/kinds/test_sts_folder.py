"""STS folders whose dataset names collide (issue 30, hole 4): refused, naming both files."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import pearsonr

from simeval.errors import InputError
from simeval.registry.loaders import from_path


def _dataset(folder: Path, dataset: str, gold: list[float], prefix: str = "STS") -> None:
    pairs = "".join(f"a sentence {i}\tanother {i}\n" for i in range(len(gold)))
    (folder / f"{prefix}.input.{dataset}.txt").write_text(pairs, encoding="utf-8")
    scores = "".join(f"{g}\n" for g in gold)
    (folder / f"{prefix}.gs.{dataset}.txt").write_text(scores, encoding="utf-8")


@pytest.mark.parametrize(
    "first, second",
    [
        ("MSRpar", "msrpar"),  # on main: a suite of two members of one name, a wrong Pearson
        (unicodedata.normalize("NFC", "café"), unicodedata.normalize("NFD", "café")),
        ("ﬁnance", "finance"),  # NFKC: the ligature is the two letters
        ("STRASSE", "straße"),  # case folding, not lower()
    ],
    ids=["case", "nfc-nfd", "nfkc", "casefold"],
)
def test_colliding_dataset_names_are_refused(tmp_path: Path, first: str, second: str) -> None:
    _dataset(tmp_path, first, [1.0, 2.0, 3.0])
    _dataset(tmp_path, second, [3.0, 1.0, 2.0])
    with pytest.raises(InputError) as caught:
        from_path(tmp_path)
    text = str(caught.value)
    assert f"STS.input.{first}.txt" in text and f"STS.input.{second}.txt" in text


def test_the_same_dataset_under_two_prefixes_is_refused(tmp_path: Path) -> None:
    _dataset(tmp_path, "MSRpar", [1.0, 2.0, 3.0])
    _dataset(tmp_path, "MSRpar", [3.0, 1.0, 2.0], prefix="STS.2012")
    with pytest.raises(InputError, match="collides"):
        from_path(tmp_path)


def test_distinct_names_still_make_a_suite(tmp_path: Path) -> None:
    """Two datasets whose names differ in letters, not case, load; each member's gold is its
    own file's (the Pearson of a perfect output against each is 1, of the other's gold not)."""
    a, b = [1.0, 2.0, 3.0, 4.0], [4.0, 1.0, 3.0, 2.0]
    _dataset(tmp_path, "MSRpar", a)
    _dataset(tmp_path, "MSRvid", b)
    suite = from_path(tmp_path)
    golds = {m.dataset: m.gold for m in suite.members}
    assert np.array_equal(golds["MSRpar"], a) and np.array_equal(golds["MSRvid"], b)
    assert pearsonr(golds["MSRpar"], b).statistic != pytest.approx(1.0)


@pytest.mark.parametrize(
    "first, second",
    [("MSRpar", "MSRpar"), ("MSRpar", "msrpar"), ("café", unicodedata.normalize("NFD", "café"))],
    ids=["same", "case", "nfc-nfd"],
)
def test_gold_files_of_one_dataset_name_are_refused(
    tmp_path: Path, first: str, second: str
) -> None:
    """``score sts --gold a/STS.gs.MSRpar.txt --gold b/STS.gs.msrpar.txt``: on main a suite of
    two members of one name, whose ALL pooled the dataset twice; now refused naming the file."""
    from simeval.api import sts_target

    for folder, dataset in (("a", first), ("b", second)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / f"STS.gs.{dataset}.txt").write_text("1\n2\n3\n", encoding="utf-8")
    with pytest.raises(InputError, match="collides") as caught:
        sts_target(
            [tmp_path / "a" / f"STS.gs.{first}.txt", tmp_path / "b" / f"STS.gs.{second}.txt"]
        )
    assert f"STS.gs.{second}.txt" in str(caught.value)


def test_an_empty_dataset_name_is_refused(tmp_path: Path) -> None:
    """``STS.input..txt`` with ``STS.gs..txt``: on main a benchmark named ``<folder>-`` whose
    output file is ``STS.output..txt``; now refused naming the file."""
    _dataset(tmp_path, "", [1.0, 2.0, 3.0])
    with pytest.raises(InputError, match="empty") as caught:
        from_path(tmp_path)
    assert "STS.input..txt" in str(caught.value)
