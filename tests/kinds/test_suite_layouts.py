"""A suite's submission layout (:mod:`simeval.kinds.layouts`): a folder of the members' files,
read, written and evaluated through the layout the suite chose once; its errors name what is
missing. (The one-file layout, RUSSE's test.csv, is taken through in kinds/test_russe.py.)"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import pearsonr

from simeval.data.sts import STSOutput
from simeval.errors import InputError
from simeval.kinds.base import Suite
from simeval.kinds.sts import sts_folder

GOLD = {"news": [4.0, 1.5, 3.2, 0.5, 2.8], "pics": [0.0, 5.0, 2.2, 3.9]}  # made up
SYSTEM = {"news": [3.1, 2.0, 3.9, 0.1, 2.0], "pics": [0.7, 4.1, 2.9, 2.5]}


@pytest.fixture
def suite(tmp_path: Path) -> Suite:
    folder = tmp_path / "sts"
    folder.mkdir()
    for name, gold in GOLD.items():
        pairs = "".join(f"a {name} {i}\tb {i}\n" for i in range(len(gold)))
        (folder / f"STS.input.{name}.txt").write_text(pairs, encoding="utf-8")
        (folder / f"STS.gs.{name}.txt").write_text("".join(f"{g}\n" for g in gold))
    found = sts_folder(folder, "lab")
    assert isinstance(found, Suite) and found.layout == "folder"
    return found


def submission() -> dict[str, STSOutput]:
    return {f"lab-{k}": STSOutput(None, np.array(v), None, []) for k, v in SYSTEM.items()}


def test_a_folder_is_written_read_and_scored(suite: Suite, tmp_path: Path) -> None:
    out = tmp_path / "run"
    written = suite.write_submission(submission(), out)
    assert sorted(p.name for p in written) == ["STS.output.news.txt", "STS.output.pics.txt"]
    results = suite.evaluate(suite.read_submission(out))
    whole = results[-1]
    gold = np.concatenate([GOLD["news"], GOLD["pics"]])
    system = np.concatenate([SYSTEM["news"], SYSTEM["pics"]])
    assert whole.metrics["all"] == pytest.approx(pearsonr(system, gold)[0], abs=1e-12)
    assert whole.coverage == {"gold": 9, "scored": 9, "missing": 0, "extra": 0}


def test_what_is_missing_is_named(suite: Suite, tmp_path: Path) -> None:
    out = tmp_path / "run"
    suite.write_submission(submission(), out)
    with pytest.raises(
        InputError, match=re.escape("expected a folder holding STS.output.news.txt")
    ):
        suite.read_submission(out / "STS.output.news.txt")
    (out / "STS.output.pics.txt").unlink()
    with pytest.raises(InputError, match="lab needs every file") as err:
        suite.read_submission(out)
    assert err.value.path == str(out / "STS.output.pics.txt")
    partial = submission()
    del partial["lab-news"]
    with pytest.raises(InputError, match="no submission for lab-news"):
        suite.evaluate(partial)


def test_an_unknown_layout_is_refused(suite: Suite) -> None:
    odd = Suite("odd", suite.members, "sts", layout="zip")
    with pytest.raises(ValueError, match="no suite layout 'zip'"):
        odd.requests()
