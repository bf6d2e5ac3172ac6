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
- word vectors in memory: a dict ``{word: vector}``, a ``(matrix, words)`` pair (row i is the
  vector of ``words[i]``; either order) or gensim ``KeyedVectors``: the cosine of two words'
  vectors, a text the mean of its words' vectors, as the ``vectors`` measure scores a file
  (:class:`MemoryVectors`);
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
from simeval.measures.base import Measure, Pairs, numbers_per_pair
from simeval.measures.encoder import Embedding, EmbeddingCache
from simeval.measures.vectors import Vocabulary, Wanted, WordVectors, pick_rows


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
        return numbers_per_pair(
            self._answer(pairs),
            len(pairs),
            not_numbers=f"{self.name}: expected numbers, got {{error}}",
            wrong_count=f"{self.name} returned {{got}} scores for {len(pairs)} pairs; expected "
            "one score per pair (NaN where it cannot score)",
        )

    score_texts = score_words

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "kind": "python"}


class MemoryVectors(WordVectors):
    """Word vectors held in memory as the ``vectors`` measure: ``words`` and ``row(i)``, the
    vector of ``words[i]``; a word not there leaves its pair unscored (``oov="zero"`` scores it
    0, RUSSE's rule; ``"skip"`` leaves it out)."""

    def __init__(
        self,
        words: list[str],
        row: Callable[[int], Any],
        dim: int,
        name: str,
        oov: str = "zero",
    ) -> None:
        if oov not in ("zero", "skip"):
            raise InputError(None, None, f"oov must be zero or skip, not {oov!r}")
        params = {"path": f"<{name}>", "format": "memory", "oov": oov, "fallback": "skip",
                  "sif": False, "lang": "en", "words": len(words), "dimension": dim}  # fmt: skip
        super().__init__(name, params)
        self.name = name
        self.words, self.row, self.dim = words, row, dim

    def _read(self, wanted: Wanted) -> Vocabulary:
        return pick_rows(self.path, self.words, self.row, self.dim, wanted)

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "kind": "python"}


def word_vectors(obj: Any, name: str | None = None) -> MemoryVectors | None:
    """``obj`` as :class:`MemoryVectors` when it holds word vectors (module docstring), else
    None."""
    from collections.abc import Mapping

    if hasattr(obj, "index_to_key") and hasattr(obj, "vectors"):  # gensim KeyedVectors
        words = [str(w) for w in obj.index_to_key]
        matrix = np.asarray(obj.vectors)
        return MemoryVectors(words, matrix.__getitem__, matrix.shape[1], name or "keyed-vectors")
    if isinstance(obj, Mapping) and obj:
        words = [str(w) for w in obj]
        vectors = list(obj.values())
        first = np.asarray(vectors[0])
        if first.ndim != 1 or first.dtype.kind not in "fiu":
            return None
        for word, vector in zip(words, vectors, strict=True):
            if np.shape(vector) != first.shape:
                raise InputError(
                    None, None, f"the vector of {word!r} has shape {np.shape(vector)}, not "
                    f"{first.shape} as the first one",
                )  # fmt: skip
        return MemoryVectors(words, vectors.__getitem__, len(first), name or "vectors")
    if isinstance(obj, tuple) and len(obj) == 2:
        a, b = obj
        matrix, words = (a, b) if np.ndim(a) == 2 else (b, a)
        if np.ndim(matrix) != 2 or not all(isinstance(w, str) for w in words):
            return None
        matrix = np.asarray(matrix)
        if len(words) != matrix.shape[0]:
            raise InputError(
                None, None, f"{len(words)} words for a matrix of {matrix.shape[0]} rows"
            )
        return MemoryVectors(list(words), matrix.__getitem__, matrix.shape[1], name or "vectors")
    return None


def as_measure(
    obj: Any, name: str | None = None, fingerprint: str | None = None, batch: int = 64
) -> Measure:
    """``obj`` as a measure (module docstring): a Measure as it is, an object with ``encode``,
    or a function of pairs."""
    if isinstance(obj, Measure):
        return obj
    vectors = word_vectors(obj, name)
    if vectors is not None:
        return vectors
    if callable(getattr(obj, "encode", None)):
        return ObjectEncoder(obj, name or type(obj).__name__, fingerprint, batch)
    if callable(obj):
        return FunctionMeasure(obj, name or derived_name(obj))
    raise InputError(
        None,
        None,
        f"cannot use a {type(obj).__name__} as a measure: give a spec string (`overlap`), an "
        "object with encode(list[str]) -> array, a function f(pairs) -> scores or f(a, b) -> "
        "score, or word vectors ({word: vector}, (matrix, words), gensim KeyedVectors)",
    )
