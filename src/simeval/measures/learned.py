"""``learned:model=FOLDER``: a combination fitted by ``simeval train combine``
(:mod:`simeval.train.combine`), applied as a measure.

Its base measures are built from their recorded specs and score the pairs; the cheap features
are recomputed; the fitted model's prediction is the score (for related/unrelated, the
probability of "related"). The model is plain numbers in ``model.npz`` (read without pickle:
nothing in the folder can run code), its sha256 recorded in ``combine.json``; a changed file is
refused, and a folder holding only the ``model.joblib`` pickle of earlier versions is refused
rather than unpickled (train it again).

The folder's file names, :class:`CombineConfig`, :func:`design_matrix`, :func:`predict` and the
saved models' arithmetic live here, where the folder is read; the trainer, which writes it,
imports them (a measure never imports a trainer).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from simeval.data.textio import sha256_file
from simeval.errors import InputError
from simeval.measures.base import Measure, Pairs
from simeval.measures.features import pair_features
from simeval.measures.records import read_record
from simeval.measures.spec import Params

RECORD = "combine.json"
MODEL_FILE = "model.npz"
PICKLED_MODEL = "model.joblib"  # what versions before 0.x wrote; never loaded
LINEAR_ARRAYS = ("mean", "scale", "coef", "intercept")
TREE_ARRAYS = ("baseline", "feature", "threshold", "missing_left", "left", "right", "leaf", "value")


@dataclass
class CombineConfig:
    on: list[str] = field(default_factory=list)
    measures: list[str] = field(default_factory=list)
    features: list[str] = field(default_factory=list)
    model: str = "linear"
    texts: bool = False  # score the pairs as texts (STS) or as words
    binary: bool = False  # related/unrelated gold: a classifier
    frequency: str | None = None
    seed: int = 0


def design_matrix(
    measures: Sequence[Any],
    pairs: list[tuple[str, str]],
    config: CombineConfig,
) -> np.ndarray:
    """The columns the model sees, one row per pair: per measure, its score (NaN → 0) and
    whether it scored the pair, then the feature groups of :mod:`simeval.measures.features`."""
    columns = []
    for m in measures:
        s = np.asarray(m.score_texts(pairs) if config.texts else m.score_words(pairs), float)
        missing = np.isnan(s)
        columns += [np.where(missing, 0.0, s), (~missing).astype(float)]
    cheap = pair_features(pairs, config.features, config.texts, config.frequency)
    return np.column_stack([*columns, cheap]) if columns else cheap


def predict(model: Any, x: np.ndarray, binary: bool) -> np.ndarray:
    """The combination's score: P(related) for a classifier, the regression otherwise."""
    return model.predict_proba(x)[:, 1] if binary else model.predict(x)


def _expit(z: np.ndarray) -> np.ndarray:
    from scipy.special import expit

    return np.asarray(expit(z))


class LinearModel:
    """A standardized linear model: z = (x − mean) / scale, then z·coef + intercept (ridge), or
    its logistic 1 / (1 + e^−(z·coef + intercept)) (P(related)) — scikit-learn's
    ``StandardScaler`` then ``Ridge`` / ``LogisticRegression``, the same operations in order."""

    def __init__(self, arrays: dict[str, np.ndarray], binary: bool) -> None:
        self.mean, self.scale = arrays["mean"], arrays["scale"]
        self.coef, self.intercept = arrays["coef"], arrays["intercept"]
        self.binary = binary
        self.columns = len(self.coef)

    def score(self, x: np.ndarray) -> np.ndarray:
        z = (np.asarray(x, dtype=np.float64) - self.mean) / self.scale
        raw = z @ self.coef + self.intercept[0]
        return _expit(raw) if self.binary else raw


