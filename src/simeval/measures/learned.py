"""``learned:model=FOLDER``: a combination fitted by ``simeval train combine``
(:mod:`simeval.train.combine`), applied as a measure.

Its base measures are built from their recorded specs and score the pairs; the cheap features
are recomputed; the fitted model's prediction is the score (for related/unrelated, the
probability of "related"). The model file's sha256 must equal the one recorded, so a changed
or swapped file is refused rather than unpickled.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from simeval.errors import InputError
from simeval.measures.base import Measure, Pairs
from simeval.measures.spec import Params


class Learned(Measure):
    name = "learned"

    def __init__(self, spec: str, params: dict[str, Any], create: Callable[[str], Any]) -> None:
        from simeval.train.combine import MODEL_FILE, RECORD, CombineConfig

        super().__init__(spec, params)
        folder = Path(params["model"])
        record_path = folder / RECORD
        if not record_path.is_file():
            raise InputError(folder, None, f"no {RECORD}: not a `simeval train combine` folder")
        self.record = json.loads(record_path.read_text(encoding="utf-8"))
        self.config = CombineConfig(**self.record["config"])
        model_path = folder / MODEL_FILE
        digest = None
        if model_path.is_file():
            digest = hashlib.sha256(model_path.read_bytes()).hexdigest()
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
        from simeval.train.combine import design_matrix, predict

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
