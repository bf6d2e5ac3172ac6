"""`simeval train combine` and the `learned:` measure: the fitted combination equals
scikit-learn fitted in the test on features computed here from the raw files, the exclusion
of a benchmark's pairs is counted against the raw files, and tampered or bad requests are
refused."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import pearsonr
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from typer.testing import CliRunner

from simeval.api import evaluate, load_target
from simeval.cli import app

TRAIN = ["MSRpar", "MSRvid", "SMTeuroparl"]


def _sts(folder: Path, name: str) -> tuple[list[tuple[str, str]], np.ndarray]:
    lines = (folder / f"STS.input.{name}.txt").read_text(encoding="utf-8").splitlines()
    gold = (folder / f"STS.gs.{name}.txt").read_text(encoding="utf-8").split()
    return [tuple(line.split("\t")[:2]) for line in lines], np.array(gold, dtype=float)


def _cosine_and_jaccard(a: str, b: str) -> list[float]:
    ta, tb = set(a.split()), set(b.split())
    common = len(ta & tb)
    cosine = common / math.sqrt(len(ta) * len(tb)) if ta and tb else 0.0
    return [cosine, common / len(ta | tb) if ta | tb else 0.0]


def _train(tmp_path: Path, *args: str) -> Path:
    out = tmp_path / "combo"
    done = CliRunner().invoke(app, ["train", "combine", "--out", str(out), *args])
    assert done.exit_code == 0, done.output
    return out


def test_linear_combination_of_two_measures_equals_ridge_fitted_here(tmp_path, data_dir, store):
    on = [a for name in TRAIN for a in ("--on", f"sts12-train-{name.lower()}")]
    out = _train(
        tmp_path, *on, "--measure", "overlap", "--measure", "jaccard", "--features", "none"
    )
    x, y = [], []
    for name in TRAIN:
        pairs, gold = _sts(data_dir / "sts2012" / "train", name)
        x += [_cosine_and_jaccard(a, b) for a, b in pairs]
        y += list(gold / 5)
    model = make_pipeline(StandardScaler(), Ridge(alpha=1.0)).fit(np.array(x), np.array(y))
    for name, bench in [("MSRpar", "sts12-msrpar"), ("surprise.OnWN", "sts12-onwn")]:
        pairs, gold = _sts(data_dir / "sts2012" / "test", name)
        expected = pearsonr(gold, model.predict(np.array([_cosine_and_jaccard(*p) for p in pairs])))
        (result,) = evaluate(f"learned:model={out}", bench, store=store)
        assert result.metrics["pearson"] == pytest.approx(expected[0], abs=1e-9)
    record = json.loads((out / "combine.json").read_text(encoding="utf-8"))
    assert record["pairs"] == len(y) == 750 + 750 + 734
    assert record["columns"] == [
        "score:overlap",
        "scored:overlap",
        "score:jaccard",
        "scored:jaccard",
    ]
    assert record["cross_validated"]["metric"] == "pearson"
    assert 0 < record["cross_validated"]["value"] < 1


def test_logistic_combination_on_related_pairs_uses_the_length_features(tmp_path, data_dir, store):
    out = _train(tmp_path, "--on", "russe-ae-train", "--features", "length")
    with (data_dir / "russe" / "ae-train.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))

    def lengths(a: str, b: str) -> list[float]:
        low, high = sorted((len(a), len(b)))
        return [math.log1p(low), math.log1p(high), low / high]

    x = np.array([lengths(r["word1"], r["word2"]) for r in rows])
    y = np.array([int(float(r["sim"]) > 0.5) for r in rows])
    model = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=2000)).fit(x, y)
    bench = load_target("russe-ae-train", store)
    from simeval.measures import create_measure

    pairs = list(bench.gold.pairs)[:50]
    got = create_measure(f"learned:model={out}").score_words(pairs)
    expected = model.predict_proba(np.array([lengths(a, b) for a, b in pairs]))[:, 1]
    np.testing.assert_allclose(got, expected, atol=1e-9)
    record = json.loads((out / "combine.json").read_text(encoding="utf-8"))
    assert record["config"]["binary"] is True
    assert record["cross_validated"]["metric"] == "average_precision"


def test_exclude_drops_every_pair_of_the_other_benchmark_in_either_direction(tmp_path, data_dir):
    out = _train(tmp_path, "--on", "simverb3500", "--exclude", "simlex999", "--features", "length")

    def keys(path: Path, sep: str, skip: int) -> list[frozenset[str]]:
        lines = path.read_text(encoding="utf-8").splitlines()[skip:]
        return [frozenset(p.strip().lower() for p in line.split(sep)[:2]) for line in lines if line]

    simlex = set(keys(data_dir / "simlex999" / "SimLex-999.txt", "\t", 1))
    simverb = keys(data_dir / "simverb3500" / "SimVerb-3500.txt", "\t", 1)
    shared = sum(k in simlex for k in simverb)
    record = json.loads((out / "combine.json").read_text(encoding="utf-8"))
    assert shared > 0
    assert record["data"]["simverb3500"]["excluded"] == shared
    assert record["pairs"] == len(simverb) - shared


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--on", "mc30", "--on", "russe-ae-train"], "graded"),
        (["--on", "mc30", "--features", "colour"], "unknown feature"),
        (["--on", "mc30", "--features", "frequency"], "--frequency"),
        (["--on", "mc30", "--model", "forest"], "unknown model"),
        (["--on", "mc30", "--features", "none"], "nothing to combine"),
        (["--on", "mc30", "--measure", "overlap", "--cross-fit", "2"], "fine-tuned encoder"),
        (["--on", "mc30", "--measure", "overlap", "--cross-fit", "1"], "2 to 30 folds (pairs)"),
        ([], "--on"),
    ],
)
def test_bad_requests_are_refused(tmp_path, args, message) -> None:
    out = tmp_path / "m"
    done = CliRunner().invoke(app, ["train", "combine", "--out", str(out), *args])
    assert done.exit_code == 2 and message in done.stderr, done.output
    assert not out.exists()


def test_a_changed_model_file_is_refused(tmp_path) -> None:
    out = _train(tmp_path, "--on", "mc30", "--features", "orthographic")
    with (out / "model.npz").open("ab") as f:
        f.write(b"\0")
    done = CliRunner().invoke(app, ["evaluate", f"learned:model={out}", "-b", "rg65", "--no-save"])
    assert done.exit_code == 2 and "model.npz" in done.stderr


@pytest.mark.parametrize("features", [",,,", "length,,overlap", "length, ", " "])
def test_an_empty_feature_item_is_refused_naming_the_option(tmp_path, features) -> None:
    """``--features ",,,"`` trained on nothing but the measures, as if ``none`` were meant:
    an empty or blank item is refused, naming the option and the item's place."""
    out = tmp_path / "m"
    args = ["--on", "mc30", "--measure", "overlap", "--features", features]
    done = CliRunner().invoke(app, ["train", "combine", "--out", str(out), *args])
    assert done.exit_code == 2, done.output
    assert f"--features {features!r}: item " in done.stderr, done.stderr
    assert "is empty" in done.stderr and not out.exists()


def test_a_seed_out_of_range_from_python_or_a_config_file_is_refused(tmp_path) -> None:
    """The command line's range (0 to 2^32 - 1) holds for a TOML file's ``seed`` too, which
    reached scikit-learn's ValueError."""
    from simeval.api.training import train, train_settings
    from simeval.errors import InputError

    config = tmp_path / "train.toml"
    config.write_text(
        'kind = "combine"\non = ["mc30"]\nseed = -1\n[combine]\nmeasure = ["overlap"]\n'
    )
    settings = train_settings(config, {"out": tmp_path / "m"})
    with pytest.raises(InputError, match=r"--seed -1: expected 0 to 4294967295"):
        train(settings)
    assert not (tmp_path / "m").exists()
