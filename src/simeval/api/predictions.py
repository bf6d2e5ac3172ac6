"""Predictions given in memory, as the submission a task scores: what ``simeval.score(target,
predictions)`` accepts besides a file.

- word pairs (graded, related): a sequence of numbers lined up with the gold's rows
  (``target.gold.pairs``, a pair the gold holds twice included), a dict ``{(word1, word2):
  score}``, or a pandas DataFrame with columns ``word1``, ``word2`` and a score column (``sim``
  or ``score``, or the third);
- STS: a sequence lined up with the sentence pairs (``target.pairs``), one per line;
- linking: ranx's run layout, ``{query_id: {doc_id: score}}``;
- a suite: ``{member_name: predictions}``, one entry per member.

Nothing is matched by position unless the lengths agree, and a pair given two different scores
is refused: a misaligned list can never shift scores silently.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from simeval.errors import InputError

SCORE_COLUMNS = ("sim", "score", "similarity")


def is_in_memory(predictions: Any) -> bool:
    """Whether ``predictions`` are values rather than files: a str or a Path is a file, and
    so is a list of them, unless every string in it reads as a number (``["0.5", "0.7"]``)."""
    from pathlib import Path

    if isinstance(predictions, str | Path):
        return False
    if not isinstance(predictions, Sequence) or not predictions:
        return True
    if not all(isinstance(p, str | Path) for p in predictions):
        return True
    return all(isinstance(p, str) and _is_number(p) for p in predictions)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def as_submission(target: Any, predictions: Any) -> Any:
    """``predictions`` as ``target``'s submission (module docstring)."""
    members = list(getattr(target, "members", []) or [])
    if members:
        if not isinstance(predictions, Mapping):
            raise InputError(
                None, None, f"{target.name} is a suite: give {{member name: predictions}}"
            )
        unknown = sorted(set(predictions) - {m.name for m in members})
        if unknown:
            raise InputError(None, None, f"{target.name} has no member named {unknown[0]!r}")
        return {m.name: as_submission(m, predictions[m.name]) for m in members if m.name in
                predictions}  # fmt: skip
    kind = getattr(target, "kind", "")
    if kind in ("graded-pairs", "related-pairs"):
        return _pair_submission(target, predictions)
    if kind == "sts":
        return _sts_submission(target, predictions)
    if kind == "linking":
        return _run_submission(target, predictions)
    raise InputError(None, None, f"{target.name}: in-memory predictions for {kind!r} are not read")


def _numbers(values: Any, what: str) -> np.ndarray:
    try:
        scores = np.asarray(values, dtype=float).reshape(-1)
    except (TypeError, ValueError) as exc:
        raise InputError(None, None, f"{what}: expected numbers, got {exc}") from None
    return scores


def _pair_submission(target: Any, predictions: Any) -> Any:
    from simeval.data.pair_files import ScoredPairs

    rows = list(target.gold.pairs)
    if _is_frame(predictions):
        predictions = _frame_pairs(target.name, predictions)
    if isinstance(predictions, Mapping):
        pairs = [tuple(map(str, key)) for key in predictions]
        if any(len(p) != 2 for p in pairs):
            raise InputError(None, None, f"{target.name}: a key must be a pair (word1, word2)")
        scores = _numbers(list(predictions.values()), target.name)
    else:
        scores = _numbers(predictions, target.name)
        if len(scores) != len(rows):
            raise InputError(
                None,
                None,
                f"{target.name}: {len(scores)} predictions for {len(rows)} gold rows; give one "
                "per row of .pairs, in order, or a dict {(word1, word2): score}",
            )
        seen = _one_score_per_pair(target.name, zip(rows, scores, strict=True))
        pairs, scores = list(seen), np.array(list(seen.values()), dtype=float)
    lines = np.arange(1, len(pairs) + 1)
    return ScoredPairs(None, pairs, scores, lines)  # type: ignore[arg-type]


def _is_frame(value: Any) -> bool:
    return type(value).__name__ == "DataFrame" and hasattr(value, "columns")


def _frame_pairs(name: str, frame: Any) -> dict[tuple[str, str], float]:
    columns = [str(c) for c in frame.columns]
    if len(columns) < 3:
        raise InputError(None, None, f"{name}: a DataFrame needs word1, word2 and a score column")
    first, second = ("word1", "word2") if {"word1", "word2"} <= set(columns) else columns[:2]
    score = next((c for c in SCORE_COLUMNS if c in columns), columns[2])
    columns_read = zip(frame[first], frame[second], frame[score], strict=True)
    rows = (((str(a), str(b)), float(s)) for a, b, s in columns_read)
    return _one_score_per_pair(name, rows)


def _one_score_per_pair(
    name: str, rows: Iterable[tuple[tuple[str, str], float]]
) -> dict[tuple[str, str], float]:
    """``{pair: score}`` from rows; a pair given twice must have the same score both times
    (two NaNs are the same: the pair is unscored)."""
    seen: dict[tuple[str, str], float] = {}
    for pair, value in rows:
        before = seen.setdefault(pair, value)
        if not (before == value or (np.isnan(before) and np.isnan(value))):
            raise InputError(
                None,
                None,
                f"{name}: pair {pair!r} is given twice with two scores ({before!r} and "
                f"{value!r}); a pair has one score",
            )
    return seen


def _sts_submission(target: Any, predictions: Any) -> Any:
    from simeval.data.sts import STSOutput

    scores = _numbers(predictions, target.name)
    if len(scores) != len(target.pairs):
        raise InputError(
            None,
            None,
            f"{target.name}: {len(scores)} predictions for {len(target.pairs)} sentence pairs; "
            "give one per line of .pairs, in order",
        )
    if not np.isfinite(scores).all():
        i = int(np.flatnonzero(~np.isfinite(scores))[0])
        raise InputError(
            None, None, f"{target.name}: prediction {i} is {scores[i]!r}, not a number"
        )
    return STSOutput(None, scores, None)


def _run_submission(target: Any, predictions: Any) -> Any:
    from simeval.data.trec import Run, refuse_repeats_in_memory

    if not isinstance(predictions, Mapping):
        raise InputError(
            None, None, f"{target.name}: give a run as {{query_id: {{doc_id: score}}}}"
        )
    qids, docnos, scores = [], [], []
    for qid, ranked in predictions.items():
        if not isinstance(ranked, Mapping):
            raise InputError(
                None, None, f"{target.name}: query {qid!r}: expected {{doc_id: score}}"
            )
        for docno, value in ranked.items():
            qids.append(str(qid).encode())
            docnos.append(str(docno).encode())
            scores.append(value)
    values = _numbers(scores, target.name)
    if not np.isfinite(values).all():
        raise InputError(None, None, f"{target.name}: a run's scores must be finite numbers")
    refuse_repeats_in_memory(np.array(qids, dtype=bytes), np.array(docnos, dtype=bytes),
                             target.name, "retrieved")  # fmt: skip
    return Run(
        None,
        np.array(qids, dtype=bytes),
        np.array(docnos, dtype=bytes),
        values,
        np.arange(1, len(values) + 1),
    )