class TreeEnsemble:
    """Gradient-boosted trees as arrays (scikit-learn's ``HistGradientBoosting*`` nodes, numeric
    splits only): raw = baseline + Σ_trees value(leaf reached), a row going left when
    x[feature] ≤ threshold (a NaN goes where ``missing_left`` says); the classifier's score is
    1 / (1 + e^−raw)."""

    def __init__(self, arrays: dict[str, np.ndarray], binary: bool) -> None:
        self.baseline = float(arrays["baseline"][0])
        self.feature, self.threshold = arrays["feature"], arrays["threshold"]
        self.missing_left, self.leaf = arrays["missing_left"], arrays["leaf"]
        self.left, self.right = arrays["left"], arrays["right"]
        self.value, self.roots = arrays["value"], arrays["roots"]
        self.binary = binary
        inner = ~self.leaf
        self.columns = int(self.feature[inner].max()) + 1 if inner.any() else 0

    def score(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        rows = np.arange(len(x))
        raw = np.zeros(len(x)) + self.baseline
        for root in self.roots:  # tree by tree, in order, as scikit-learn sums them
            node = np.full(len(x), root)
            while not (done := self.leaf[node]).all():
                at, go = node[~done], rows[~done]
                value = x[go, self.feature[at]]
                left = np.where(np.isnan(value), self.missing_left[at], value <= self.threshold[at])
                node[~done] = np.where(left, self.left[at], self.right[at])
            raw += self.value[node]
        return _expit(raw) if self.binary else raw


def _refuse_at(path: Path, name: str, values: np.ndarray, bad: np.ndarray, expected: str) -> None:
    i = int(np.flatnonzero(bad)[0])
    raise InputError(
        path, None, f"{name}[{i}] is {values[i]}, expected {expected}: the model cannot score "
        "(train it again with `simeval train combine`)",
    )  # fmt: skip


def _refuse_unusable(
    path: Path, arrays: dict[str, np.ndarray], names: Sequence[str], positive: str | None = None
) -> None:
    """Refuse a model whose numbers would make every score NaN or ±inf, which would leave every
    pair unscored as if no model were given: a non-finite number in ``names``, or a
    ``positive`` array (the scale a standardisation divides by) not above 0."""
    for name in names:
        values = arrays[name].astype(np.float64)
        if not np.isfinite(values).all():
            _refuse_at(path, name, values, ~np.isfinite(values), "a finite number")
        if name == positive and (values <= 0).any():
            _refuse_at(path, name, values, values <= 0, "a number above 0")


def load_model(path: Path, config: CombineConfig, columns: int) -> LinearModel | TreeEnsemble:
    """The model of ``model.npz``, checked so that any file either loads as a model of
    ``columns`` inputs or is refused (tree links point forward only: no loop, no jump out)."""
    names = (*TREE_ARRAYS, "roots") if config.model == "boosting" else LINEAR_ARRAYS
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: np.asarray(data[name]) for name in names}
    except (OSError, ValueError, KeyError, EOFError) as exc:
        raise InputError(path, None, f"expected the arrays {', '.join(names)} ({exc})") from None
    if any(a.ndim != 1 or a.dtype.kind not in "biuf" for a in arrays.values()):
        raise InputError(path, None, "expected one-dimensional numeric arrays")
    if config.model != "boosting":
        if {len(arrays[n]) for n in ("mean", "scale", "coef")} != {columns} or not len(
            arrays["intercept"]
        ):
            raise InputError(path, None, f"expected {columns} coefficients and an intercept")
        _refuse_unusable(path, arrays, LINEAR_ARRAYS, positive="scale")
        return LinearModel({k: v.astype(np.float64) for k, v in arrays.items()}, config.binary)
    n = len(arrays["feature"])
    if {len(arrays[k]) for k in TREE_ARRAYS[1:]} != {n} or len(arrays["baseline"]) != 1:
        raise InputError(path, None, "expected node arrays of one length and one baseline")
    _refuse_unusable(path, arrays, ("baseline", "value"))
    if np.isnan(arrays["threshold"]).any():
        _refuse_at(
            path, "threshold", arrays["threshold"], np.isnan(arrays["threshold"]), "a number"
        )
    index = np.arange(n)
    leaf = arrays["leaf"].astype(bool)
    left, right, roots = (arrays[k].astype(np.int64) for k in ("left", "right", "roots"))
    feature = arrays["feature"].astype(np.int64)
    inner = ~leaf
    if (
        (roots.size and (roots.min() < 0 or roots.max() >= n))
        or (left[inner] <= index[inner]).any()
        or (right[inner] <= index[inner]).any()
        or (np.maximum(left[inner], right[inner]) >= n).any()
        or (feature[inner] < 0).any()
        or (feature[inner] >= columns).any()
    ):
        raise InputError(path, None, f"not a tree ensemble over {columns} columns")
    fixed = {
        **{k: arrays[k].astype(np.float64) for k in ("baseline", "threshold", "value")},
        "feature": feature, "left": left, "right": right, "roots": roots, "leaf": leaf,
        "missing_left": arrays["missing_left"].astype(bool),
    }  # fmt: skip
    return TreeEnsemble(fixed, config.binary)


class Learned(Measure):
    name = "learned"

    def __init__(self, spec: str, params: dict[str, Any], create: Callable[[str], Any]) -> None:
        super().__init__(spec, params)
        folder = Path(params["model"])
        record_path = folder / RECORD
        keys = ("config", "columns", "data", "model_sha256")
        self.record = read_record(record_path, keys, "simeval train combine")
        try:
            self.config = CombineConfig(**self.record["config"])
            columns = len(self.record["columns"])
        except TypeError as exc:
            raise InputError(record_path, None, f"config and columns: {exc}") from None
        model_path = folder / MODEL_FILE
        if not model_path.is_file() and (folder / PICKLED_MODEL).is_file():
            raise InputError(
                folder / PICKLED_MODEL,
                None,
                "a pickled model from an earlier simeval, which is not loaded (a pickle can run "
                "code): train the combination again with `simeval train combine`",
            )
        digest = sha256_file(model_path) if model_path.is_file() else None
        if digest != self.record["model_sha256"]:
            raise InputError(model_path, None, f"missing or not the file {RECORD} records")
        self.model = load_model(model_path, self.config, columns)
        self.measures = [create(s) for s in self.config.measures]

    def prepare(self, words: Iterable[str], texts: Iterable[str]) -> None:
        words, texts = set(words), set(texts)
        for m in self.measures:
            m.prepare(words, texts)

    def _score(self, pairs: Pairs, texts: bool) -> np.ndarray:
        if not pairs:
            return np.empty(0)
        config = replace(self.config, texts=texts)
        return self.model.score(design_matrix(self.measures, list(pairs), config))

    def score_words(self, pairs: Pairs) -> np.ndarray:
        return self._score(pairs, False)

    def score_texts(self, pairs: Pairs) -> np.ndarray:
        return self._score(pairs, True)

    def extra(self) -> dict[str, Any]:
        facts: dict[str, Any] = {"trained_on": sorted(self.record["data"])}
        for m in self.measures:
            facts.update({f"{m.name}.{k}": v for k, v in m.extra().items()})
        return facts


def make_learned(p: Params, create: Callable[[str], Any]) -> Learned:
    p.get("model", "")
    params = p.done()
    if not params["model"]:
        raise InputError(None, None, "learned needs model=FOLDER (from `simeval train combine`)")
    return Learned(str(p.spec), params, create)
