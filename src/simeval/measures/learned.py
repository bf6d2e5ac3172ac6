"""``learned:model=FOLDER``: a combination fitted by ``simeval train combine``
(:mod:`simeval.train.combine`), applied as a measure.

Its base measures are built from their recorded specs and score the pairs; the cheap features
are recomputed; the fitted model's prediction is the score (for related/unrelated, the
probability of "related"). The model file's sha256 must equal the one recorded, so a changed
or swapped file is refused rather than unpickled.

The folder's file names, :class:`CombineConfig`, :func:`design_matrix` and :func:`predict`
live here, where the folder is read; the trainer, which writes it, imports them (a measure
never imports a trainer).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from simeval.data.textio import sha256_file
from simeval.errors import InputError
from simeval.measures.base import Measure, Pairs
from simeval.measures.features import pair_features
from simeval.measures.spec import Params

RECORD = "combine.json"
MODEL_FILE = "model.joblib"


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


class Learned(Measure):
    name = "learned"

    def __init__(self, spec: str, params: dict[str, Any], create: Callable[[str], Any]) -> None:
        super().__init__(spec, params)
        folder = Path(params["model"])
        record_path = folder / RECORD
        if not record_path.is_file():
            raise InputError(folder, None, f"no {RECORD}: not a `simeval train combine` folder")
        self.record = json.loads(record_path.read_text(encoding="utf-8"))
        self.config = CombineConfig(**self.record["config"])
        model_path = folder / MODEL_FILE
        digest = sha256_file(model_path) if model_path.is_file() else None
        if digest != self.record["model_sha256"]:
            raise InputError(model_path, None, f"missing or not the file {RECORD} records")
        import joblib

        self.model = joblib.load(model_path)
        self.measures = [create(s) for s in self.config.measures]

    def prepare(self, words: Iterable[str], texts: Iterable[str]) -> None:
        words, texts = set(words), set(texts)
        for m in self.measures:
            m.prepare(words, texts)

    def _score(self, pairs: Pairs, texts: bool) -> np.ndarray:
        if not pairs:
            return np.empty(0)
        config = replace(self.config, texts=texts)
        return predict(self.model, design_matrix(self.measures, list(pairs), config), config.binary)

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
