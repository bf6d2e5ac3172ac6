"""`simeval train combine --cross-fit K`: the folds hold each distinct pair whole (counted here
from the raw STS-2012 files), every out-of-fold score comes from an encoder that did not see
its pair (a stand-in trainer records what each fold's encoder saw), the fold encoders get the
settings the encoder folder records, and bad requests are refused. The slow test runs the
whole pipeline on RG-65 with real fine-tuning."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from simeval.cli import app
from simeval.measures.learned import CombineConfig
from simeval.train.combine import train_combination
from simeval.train.crossfit import CrossFit, out_of_fold_matrix, pair_folds
from simeval.train.examples import TrainingPairs

TRAIN = ["MSRpar", "MSRvid", "SMTeuroparl"]
SETTINGS = {
    "base": "all-MiniLM-L6-v2", "on": ["sts12-train-smteuroparl"], "epochs": 3, "batch": 8,
    "lr": 3e-05, "warmup": 0.1, "loss": "cosent", "seed": 7, "max_seq_length": 64,
    "bucket": False,
}  # fmt: skip


def _raw_pairs(data_dir: Path, names: list[str]) -> tuple[list[str], list[str], np.ndarray]:
    a, b, gold = [], [], []
    for name in names:
        folder = data_dir / "sts2012" / "train"
        for line in (folder / f"STS.input.{name}.txt").read_text(encoding="utf-8").splitlines():
            x, y = line.split("\t")[:2]
            a.append(x)
            b.append(y)
        gold += [float(g) / 5 for g in (folder / f"STS.gs.{name}.txt").read_text().split()]
    return a, b, np.array(gold)


def _key(x: str, y: str) -> frozenset[str]:
    return frozenset((x.strip().lower(), y.strip().lower()))


def test_folds_hold_each_distinct_pair_whole_and_as_many_in_each(data_dir) -> None:
    a, b, _ = _raw_pairs(data_dir, TRAIN)
    keys = [_key(x, y) for x, y in zip(a, b, strict=True)]
    assert len(keys) == 2234 and len(set(keys)) == 2212  # 22 pairs occur twice (or more)
    fold = pair_folds(a, b, 3, seed=5)
    seen: dict[frozenset[str], set[int]] = {}
    for k, f in zip(keys, fold, strict=True):
        seen.setdefault(k, set()).add(int(f))
    assert all(len(folds) == 1 for folds in seen.values())
    distinct = [sum(1 for f in seen.values() if f == {k}) for k in range(3)]
    assert sorted(distinct) == [737, 737, 738]  # 2212 = 737 + 737 + 738
    assert (pair_folds(a, b, 3, seed=5) == fold).all()
    assert (pair_folds(a, b, 3, seed=6) != fold).any()
    reversed_case = pair_folds([y.upper() for y in b], a, 3, seed=5)  # the same pairs
    assert (reversed_case == fold).all()


class _Seen:
    """A stand-in for a fold's encoder: 1 for a pair it was not trained on, 0 for one it was,
    plus a thousandth per pair it was trained on (so a score tells which encoder gave it)."""

    name = "encoder"

    def __init__(self, spec: str) -> None:
        self.spec = spec
        folder = Path(spec.split("model=")[1].split(",")[0])
        trained = json.loads((folder / "pairs.json").read_text(encoding="utf-8"))
        self.trained = {_key(x, y) for x, y in trained}
        self.count = len(trained)
        self.prepared: set[str] = set()

    def prepare(self, words: Any, texts: Any) -> None:
        self.prepared = set(texts)

    def score_texts(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        assert {t for p in pairs for t in p} <= self.prepared
        return np.array([(_key(*p) not in self.trained) + self.count / 1000 for p in pairs])


class _Final:
    """The encoder folder's measure: what --cross-fit replaces (never asked to score)."""

    name = "encoder"

    def __init__(self, folder: Path) -> None:
        self.model_path = folder
        self.params = {"model": str(folder), "batch": 64, "backend": "torch", "cache": True}

    def prepare(self, words: Any, texts: Any) -> None:
        raise AssertionError("the final encoder does not score the training pairs")

    def score_texts(self, pairs: Any) -> np.ndarray:
        raise AssertionError("the final encoder does not score the training pairs")


