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
  returning one score per pair, NaN where it cannot score; or a function of one pair,
  ``f(text1, text2) -> score``, told apart by its signature (two required positional
  parameters), called once per distinct pair.

The record names the system by ``name``; by default, by the class or function name and the
values it was made with (:func:`derived_name`), so that the runs of a parameter sweep kept in
one results folder stay apart. It keeps the class, the fingerprint and the batch size.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
from collections.abc import Callable
from pathlib import Path
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


SIMPLE = (int, float, str, bool, type(None))


def _shown(value: Any) -> str:
    return repr(value) if isinstance(value, str) else str(value)


def derived_name(function: Any) -> str:
    """A name for a function that tells apart the runs of a sweep: its name (a lambda's, by
    where it is written: ``lambda@file.py:12``) and the simple values it was made with —
    ``functools.partial`` arguments, defaults of keyword parameters, and the numbers, strings
    and flags its closure holds: ``score(alpha=0.3)``."""
    name, given, values = _made_with(function)
    shown = [*given, *(f"{k}={_shown(v)}" for k, v in values.items())]
    return f"{name}({', '.join(shown)})" if shown else name


def _made_with(function: Any) -> tuple[str, list[str], dict[str, Any]]:
    """A function's name, the positional values bound to it, and its named simple values."""
    if isinstance(function, functools.partial):
        name, given, values = _made_with(function.func)
        given = given + [_shown(a) for a in function.args if isinstance(a, SIMPLE)]
        values.update({k: v for k, v in function.keywords.items() if isinstance(v, SIMPLE)})
        return name, given, values
    name = getattr(function, "__name__", type(function).__name__)
    code = getattr(function, "__code__", None)
    if name == "<lambda>" and code is not None:
        name = f"lambda@{Path(code.co_filename).name}:{code.co_firstlineno}"
    values: dict[str, Any] = {}
    try:
        for p in inspect.signature(function).parameters.values():
            if p.default is not p.empty and isinstance(p.default, SIMPLE):
                values[p.name] = p.default
    except (TypeError, ValueError):
        pass
    cells = getattr(function, "__closure__", None) or ()
    if code is not None:
        for var, cell in zip(code.co_freevars, cells, strict=False):
            try:
                value = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            if isinstance(value, SIMPLE):
                values.setdefault(var, value)
    return name, [], values


def takes_one_pair(function: Callable[..., Any]) -> bool:
    """Whether ``function`` scores one pair, ``f(a, b)`` (two required positional
    parameters), rather than a list of pairs, ``f(pairs)``."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = [
        p for p in parameters
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]  # fmt: skip
    return len(positional) == 2


class FunctionMeasure(Measure):
    """A function ``f(pairs) -> scores``, or ``f(a, b) -> score`` of one pair, as a measure
    (words and texts alike)."""

    def __init__(self, function: Callable[..., Any], name: str) -> None:
        super().__init__(name, {"function": _qualified(function)})
        self.name = name
        self.function = function
        self.per_pair = takes_one_pair(function)
        if self.per_pair:
            self.params["calls"] = "one pair"

    def _answer(self, pairs: list[tuple[str, str]]) -> Any:
        if not self.per_pair:
            return self.function(pairs)
        memo: dict[tuple[str, str], Any] = {}
        for pair in pairs:
            if pair not in memo:
                memo[pair] = self.function(*pair)
        return [memo[p] for p in pairs]

    def score_words(self, pairs: Pairs) -> np.ndarray:
        pairs = list(pairs)
        answer = self._answer(pairs)
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
        return FunctionMeasure(obj, name or derived_name(obj))
    raise InputError(
        None,
        None,
        f"cannot use a {type(obj).__name__} as a measure: give a spec string (`overlap`), an "
        "object with encode(list[str]) -> array, or a function f(pairs) -> scores",
    )
