"""Training pairs from benchmarks: what ``simeval train encoder`` and ``train combine`` learn
from. Gold is rescaled to [0, 1] by the benchmark's range (STS: 0–5; word pairs: their declared
range, else the observed minimum and maximum); related/unrelated gold is already 1/0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from simeval.errors import InputError
from simeval.text.normalize import normalize


@dataclass
class TrainingPairs:
    """Texts and gold in [0, 1], with where each benchmark's pairs came from."""

    a: list[str]
    b: list[str]
    gold: np.ndarray
    sources: dict[str, dict[str, Any]]


def _scale(benchmark: Any, gold: np.ndarray) -> tuple[float, float]:
    """The benchmark's score range: STS 0–5, a declared range, else what its gold spans."""
    declared = getattr(benchmark, "score_range", None)
    fixed = benchmark.task_kind.gold_range
    if fixed is not None:
        return fixed
    if declared:
        return float(declared[0]), float(declared[1])
    return float(np.nanmin(gold)), float(np.nanmax(gold))


def scored_pairs(bench: Any) -> tuple[list[tuple[str, str]], np.ndarray]:
    """A benchmark's pairs and gold (STS sets and word-pair sets alike)."""
    if hasattr(bench, "pairs") and isinstance(getattr(bench, "gold", None), np.ndarray):
        return list(bench.pairs), np.asarray(bench.gold, dtype=float)
    if hasattr(getattr(bench, "gold", None), "scores"):
        return list(bench.gold.pairs), np.asarray(bench.gold.scores, dtype=float)
    raise InputError(None, None, f"{bench.name}: not a benchmark of scored pairs")


def pair_key(a: str, b: str) -> frozenset[str]:
    """A pair in either direction, case, surrounding space and ё/е ignored (the look-up of
    every simeval measure and of ``train graph --exclude``: a test pair spelled with ё in one
    file and е in another is still the same pair)."""
    return frozenset((normalize(a.strip()), normalize(b.strip())))


def training_pairs(
    benchmarks: Sequence[Any], binary: bool = False, exclude: Sequence[Any] = ()
) -> TrainingPairs:
    """The gold-scored pairs of ``benchmarks`` (STS sets or graded word pairs; with ``binary``
    related/unrelated sets instead, gold 1/0), less every pair that any ``exclude`` benchmark
    holds in either direction (:func:`pair_key`)."""
    banned = {pair_key(x, y) for bench in exclude for x, y in scored_pairs(bench)[0]}
    a: list[str] = []
    b: list[str] = []
    gold: list[np.ndarray] = []
    sources: dict[str, dict[str, Any]] = {}
    for bench in benchmarks:
        pairs, scores = scored_pairs(bench)
        graded = not bench.task_kind.binary_gold
        if binary and graded:
            raise InputError(None, None, f"{bench.name}: graded, and the others are not")
        if not binary and not graded:
            raise InputError(
                None, None, f"{bench.name}: train on graded pairs, not related/unrelated"
            )
        keep = ~np.isnan(scores)
        low, high = _scale(bench, scores)
        if high <= low:
            raise InputError(None, None, f"{bench.name}: its gold has no spread to learn from")
        dropped = 0
        for i, (x, y) in enumerate(pairs):
            if keep[i] and pair_key(x, y) in banned:
                keep[i] = False
                dropped += 1
        for (x, y), k in zip(pairs, keep, strict=True):
            if k:
                a.append(x)
                b.append(y)
        gold.append(np.clip((scores[keep] - low) / (high - low), 0.0, 1.0))
        sources[bench.name] = {
            "pairs": int(keep.sum()),
            "excluded": dropped,
            "range": [low, high],
            "data": bench.data,
        }
    if not a:
        raise InputError(None, None, "no training pairs: name scored benchmarks with --on")
    return TrainingPairs(a, b, np.concatenate(gold), sources)