class _Trainer:
    """A stand-in for the fine-tuning: it writes down the settings and the pairs it is given,
    in the folder (for :class:`_Seen`) and in ``calls``."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def __call__(self, settings: Any, train: TrainingPairs, out: Path, base: Path, _: Any) -> Path:
        pairs = list(zip(train.a, train.b, strict=True))
        self.calls.append({"settings": settings, "base": base, "trained": pairs})
        out.mkdir()
        (out / "pairs.json").write_text(json.dumps(pairs), encoding="utf-8")
        return out


def _encoder_folder(tmp_path: Path, sources: dict[str, Any]) -> Path:
    folder = tmp_path / "tuned"
    folder.mkdir()
    record = {"config": SETTINGS, "data": sources, "pairs": 0}
    (folder / "simeval-train.json").write_text(json.dumps(record), encoding="utf-8")
    return folder


def test_each_out_of_fold_score_comes_from_an_encoder_that_did_not_see_the_pair(
    tmp_path, data_dir
) -> None:
    a, b, gold = _raw_pairs(data_dir, ["SMTeuroparl"])
    sources = {"sts12-train-smteuroparl": {"pairs": len(a), "data": {"x": "sha"}}}
    data = TrainingPairs(a, b, gold, sources)
    trainer = _Trainer()
    config = CombineConfig(measures=["encoder:model=tuned"], texts=True)
    plan = CrossFit(3, seed=2, fine_tune=trainer, create=_Seen, scratch=tmp_path)
    final = _Final(_encoder_folder(tmp_path, sources))
    x, record = out_of_fold_matrix(config, data, [final], plan, tmp_path)

    keys = [_key(p, q) for p, q in zip(a, b, strict=True)]
    copies = {k: keys.count(k) for k in keys}
    score = x[:, 0]
    assert (score >= 1).all()  # every pair was scored by an encoder that had not seen it
    trained_on = np.round((score - 1) * 1000).astype(int)
    # a fold encoder saw every pair but those it scores: its training size plus the pairs it
    # scores (copies of a pair together) is the whole file
    for size in set(trained_on):
        scored = [k for k, t in zip(keys, trained_on, strict=True) if t == size]
        assert size + len(scored) == len(a) == 734
        assert all(scored.count(k) == copies[k] for k in set(scored))
    assert sorted(len(c["trained"]) for c in trainer.calls) == sorted(set(trained_on))
    assert (x[:, 1] == 1).all()  # every pair scored
    assert {c["settings"].loss for c in trainer.calls} == {"cosent"}  # the recorded settings
    assert all(vars(c["settings"]) == SETTINGS for c in trainer.calls)
    sizes = record["fold_sizes"]
    assert [s["held_out"] + s["trained_on"] for s in sizes] == [734] * 3
    assert sorted(s["trained_on"] for s in sizes) == sorted(set(trained_on))
    assert record["folds"] == 3 and record["seed"] == 2
    assert record["refitted"] == {"encoder:model=tuned": SETTINGS}
    assert not list(tmp_path.glob(".cross-fit-*"))  # the fold encoders are removed


class _Chars:
    """A measure that is not refitted: the difference of the texts' lengths in characters."""

    name = "chars"

    def prepare(self, words: Any, texts: Any) -> None:
        pass

    def score_texts(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        return np.array([len(p) - len(q) for p, q in pairs], dtype=float)


def test_the_combination_is_ridge_on_the_out_of_fold_scores(tmp_path, data_dir) -> None:
    """The model written predicts as a ridge regression fitted here on the out-of-fold scores
    (told by which stand-in encoder had not seen each pair) and the other measure's scores."""
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from simeval.measures.learned import LinearModel

    a, b, gold = _raw_pairs(data_dir, ["MSRvid"])
    sources = {"sts12-train-msrvid": {"pairs": len(a), "data": {"x": "sha"}}}
    data = TrainingPairs(a, b, gold, sources)
    trainer = _Trainer()
    config = CombineConfig(measures=["encoder:model=tuned", "chars"], features=[], texts=True)
    plan = CrossFit(2, seed=0, fine_tune=trainer, create=_Seen)
    final = _Final(_encoder_folder(tmp_path, sources))
    out = train_combination(config, data, [final, _Chars()], tmp_path / "combo", plan)
    record = json.loads((out / "combine.json").read_text(encoding="utf-8"))

    rows = []
    seen = [({_key(*p) for p in c["trained"]}, len(c["trained"])) for c in trainer.calls]
    for p, q in zip(a, b, strict=True):
        unseen = [count for keys, count in seen if _key(p, q) not in keys]
        assert len(unseen) == 1  # scored by exactly one fold's encoder
        rows.append([1 + unseen[0] / 1000, 1.0, len(p) - len(q), 1.0])
    x = np.array(rows)
    expected = make_pipeline(StandardScaler(), Ridge(alpha=1.0)).fit(x, gold).predict(x)
    with np.load(out / "model.npz") as arrays:
        model = LinearModel({k: arrays[k] for k in arrays.files}, binary=False)
    assert np.allclose(model.score(x), expected, atol=1e-9)
    sizes = record["cross_fit"]["fold_sizes"]
    assert [f["trained_on"] for f in sizes] == [count for _, count in seen]
    assert [f["held_out"] for f in sizes] == [750 - count for _, count in seen]


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"rg65": {"pairs": 65, "data": {"x": "sha"}}}, "trained on others"),
        ({"mc30": {"pairs": 30}}, "config and data"),  # no data sha256: not a trainer's record
    ],
)
def test_an_encoder_trained_on_other_pairs_is_refused(tmp_path, record, message) -> None:
    folder = _encoder_folder(tmp_path, record)
    (folder / "config.json").write_text("{}", encoding="utf-8")  # enough to be a model folder
    out = tmp_path / "m"
    args = ["--on", "mc30", "--measure", f"encoder:model={folder}", "--cross-fit", "2"]
    done = CliRunner().invoke(app, ["train", "combine", "--out", str(out), *args])
    assert done.exit_code == 2 and message in done.stderr, done.output
    assert not out.exists()


def test_the_folds_can_be_set_in_a_config_file(tmp_path) -> None:
    from simeval.api.training import train_settings

    file = tmp_path / "combine.toml"
    file.write_text('kind = "combine"\n[combine]\ncross-fit = 3\n', encoding="utf-8")
    assert train_settings(file).cross_fit == 3
    assert train_settings(file, {"cross_fit": 2}).cross_fit == 2  # the flag wins
