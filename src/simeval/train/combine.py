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

The folder holds ``model.joblib`` (the fitted pipeline; it is a pickle, so load only folders
you trust) and ``combine.json``: the measures, features, model, each benchmark's data sha256
and pair count, the 5-fold cross-validated fit on the training pairs (Pearson for graded,
average precision for related/unrelated), the model file's sha256 (checked on load), time and
versions.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from simeval.data.textio import sha256_file
from simeval.errors import InputError
from simeval.kinds.base import TextPairs, WordPairs
from simeval.measures.features import check_groups, feature_names
from simeval.measures.learned import MODEL_FILE, RECORD, CombineConfig, design_matrix, predict
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
    config: CombineConfig, data: TrainingPairs, measures: Sequence[Any], out: str | Path
) -> Path:
    """Fit the combination on ``data`` and write it to ``out`` (a temporary folder renamed at
    the end; an existing ``out`` is never touched)."""
    import joblib

    from simeval.results.record import package_versions

    check_groups(config.features, config.frequency)
    if not measures and not config.features:
        raise InputError(None, None, "nothing to combine: give --measure and/or --features")
    target = Path(out)
    if target.exists():  # refused before the work, not only at the end (staged)
        raise InputError(target, None, "exists: choose a new folder (nothing is overwritten)")
    start = time.perf_counter()
    pairs = list(zip(data.a, data.b, strict=True))
    request = (TextPairs if config.texts else WordPairs)(pairs)  # what a task would hand them
    for m in measures:
        m.prepare(request.words(), request.texts())
    x = design_matrix(measures, pairs, config)
    y = (data.gold > 0.5).astype(int) if config.binary else data.gold
    model = make_model(config).fit(x, y)
    with staged(target) as tmp:
        joblib.dump(model, tmp / MODEL_FILE)
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
            "model_sha256": digest,
            "seconds": round(time.perf_counter() - start, 1),
            "versions": package_versions(),
        }
        (tmp / RECORD).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return target
