"""In-memory predictions as a kind's submission: the converters behind each kind's
``as_submission`` (:meth:`simeval.kinds.base.TaskKind.as_submission`), which
``simeval.score(target, predictions)`` calls. The shapes accepted and the one alignment rule
are described in :mod:`simeval.api.predictions`; every number goes through the readers'
converter (:func:`simeval.data.textio.as_number`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sized
from typing import Any

import numpy as np

from simeval.data.textio import as_number, as_numbers, shown, shown_value
from simeval.errors import InputError

SCORE_COLUMNS = ("sim", "score", "similarity", "pred", "prediction", "predicted")
PAIR_SHAPES = (
    "one number per gold row (a list, tuple or 1-d array of exactly its length), "
    "{(word1, word2): score}, a pandas Series indexed by pair, or a DataFrame with columns "
    "word1, word2 and a score column"
)


def _described(value: Any) -> str:
    """What a refused value is, for a message: its type, and a shape or length."""
    shape = getattr(value, "shape", None)
    if shape is not None:
        return f"a {type(value).__name__} of shape {tuple(shape)}"
    if isinstance(value, Sized):
        return f"a {type(value).__name__} of length {len(value)}"
    return f"a {type(value).__name__}"


def _is_series(value: Any) -> bool:
    return type(value).__name__ == "Series" and hasattr(value, "index")


def _is_frame(value: Any) -> bool:
    return type(value).__name__ == "DataFrame" and hasattr(value, "columns")


def _flat(
    name: str, values: Any, count: int, expected: str, *, missing: bool, rows: str = "gold rows"
) -> np.ndarray:
    """``values`` as ``count`` numbers in order, if they are a flat sequence of that length;
    else :class:`InputError` saying ``expected``."""
    if _is_series(values):
        index = values.index
        if not (type(index).__name__ == "RangeIndex" and index.start == 0 and index.step == 1):
            raise InputError(
                None, None, f"{name}: a Series is read by its index, and this index is neither "
                f"pairs nor the default 0..n-1; expected {expected}",
            )  # fmt: skip
        values = values.to_numpy()
    array_like = isinstance(values, np.ndarray)
    if (array_like and values.ndim != 1) or not (array_like or isinstance(values, list | tuple)):
        raise InputError(None, None, f"{name}: got {_described(values)}; expected {expected}")
    if len(values) != count:
        raise InputError(
            None, None, f"{name}: {len(values)} predictions for {count} {rows}; expected "
            f"{expected}",
        )  # fmt: skip
    return as_numbers(values, f"{name}: prediction", missing=missing)


def pair_submission(target: Any, predictions: Any) -> Any:
    """A word-pair benchmark's predictions as scored pairs: keyed by pair, or a flat
    sequence lined up with the gold's rows (a pair the gold holds twice included)."""
    from simeval.data.pair_files import ScoredPairs

    rows = list(target.gold.pairs)
    keyed = _keyed_pairs(target.name, predictions)
    if keyed is None:
        scores = _flat(target.name, predictions, len(rows), PAIR_SHAPES, missing=True)
        keyed = _one_score_per_pair(target.name, zip(rows, scores, strict=True))
    if not keyed:
        raise InputError(None, None, f"{target.name}: no predictions; expected {PAIR_SHAPES}")
    pairs, scores = list(keyed), np.array(list(keyed.values()), dtype=float)
    lines = np.arange(1, len(pairs) + 1)
    return ScoredPairs(None, pairs, scores, lines)  # type: ignore[arg-type]


def _keyed_pairs(name: str, predictions: Any) -> dict[tuple[str, str], float] | None:
    """``{pair: score}`` from predictions keyed by pair (a dict, a Series indexed by pair, a
    DataFrame); ``None`` for anything else (a flat sequence, or what is refused as one)."""
    if _is_frame(predictions):
        return _frame_pairs(name, predictions)
    if _is_series(predictions):
        index = predictions.index
        by_pair = getattr(index, "nlevels", 1) == 2 or (
            len(index) > 0 and all(isinstance(k, tuple) for k in index)
        )
        if not by_pair:
            return None  # the default index is a sequence; any other is refused there
        rows = zip(index, predictions.to_numpy(), strict=True)
    elif isinstance(predictions, Mapping):
        rows = iter(predictions.items())
    else:
        return None
    return _one_score_per_pair(name, (_pair_row(name, key, value) for key, value in rows))


def _pair_row(name: str, key: Any, value: Any) -> tuple[tuple[str, str], float]:
    """One keyed prediction: the key a pair of words, the value a number (None or NaN: the
    pair is unscored)."""
    if not (isinstance(key, tuple) and len(key) == 2 and all(isinstance(w, str) for w in key)):
        raise InputError(
            None, None, f"{name}: expected a pair of words (word1, word2) as a key, got "
            f"{shown_value(key)}",
        )  # fmt: skip
    pair = (str(key[0]), str(key[1]))
    return pair, as_number(value, f"{name}: the score of {pair!r}", missing=True)


