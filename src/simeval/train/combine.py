"""Fit a supervised combination of measures' scores and cheap pair features
(``simeval train combine``); the folder it writes is what ``learned:model=FOLDER`` loads.

The rows are the training pairs of the benchmarks named (graded: gold rescaled to [0, 1]; or
related/unrelated: gold 1/0, never both). The columns are those of
:func:`simeval.measures.learned.design_matrix` (per measure, its score and whether it scored
the pair, then the cheap pair features), which ``learned:`` computes again when it scores.
Models (scikit-learn):

- ``linear``: standardized columns, then ridge regression (α = 1) for graded gold or logistic
  regression (C = 1) for related/unrelated — the log-linear combination of STS 2012's winner;
- ``boosting``: histogram gradient boosting (regressor or classifier, 200 trees of at most 31
  leaves, learning rate 0.05, seeded) — the tree ensembles of RUSSE 2015's best systems.

The folder holds ``model.npz`` (the fitted model as plain arrays, see :func:`model_arrays`: no
pickle, so a folder from anyone is safe to load) and ``combine.json``: the measures, features,
model, each benchmark's data sha256 and pair count, the 5-fold cross-validated fit on the
training pairs (Pearson for graded, average precision for related/unrelated), the model file's
sha256 (checked on load), time and versions; with ``--cross-fit K`` (:mod:`.crossfit`), the
regression is fitted on out-of-fold scores of the fine-tuned encoders, and ``cross_fit`` records
the folds, their seed, each fold's sizes and the encoders' settings.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from simeval.data.textio import sha256_file
from simeval.errors import InputError
from simeval.measures.features import check_groups, feature_names
from simeval.measures.learned import (
    MODEL_FILE,
    RECORD,
    CombineConfig,
    design_matrix,
    predict,
)
from simeval.train.crossfit import CrossFit, out_of_fold_matrix, prepare
from simeval.train.examples import TrainingPairs
from simeval.train.folder import staged

MODELS = ("linear", "boosting")


def column_names(config: CombineConfig) -> list[str]:
    names = [f"{kind}:{m}" for m in config.measures for kind in ("score", "scored")]
    return names + feature_names(config.features)


def make_model(config: CombineConfig) -> Any:
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if config.model not in MODELS:
        raise InputError(None, None, f"unknown model {config.model!r}; one of {', '.join(MODELS)}")
    if config.model == "linear":
        head = LogisticRegression(C=1.0, max_iter=2000) if config.binary else Ridge(alpha=1.0)
        return make_pipeline(StandardScaler(), head)
    kind = HistGradientBoostingClassifier if config.binary else HistGradientBoostingRegressor
    return kind(max_iter=200, learning_rate=0.05, max_leaf_nodes=31, random_state=config.seed)


def model_arrays(model: Any, config: CombineConfig) -> dict[str, np.ndarray]:
    """A fitted model as the arrays ``learned:`` computes with (see
    :class:`simeval.measures.learned.LinearModel` and ``TreeEnsemble``)."""
    if config.model == "linear":
        scaler, head = model[0], model[-1]
        return {
            "mean": scaler.mean_, "scale": scaler.scale_,
            "coef": np.ravel(head.coef_), "intercept": np.atleast_1d(head.intercept_),
        }  # fmt: skip
    nodes, roots, offset = [], [], 0
    for (tree,) in model._predictors:  # one tree per iteration: regression or binary
        part = tree.nodes.copy()
        if part["is_categorical"].any():  # pragma: no cover - no categorical columns here
            raise ValueError("categorical splits are not saved")
        inner = part["is_leaf"] == 0
        for link in ("left", "right"):
            part[link] = np.where(inner, part[link].astype(np.int64) + offset, 0)
        nodes.append(part)
        roots.append(offset)
        offset += len(part)
    every = np.concatenate(nodes)
    return {
        "baseline": np.ravel(model._baseline_prediction),
        "feature": every["feature_idx"].astype(np.int64),
        "threshold": every["num_threshold"],
        "missing_left": every["missing_go_to_left"].astype(bool),
        "left": every["left"].astype(np.int64),
        "right": every["right"].astype(np.int64),
        "leaf": every["is_leaf"].astype(bool),
        "value": every["value"],
        "roots": np.array(roots, dtype=np.int64),
    }


def _cross_validated(config: CombineConfig, x: np.ndarray, y: np.ndarray) -> float:
    from scipy.stats import pearsonr
    from sklearn.metrics import average_precision_score
    from sklearn.model_selection import KFold, StratifiedKFold

    split = (StratifiedKFold if config.binary else KFold)(5, shuffle=True, random_state=config.seed)
    out = np.empty(len(y))
    for fit, held in split.split(x, y):
        out[held] = predict(make_model(config).fit(x[fit], y[fit]), x[held], config.binary)
    if config.binary:
        return float(average_precision_score(y, out))
    return float(pearsonr(y, out)[0])


def train_combination(
    config: CombineConfig,
    data: TrainingPairs,
    measures: Sequence[Any],
    out: str | Path,
    cross_fit: CrossFit | None = None,
    progress: Callable[[str, int], Callable[[int, float], None]] | None = None,
) -> Path:
    """Fit the combination on ``data`` and write it to ``out`` (a temporary folder renamed at
    the end; an existing ``out`` is never touched). With ``cross_fit``, the fine-tuned encoders'
    columns are out-of-fold scores (:mod:`simeval.train.crossfit`; ``progress`` follows the
    fold encoders' fine-tuning) and ``combine.json`` records the folds under ``cross_fit``."""
    from simeval.results.record import package_versions

    check_groups(config.features, config.frequency)
    if not measures and not config.features:
        raise InputError(None, None, "nothing to combine: give --measure and/or --features")
    target = Path(out)
    if target.exists():  # refused before the work, not only at the end (staged)
        raise InputError(target, None, "exists: choose a new folder (nothing is overwritten)")
    start = time.perf_counter()
    pairs = list(zip(data.a, data.b, strict=True))
    folds = None
    if cross_fit is None:
        prepare(measures, pairs, config.texts)
        x = design_matrix(measures, pairs, config)
    else:
        x, folds = out_of_fold_matrix(config, data, measures, cross_fit, target.parent, progress)
    y = (data.gold > 0.5).astype(int) if config.binary else data.gold
    model = make_model(config).fit(x, y)
    with staged(target) as tmp:
        with open(tmp / MODEL_FILE, "wb") as f:
            np.savez(f, **model_arrays(model, config))
        digest = sha256_file(tmp / MODEL_FILE)
        record = {
            "config": asdict(config),
            "columns": column_names(config),
            "data": data.sources,
            "pairs": len(pairs),
            "cross_validated": {
                "folds": 5,
                "metric": "average_precision" if config.binary else "pearson",
                "value": round(_cross_validated(config, x, y), 6),
            },
            **({"cross_fit": folds} if folds else {}),
            "model_sha256": digest,
            "seconds": round(time.perf_counter() - start, 1),
            "versions": package_versions(),
        }
        (tmp / RECORD).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return target
