"""The one ranking rule: the order in which trec_eval ranks a run.

Per query, documents are ranked by **score descending**; documents with equal scores by their
**docno in descending byte order** (C's ``strcmp`` on the UTF-8 bytes: of two tied documents the
one with the greater id comes first); the run's rank column is ignored. This is trec_eval 9's
``form_res_rels.c`` (its comparator ``comp_sim_docno``), which sorts every query's results this
way before any measure is computed; pytrec_eval embeds the same code. trec_eval's depth cut
(``-M``, unlimited by default) keeps the first documents of this order.

Everything in simeval that ranks or cuts a ranking follows this module, so a top k is always the
first k of trec_eval's order: the TREC measures (:mod:`.trec_eval`), writing runs
(``simeval.data.trec.write_run``) and the linking rankers' top-k selection
(``simeval.measures.search``), which break ties with :func:`tie_ranks` of the documents' ids.

Scores compare as floating-point numbers: only exactly equal scores tie. A NaN score (which the
run reader refuses) sorts after every number of its query.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from simeval.metrics.ranking.id_keys import as_bytes


def tie_ranks(docnos: Sequence[str] | Sequence[bytes] | np.ndarray) -> np.ndarray:
    """Each document's place among tied scores: 0 for the docno trec_eval puts first (the
    greatest in byte order), 1 for the next, and so on; equal docnos share a value.

    Sorting tied documents by this key, ascending, is trec_eval's docno order; it lets code that
    knows documents by position (a corpus, the columns of a score matrix) break ties as
    trec_eval does without carrying the ids along.
    """
    ids = as_bytes(docnos)
    if not len(ids):
        return np.zeros(0, dtype=np.int64)
    distinct, inverse = np.unique(ids, return_inverse=True)
    return (len(distinct) - 1 - inverse.ravel()).astype(np.int64)


def ranking(scores: np.ndarray, ties: np.ndarray, groups: np.ndarray | None = None) -> np.ndarray:
    """Indices that sort documents by ``groups`` ascending (the queries, any integer codes),
    then score descending, then ``ties`` ascending (a :func:`tie_ranks` key); stable, so
    documents equal in all three keep their order.

    The three keys are folded into one 64-bit integer (dense codes of each) and sorted once,
    several times faster than ``np.lexsort`` over three keys on a million rows; when the codes'
    product would not fit, ``np.lexsort`` does it. Both give the same order."""
    scores = np.asarray(scores, dtype=float)
    ties = np.asarray(ties)
    keys: tuple[np.ndarray, ...] = (ties, -scores)
    if groups is not None:
        keys = (*keys, np.asarray(groups))
    if not len(scores):
        return np.zeros(0, dtype=np.int64)
    parts = [_int_codes(ties), _descending_codes(scores)]
    if groups is not None:
        parts.append(_int_codes(np.asarray(groups)))
    if np.prod([float(size) for _, size in parts]) >= 2.0**62:
        return np.lexsort(keys)
    key = np.zeros(len(scores), dtype=np.int64)
    for codes, size in reversed(parts):  # the most significant first
        key = key * size + codes
    return np.argsort(key, kind="stable")


def _int_codes(values: np.ndarray) -> tuple[np.ndarray, int]:
    """Integer ``values`` as codes from 0 in the same order, and how many codes there can be."""
    low = int(values.min())
    return values.astype(np.int64) - low, int(values.max()) - low + 1


def _descending_codes(scores: np.ndarray) -> tuple[np.ndarray, int]:
    """Codes from 0 for the highest score up, equal scores equal codes (0.0 and -0.0 too), and
    NaN last, as ``np.lexsort`` orders ``-scores``; and how many codes there are."""
    distinct, inverse = np.unique(scores, return_inverse=True)
    n = len(distinct)
    codes = (n - 1 - inverse.ravel()).astype(np.int64)
    if np.isnan(distinct[-1]):  # np.unique keeps one NaN, last: put it after every number
        codes = np.where(codes == 0, n - 1, codes - 1)
    return codes, n


def ranking_rows(scores: np.ndarray, ties: np.ndarray) -> np.ndarray:
    """Per row of a 2-D array, the column indices that sort it by score descending, then
    ``ties`` ascending (broadcast to the shape of ``scores``: one key per column, or per cell)."""
    scores = np.asarray(scores)
    ties = np.broadcast_to(ties, scores.shape)
    return np.lexsort((ties, -scores), axis=-1)


def trec_order(qids: np.ndarray, docnos: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Indices that put a run in trec_eval's order: queries in byte order of their ids, each
    ranked by score descending, then docno descending. Ids are ``str`` or UTF-8 ``bytes``."""
    _, q = np.unique(as_bytes(qids), return_inverse=True)
    return ranking(scores, tie_ranks(docnos), q.ravel())


def ranks_before(
    scores: np.ndarray, docnos: np.ndarray, rows: np.ndarray, ref: np.ndarray
) -> np.ndarray:
    """Whether document ``rows[i]`` ranks before document ``ref[i]`` (of the same query) in
    trec_eval's order: a higher score, or the same score and a greater docno. ``docnos`` are
    byte strings; a document does not rank before itself. Docnos are compared only where the
    scores tie."""
    a, b = scores[rows], scores[ref]
    before = a > b
    tied = np.flatnonzero(a == b)
    before[tied] = docnos[rows[tied]] > docnos[ref[tied]]
    return before
