"""Predictions given in memory, as the submission a task scores: what ``simeval.score(target,
predictions)`` accepts besides a file.

One alignment rule: anything keyed aligns by its keys, never by position; a flat sequence
(a list, a tuple, a 1-d array, a pandas Series with its default index) aligns by position,
and only when its length is exactly the gold's; anything else is refused, saying what was
expected.

- word pairs (graded, related): a flat sequence lined up with the gold's rows
  (``target.gold.pairs``, a pair the gold holds twice included); or keyed by pair: a dict
  ``{(word1, word2): score}``, a pandas Series indexed by pair (tuples or a two-level
  MultiIndex), or a DataFrame with columns ``word1``, ``word2`` and one score column (named
  ``sim``, ``score``, ``similarity``, ``pred``, ``prediction`` or ``predicted``, as
  :data:`simeval.kinds.predictions.SCORE_COLUMNS` lists them, or the only numeric column
  besides);
- STS: a flat sequence lined up with the sentence pairs (``target.pairs``), one per line;
- linking: ranx's run layout, ``{query_id: {doc_id: score}}``, or ranx's ``Run`` object
  itself (read through its ``to_dict()``; ranx's ``Qrels`` likewise judges
  :func:`simeval.api.targets.benchmark_from_qrels`), each query with a document at least (a
  query without one is refused: pytrec_eval would count it 0, a run file cannot hold it);
- a suite: ``{member_name: predictions}``, one entry per member.

Every number goes through the readers' converter (:func:`simeval.data.textio.as_number`):
finite ints and floats, or strings in the readers' ASCII decimal grammar (no ``1_0``, no
other script's digits, no ``inf``); for word pairs ``None`` or NaN leave a pair unscored.
A pair given two different scores is refused: a misaligned list can never shift scores
silently.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from simeval.errors import InputError, did_you_mean


def is_in_memory(predictions: Any) -> bool:
    """Whether ``predictions`` are values rather than files: a str or a Path is a file, and
    so is a list of them, unless a string in it reads as a number (``["0.5", "0.7"]``: then
    every one must, by the readers' rule)."""
    from pathlib import Path

    if isinstance(predictions, str | Path):
        return False
    if not isinstance(predictions, Sequence) or not predictions:
        return True
    if not all(isinstance(p, str | Path) for p in predictions):
        return True
    return any(isinstance(p, str) and _looks_like_number(p) for p in predictions)


def _looks_like_number(text: str) -> bool:
    """Whether ``text`` is meant as a number rather than a path: Python's lenient ``float``
    decides only that; the number itself is then read by the readers' strict rule, which
    refuses ``1_0`` with a message instead of looking for a file named so."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def as_submission(target: Any, predictions: Any) -> Any:
    """``predictions`` as ``target``'s submission (module docstring): a suite's per member,
    a benchmark's as its kind reads them (:meth:`~simeval.kinds.base.TaskKind.as_submission`)."""
    members = list(getattr(target, "members", []) or [])
    if members:
        if not isinstance(predictions, Mapping):
            raise InputError(
                None, None, f"{target.name} is a suite: give {{member name: predictions}}"
            )
        names = [m.name for m in members]
        unknown = sorted(set(predictions) - set(names), key=str)
        if unknown:
            hint = did_you_mean(str(unknown[0]), names)
            raise InputError(
                None,
                None,
                f"{target.name} has no member named {unknown[0]!r}{hint} (members: "
                f"{', '.join(names)})",
            )
        return {m.name: as_submission(m, predictions[m.name]) for m in members if m.name in
                predictions}  # fmt: skip
    return target.task_kind.as_submission(target, predictions)
