"""Python objects as measures: any encoder with ``encode(list[str]) -> array``, or a function
``f(pairs) -> scores``.

``simeval.evaluate(model, "sts")`` turns ``model`` into a measure here:

- an object with ``encode`` (a loaded sentence-transformers model, an MTEB-style encoder):
  each distinct text is encoded once, in batches of ``batch`` texts, and a pair scores the
  cosine of its two embeddings, as the ``encoder`` measure does. With a ``fingerprint`` (any
  string that names the model and its weights, e.g. ``"my-minilm-step-4000"``) the embeddings
  are cached on disk like the ``encoder`` measure's, in
  ``<cache>/embeddings/python-<sha256 of the fingerprint>/``; a later run with the same
  fingerprint encodes only texts it has not seen. Without one nothing is written: simeval
  cannot tell two states of the same Python object apart, so it never guesses a cache key.
- a function taking a list of ``(text1, text2)`` pairs (words, sentences or documents) and
  returning one score per pair, NaN where it cannot score.

The record names the system by ``name`` (default: the class or function name) and keeps the
class, the fingerprint and the batch size.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import numpy as np

from simeval.cache import cache_root
from simeval.errors import InputError
from simeval.measures.base import Measure, Pairs
from simeval.measures.encoder import Embedding, EmbeddingCache


def _qualified(target: Any) -> str:
    """``module.Name`` of a class or function (what the record keeps of the system)."""
    return f"{getattr(target, '__module__', '?')}.{getattr(target, '__qualname__', repr(target))}"


class ObjectEncoder(Embedding):
    """An object's ``encode(list[str])`` as a measure: cosine of the embeddings."""

    def __init__(
        self, model: Any, name: str, fingerprint: str | None = None, batch: int = 64
    ) -> None:
        if batch < 1:
            raise InputError(None, None, f"batch must be at least 1, not {batch}")
        params = {"class": _qualified(type(model)), "fingerprint": fingerprint, "batch": batch}
        super().__init__(name, params)
        self.name = name
        self.model = model
        if fingerprint is not None:
            key = hashlib.sha256(fingerprint.encode("utf-8")).hexdigest()[:24]
            self.cache = EmbeddingCache(cache_root() / "embeddings" / f"python-{key}")

    def encode_batch(self, texts: list[str]) -> Any:
        return self.model.encode(texts)

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "kind": "python"}


class FunctionMeasure(Measure):
    """A function ``f(pairs) -> scores`` as a measure (words and texts alike)."""

    def __init__(self, function: Callable[[Pairs], Any], name: str) -> None:
        super().__init__(name, {"function": _qualified(function)})
        self.name = name
        self.function = function

    def score_words(self, pairs: Pairs) -> np.ndarray:
        pairs = list(pairs)
        answer = self.function(pairs)
        try:
            scores = np.asarray(answer, dtype=float).reshape(-1)
        except (TypeError, ValueError) as exc:
            raise InputError(None, None, f"{self.name}: expected numbers, got {exc}") from None
        if len(scores) != len(pairs):
            raise InputError(
                None,
                None,
                f"{self.name} returned {len(scores)} scores for {len(pairs)} pairs; expected "
                "one score per pair (NaN where it cannot score)",
            )
        return scores

    score_texts = score_words

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "kind": "python"}


def as_measure(
    obj: Any, name: str | None = None, fingerprint: str | None = None, batch: int = 64
) -> Measure:
    """``obj`` as a measure (module docstring): a Measure as it is, an object with ``encode``,
    or a function of pairs."""
    if isinstance(obj, Measure):
        return obj
    if callable(getattr(obj, "encode", None)):
        return ObjectEncoder(obj, name or type(obj).__name__, fingerprint, batch)
    if callable(obj):
        return FunctionMeasure(obj, name or getattr(obj, "__name__", type(obj).__name__))
    raise InputError(
        None,
        None,
        f"cannot use a {type(obj).__name__} as a measure: give a spec string (`overlap`), an "
        "object with encode(list[str]) -> array, or a function f(pairs) -> scores",
    )