def _frame_pairs(name: str, frame: Any) -> dict[tuple[str, str], float]:
    """``{pair: score}`` from a DataFrame's ``word1``, ``word2`` and score columns."""
    columns = [str(c) for c in frame.columns]
    if len(set(columns)) != len(columns) or not {"word1", "word2"} <= set(columns):
        raise InputError(
            None, None, f"{name}: a DataFrame needs one column word1, one word2 and a score "
            f"column; it has {shown(', '.join(columns))}",
        )  # fmt: skip
    frame = frame.set_axis(columns, axis=1)
    score = _score_column(name, frame, columns)
    rows = zip(zip(frame["word1"], frame["word2"], strict=True), frame[score], strict=True)
    return _one_score_per_pair(name, (_pair_row(name, key, value) for key, value in rows))


def _score_column(name: str, frame: Any, columns: list[str]) -> str:
    """The score column: the one named as a score, else the only numeric column besides
    word1 and word2; several candidates are refused (a number column may be an id)."""
    named = [c for c in SCORE_COLUMNS if c in columns]
    numeric = [c for c in columns if c not in ("word1", "word2")
               and frame[c].dtype.kind in "fiu"]  # fmt: skip
    found = named or numeric
    if len(found) == 1:
        return found[0]
    why = f"several ({', '.join(found)})" if found else "none"
    raise InputError(
        None, None, f"{name}: a DataFrame's score column is ambiguous: {shown(why)}; name one "
        f"column {' or '.join(SCORE_COLUMNS)}",
    )  # fmt: skip


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


def sts_submission(target: Any, predictions: Any) -> Any:
    """An STS benchmark's predictions: one number per sentence pair, in its order."""
    from simeval.data.sts import STSOutput

    expected = (
        "one number per sentence pair, in the order of .pairs (a list, tuple or 1-d array of "
        "exactly its length)"
    )
    if isinstance(predictions, Mapping) or _is_frame(predictions):
        raise InputError(None, None, f"{target.name}: got {_described(predictions)}; expected "
                         f"{expected}")  # fmt: skip
    scores = _flat(
        target.name, predictions, len(target.pairs), expected, missing=False, rows="sentence pairs"
    )
    return STSOutput(None, scores, None)


def as_query_dict(value: Any) -> Any:
    """ranx's ``Qrels`` and ``Run`` objects as the ``{query_id: {doc_id: value}}`` they hold
    (their ``to_dict()``); anything else as it is. Known by their class name and method, so
    that ranx (and numba under it) is never imported here."""
    if isinstance(value, Mapping) or type(value).__name__ not in ("Qrels", "Run"):
        return value
    to_dict = getattr(value, "to_dict", None)
    return to_dict() if callable(to_dict) else value


def run_submission(target: Any, predictions: Any) -> Any:
    """A linking benchmark's predictions: a run, ``{query_id: {doc_id: score}}``, or ranx's
    ``Run`` (:func:`as_query_dict`)."""
    from simeval.data.trec import Run, id_in_memory, refuse_repeats_in_memory

    predictions = as_query_dict(predictions)
    expected = "a run as {query_id: {doc_id: score}}"
    if not isinstance(predictions, Mapping) or not predictions:
        raise InputError(
            None, None, f"{target.name}: got {_described(predictions)}; expected {expected}"
        )
    qids, docnos, scores = [], [], []
    for qid, ranked in predictions.items():
        if not isinstance(ranked, Mapping):
            raise InputError(
                None, None, f"{target.name}: query {qid!r}: expected {{doc_id: score}}"
            )
        if not ranked:  # pytrec_eval would average it in as 0; a TREC run file cannot hold it
            raise InputError(
                None, None, f"{target.name}: query {qid!r} has no document; leave it out of "
                "the run (complete=True scores every judged query without one as 0, as "
                "trec_eval -c does)",
            )  # fmt: skip
        for docno, value in ranked.items():
            qids.append(id_in_memory(qid, target.name, "query"))
            docnos.append(id_in_memory(docno, target.name, "document"))
            scores.append(as_number(value, f"{target.name}: query {qid!r}, document {docno!r}"))
    refuse_repeats_in_memory(np.array(qids, dtype=bytes), np.array(docnos, dtype=bytes),
                             target.name, "retrieved")  # fmt: skip
    return Run(
        None,
        np.array(qids, dtype=bytes),
        np.array(docnos, dtype=bytes),
        np.array(scores, dtype=float),
        np.arange(1, len(scores) + 1),
    )
