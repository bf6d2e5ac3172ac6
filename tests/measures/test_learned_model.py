"""A ``learned:`` model file whose numbers cannot score: a coefficient NaN or a scale 0 (the
standardisation divides by it) made every pair NaN or ±inf, so the measure scored as if no
model were given. Such a file is refused when it is loaded, naming the file and the field."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from simeval.cli import app
from simeval.data.textio import sha256_file
from simeval.errors import InputError
from simeval.measures import create_measure


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("learned") / "combo"
    argv = ["train", "combine", "--out", str(out), "--on", "mc30", "--features", "orthographic"]
    done = CliRunner().invoke(app, argv)
    assert done.exit_code == 0, done.output
    return out


def _rewritten(trained: Path, tmp_path: Path, arrays: dict[str, np.ndarray], model: str) -> Path:
    """A copy of the trained folder with ``arrays`` as ``model.npz``, recorded in
    ``combine.json`` with the file's sha256 (so only the numbers are wrong)."""
    folder = tmp_path / "changed"
    shutil.copytree(trained, folder)
    np.savez(folder / "model.npz", **arrays)
    record = json.loads((folder / "combine.json").read_text())
    record["model_sha256"] = sha256_file(folder / "model.npz")
    record["config"]["model"] = model
    (folder / "combine.json").write_text(json.dumps(record))
    return folder


def _changed(trained: Path, tmp_path: Path, field: str, index: int, value: float) -> Path:
    """The trained linear model with one number changed."""
    with np.load(trained / "model.npz", allow_pickle=False) as data:
        arrays = {k: np.array(data[k]) for k in data.files}
    arrays[field][index] = value
    return _rewritten(trained, tmp_path, arrays, "linear")


def test_the_trained_model_loads_and_scores(trained: Path) -> None:
    scores = create_measure(f"learned:model={trained}").score_words([("car", "automobile")])
    assert np.isfinite(scores).all()


@pytest.mark.parametrize(
    ("field", "value"),
    [("coef", np.nan), ("coef", np.inf), ("scale", 0.0), ("scale", -1.0), ("mean", np.nan),
     ("intercept", np.nan)],
)  # fmt: skip
def test_a_model_that_cannot_score_is_refused(
    trained: Path, tmp_path: Path, field: str, value: float
) -> None:
    folder = _changed(trained, tmp_path, field, 0, value)
    with pytest.raises(InputError) as info:
        create_measure(f"learned:model={folder}")
    assert "model.npz" in str(info.value) and field in str(info.value)


@pytest.mark.parametrize(("field", "value"), [("value", np.nan), ("baseline", np.inf),
                                              ("threshold", np.nan)])  # fmt: skip
def test_a_tree_that_cannot_score_is_refused(
    trained: Path, tmp_path: Path, field: str, value: float
) -> None:
    """One tree, a split on column 0 into two leaves (an infinite threshold is scikit-learn's
    "every number goes left", so only NaN is refused there)."""
    tree = {"baseline": np.array([0.5]), "feature": np.array([0, 0, 0]),
            "threshold": np.array([np.inf, 0.0, 0.0]), "missing_left": np.zeros(3, bool),
            "left": np.array([1, 0, 0]), "right": np.array([2, 0, 0]),
            "leaf": np.array([False, True, True]), "value": np.array([0.0, 0.1, 0.2]),
            "roots": np.array([0])}  # fmt: skip
    good = _rewritten(trained, tmp_path / "good", tree, "boosting")
    scores = create_measure(f"learned:model={good}").score_words([("car", "automobile")])
    assert scores == pytest.approx([0.6])
    tree[field][0] = value
    folder = _rewritten(trained, tmp_path, tree, "boosting")
    with pytest.raises(InputError) as info:
        create_measure(f"learned:model={folder}")
    assert "model.npz" in str(info.value) and field in str(info.value)
