"""Ranking metrics for document linking, with trec_eval's semantics.

Matches ``trec_eval`` 9 (and ``pytrec_eval``) for ``success_1``, ``success_5``, ``success_10``,
``recip_rank``, ``map``, ``Rprec``, ``P_k``, ``recall_k`` and ``ndcg_cut_k`` (at trec_eval's
cut-offs k = 5, 10, 15, 20, 30, 100, 200, 500, 1000), ``num_q``, ``num_ret``, ``num_rel`` and
``num_rel_ret``:

- order: trec_eval's, from :mod:`.order` — per query by score descending, ties
  by docno in descending byte order (``form_res_rels.c``); the rank column of the run file is
  ignored;
- depth: every retrieved document counts by default (``max_retrieved=None``), as in trec_eval
  9, whose ``-M`` is unlimited unless given (and pytrec_eval, which never cuts); with
  ``max_retrieved=N`` only the first N documents of each query count (``trec_eval -M N``);
- relevant: relevance ≥ ``relevance_level`` (default 1, trec_eval's ``-l``) for every measure
  but nDCG, whose gain is the relevance itself (graded: 2 counts twice 1; 0 and below nothing);
  a document the qrels do not judge is never relevant;
- averaging: over the queries present in both qrels and run (a judged query without a
  relevant document included, scoring 0); ``complete=True`` (trec_eval ``-c``) averages over
  every query of the qrels, a query without results scoring 0;
- ``num_*`` measures are sums over the evaluated queries, the others means.

The kernel is vectorised, without a loop over queries, and sorts little of the run: every
measure needs only the ranks of the retrieved documents that are relevant or have a gain. For a
query with one such document (BUCC's case: one link a query) its rank is one plus the number of
the query's documents that trec_eval's order puts before it (:func:`.order.ranks_before`),
counted with ``bincount``; only the queries with several are sorted (:func:`.order.ranking`).
The measures at each cut-off come from one ``bincount`` over (cut-off, query). Identifiers are
joined through 64-bit keys (:mod:`.id_keys`), verified on the bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from simeval.metrics.ranking.id_keys import KeyCollision, as_bytes, as_text, joint_keys, pair_keys
from simeval.metrics.ranking.order import ranking, ranks_before, tie_ranks

SUCCESS_CUTOFFS = (1, 5, 10)
CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)  # trec_eval's for P, recall and ndcg_cut
_CUTOFF_ARRAY = np.array(CUTOFFS)
MEAN_MEASURES = (
    "recip_rank",
    *(f"success_{k}" for k in SUCCESS_CUTOFFS),
    "map",
    "Rprec",
    *(f"{m}_{k}" for m in ("P", "recall", "ndcg_cut") for k in CUTOFFS),
)
SUM_MEASURES = ("num_ret", "num_rel", "num_rel_ret")
# an unjudged document's relevance: below any level, as trec_eval's RELVALUE_NONPOOL (-1)
_UNJUDGED = np.iinfo(np.int64).min


@dataclass
class TrecEvaluation:
    """Per-query values (arrays aligned with ``qids``) and their aggregates.

    ``unjudged`` holds the run's queries that the qrels do not know (ignored, as in trec_eval);
    ``absent`` the judged queries with no document in the run (left out, or 0 with -c).
    """

    qids: np.ndarray
    per_query: dict[str, np.ndarray]
    aggregates: dict[str, float]
    unjudged: np.ndarray
    absent: np.ndarray


def evaluate_trec(
    run_qids: Sequence[str] | np.ndarray,
    run_docnos: Sequence[str] | np.ndarray,
    run_scores: Sequence[float] | np.ndarray,
    qrels_qids: Sequence[str] | np.ndarray,
    qrels_docnos: Sequence[str] | np.ndarray,
    qrels_relevance: Sequence[int] | np.ndarray,
    *,
    complete: bool = False,
    max_retrieved: int | None = None,
    relevance_level: int = 1,
) -> TrecEvaluation:
    """Evaluate a run against qrels (see the module docstring for the exact rules).

    Ids may be ``str`` or UTF-8 ``bytes`` arrays (the TREC readers give bytes). Each (query,
    document) must appear at most once in the run and in the qrels (the readers check this).
    Returns per-query values and aggregates named as trec_eval names them (``success_1`` is
    trec_eval's ``success.1``), with ``qids`` as ``str``. ``max_retrieved`` is trec_eval's
    ``-M``: None (the default, as trec_eval's) keeps every document, N the first N of each
    query.
    """
    if max_retrieved is not None and max_retrieved < 0:
        raise ValueError(f"max_retrieved must be None or >= 0, got {max_retrieved}")
    args = (
        as_bytes(run_qids),
        as_bytes(run_docnos),
        np.asarray(run_scores, dtype=float),
        as_bytes(qrels_qids),
        as_bytes(qrels_docnos),
        np.asarray(qrels_relevance, dtype=np.int64),
    )
    options = {"complete": complete, "max_retrieved": max_retrieved, "level": relevance_level}
    try:
        return _evaluate(*args, exact=False, **options)
    except KeyCollision:
        return _evaluate(*args, exact=True, **options)


def _evaluate(
    rq: np.ndarray,
    rd: np.ndarray,
    scores: np.ndarray,
    qq: np.ndarray,
    qd: np.ndarray,
    rel: np.ndarray,
    *,
    exact: bool,
    complete: bool,
    max_retrieved: int | None,
    level: int,
) -> TrecEvaluation:
    run_qkey, qrel_qkey = joint_keys(rq, qq, exact=exact)
    run_dkey, qrel_dkey = joint_keys(rd, qd, exact=exact)

    # Queries are those of the qrels; run rows of other queries are ignored.
    qkeys, qfirst, qrel_q = np.unique(qrel_qkey, return_index=True, return_inverse=True)
    qnames = qq[qfirst]
    n_q = len(qkeys)
    if not exact and (qq != qnames[qrel_q]).any():
        raise KeyCollision
    pos, judged = _find(qkeys, run_qkey)
    if judged.all():  # the usual case: no copies
        q, s, d, dkey, rq_judged = pos, scores, rd, run_dkey, rq
    else:
        q, s, d, dkey = pos[judged], scores[judged], rd[judged], run_dkey[judged]
        rq_judged = rq[judged]
    if not exact and (rq_judged != qnames[q]).any():
        raise KeyCollision
    unjudged = np.unique(rq[~judged])

    # Relevance of every judged run row: its docno among the judgements of its query. Qrels
    # sorted by query give each query a block; a row of a query with a single judgement
    # (BUCC's case) is compared with it directly, other rows are looked up by pair key.
    by_query = np.argsort(qrel_q, kind="stable")
    n_judged = np.bincount(qrel_q, minlength=n_q)
    block = np.cumsum(n_judged) - n_judged
    qrel_row = by_query[np.minimum(block[q], max(len(by_query) - 1, 0))]
    hit = (n_judged[q] == 1) & (qrel_dkey[qrel_row] == dkey) if len(by_query) else q < 0
    multi = np.flatnonzero(n_judged[q] > 1)
    if len(multi):
        pairs = pair_keys(qrel_q.astype(np.uint64), qrel_dkey, exact=exact)
        order = np.argsort(pairs, kind="stable")
        at, found = _find(
            pairs[order], pair_keys(q[multi].astype(np.uint64), dkey[multi], exact=exact)
        )
        hit[multi[found]] = True
        qrel_row[multi[found]] = order[at[found]]
    qrel_row = qrel_row[hit]
    if not exact and (d[hit] != qd[qrel_row]).any():
        raise KeyCollision
    row_rel = np.full(len(q), _UNJUDGED, dtype=np.int64)
    row_rel[hit] = rel[qrel_row]
    # Ranks (in trec_eval's order) of the rows any measure looks at: the relevant ones and,
    # for nDCG, those of a positive gain.
    size = np.bincount(q, minlength=n_q)
    marked = np.flatnonzero((row_rel >= level) | (row_rel > 0))
    ranked, rank = _ranks(q, s, d, marked, n_q)
    mq, gain = q[ranked], row_rel[ranked]
    # trec_eval's -M: None keeps every document; no query holds more than all the rows
    depth = len(q) if max_retrieved is None else max_retrieved
    kept = rank <= depth
    num_rel = np.bincount(qrel_q[rel >= level], minlength=n_q)
    per_query = {
        **_relevant_measures(mq[kept], rank[kept], gain[kept] >= level, num_rel, n_q),
        **_ndcg(mq[kept], rank[kept], gain[kept], qrel_q, rel, n_q),
        "num_ret": np.minimum(size, depth).astype(float),
        "num_rel": num_rel.astype(float),
    }
    in_run = size > 0
    evaluated = np.ones(n_q, dtype=bool) if complete else in_run
    if not evaluated.all():
        per_query = {name: values[evaluated] for name, values in per_query.items()}
    count = int(evaluated.sum())
    aggregates: dict[str, float] = {"num_q": float(count)}
    for name in MEAN_MEASURES:
        aggregates[name] = float(per_query[name].mean()) if count else float("nan")
    for name in SUM_MEASURES:
        aggregates[name] = float(per_query[name].sum())
    return TrecEvaluation(
        as_text(qnames[evaluated]),
        per_query,
        aggregates,
        unjudged=as_text(unjudged),
        absent=as_text(qnames[~in_run]),
    )


def _find(sorted_keys: np.ndarray, needles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Position of each needle in ``sorted_keys`` and whether it is there. Runs of equal
    consecutive needles (a run's rows come grouped by query) are searched once."""
    if not len(sorted_keys) or not len(needles):
        return np.zeros(len(needles), dtype=np.int64), np.zeros(len(needles), dtype=bool)
    heads = np.r_[0, np.flatnonzero(needles[1:] != needles[:-1]) + 1]
    at = np.searchsorted(sorted_keys, needles[heads])
    at = np.minimum(np.repeat(at, np.diff(np.r_[heads, len(needles)])), len(sorted_keys) - 1)
    return at, sorted_keys[at] == needles


def _ranks(
    q: np.ndarray, s: np.ndarray, d: np.ndarray, marked: np.ndarray, n_q: int
) -> tuple[np.ndarray, np.ndarray]:
    """The ``marked`` rows, each query's together and in rank order, and their 1-based ranks
    in trec_eval's order.

    A query with one marked row (BUCC's usual case) is not sorted: the rank is one plus the
    number of its rows that trec_eval's order puts first (:func:`.order.ranks_before`). The rows
    of a query with several are sorted (:func:`.order.ranking`).
    """
    n_marked = np.bincount(q[marked], minlength=n_q)
    solo = marked[n_marked[q[marked]] == 1]
    ref = np.full(n_q, -1)
    ref[q[solo]] = solo
    rows = np.flatnonzero(n_marked[q] == 1)
    ahead = rows[ranks_before(s, d, rows, ref[q[rows]])]
    solo_rank = np.bincount(q[ahead], minlength=n_q)[q[solo]] + 1

    rows = np.flatnonzero(n_marked[q] > 1)
    by_order = rows[ranking(s[rows], tie_ranks(d[rows]), q[rows])]
    place = _places(q[by_order])[1]
    is_marked = np.zeros(len(q), dtype=bool)
    is_marked[marked] = True
    several = is_marked[by_order]
    return np.concatenate([solo, by_order[several]]), np.concatenate([solo_rank, place[several]])


def _relevant_measures(
    mq: np.ndarray, rank: np.ndarray, is_rel: np.ndarray, num_rel: np.ndarray, n_q: int
) -> dict[str, np.ndarray]:
    """The measures of binary relevance, per query, from the retrieved relevant rows' queries
    ``mq`` and ``rank`` (each query's rows together, in rank order; other rows are masked out
    by ``is_rel``) and each query's number of relevant documents in the qrels, ``num_rel``.

    - ``recip_rank``: 1 / the first relevant rank (0 without one); ``success_k``: 1 when it is
      at most k;
    - ``map``: Σ_j j / rank_j over the j-th relevant retrieved document, divided by num_rel;
    - ``P_k``: relevant documents in the first k, divided by k (however many were retrieved);
    - ``recall_k``: the same divided by num_rel; ``Rprec``: relevant documents in the first
      num_rel, divided by num_rel (0 when num_rel is 0, for all three);
    - ``num_rel_ret``: relevant documents retrieved.
    """
    mq, rank = mq[is_rel], rank[is_rel]
    starts, j = _places(mq)  # j: each row's place among its query's relevant rows
    first = np.full(n_q, np.inf)
    first[mq[starts]] = rank[starts]
    per_rel = 1.0 / np.maximum(num_rel, 1)  # num_rel 0: nothing relevant retrieved, 0 / 1
    found = _by_cutoff(mq, rank, n_q)
    return {
        "recip_rank": np.where(np.isfinite(first), 1.0 / first, 0.0),
        **{f"success_{k}": (first <= k).astype(float) for k in SUCCESS_CUTOFFS},
        # summed in rank order, as trec_eval adds
        "map": np.bincount(mq, weights=j / rank, minlength=n_q) * per_rel,
        "Rprec": np.bincount(mq[rank <= num_rel[mq]], minlength=n_q) * per_rel,
        **{f"P_{k}": found[i] / k for i, k in enumerate(CUTOFFS)},
        **{f"recall_{k}": found[i] * per_rel for i, k in enumerate(CUTOFFS)},
        "num_rel_ret": np.bincount(mq, minlength=n_q).astype(float),
    }


def _ndcg(
    mq: np.ndarray,
    rank: np.ndarray,
    gain: np.ndarray,
    qrel_q: np.ndarray,
    rel: np.ndarray,
    n_q: int,
) -> dict[str, np.ndarray]:
    """``ndcg_cut_k``, per query: DCG@k / ideal DCG@k, with trec_eval's gain (the relevance
    itself, whatever the relevance level) and discount (gain / log2(rank + 1)); the ideal
    ranking puts every judged document of the query in decreasing relevance, retrieved or not.
    0 for a query without a judged document of positive relevance. ``mq``, ``rank``,
    ``gain``: the retrieved rows' queries, ranks and relevance, each query's rows in rank
    order."""
    positive = gain > 0
    mq, rank, gain = mq[positive], rank[positive], gain[positive]
    dcg = _by_cutoff(mq, rank, n_q, gain / np.log2(rank + 1.0))
    iq, irank, igain = _ideal(qrel_q, rel, n_q)
    ideal = _by_cutoff(iq, irank, n_q, igain / np.log2(irank + 1.0))
    # no ideal gain: no gain retrieved either, 0
    return {f"ndcg_cut_{k}": dcg[i] / np.where(ideal[i] > 0, ideal[i], 1.0)
            for i, k in enumerate(CUTOFFS)}  # fmt: skip


def _ideal(
    qrel_q: np.ndarray, rel: np.ndarray, n_q: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ideal ranking of every query: the queries, 1-based ranks and gains of the judged
    documents of positive relevance, each query's in decreasing relevance. Only the queries
    with several such documents are sorted."""
    judged = np.flatnonzero(rel > 0)
    n_judged = np.bincount(qrel_q[judged], minlength=n_q)
    several = n_judged[qrel_q[judged]] > 1
    solo, rows = judged[~several], judged[several]
    rows = rows[np.lexsort((-rel[rows], qrel_q[rows]))]
    order = np.concatenate([solo, rows])
    irank = np.concatenate([np.ones(len(solo), dtype=np.int64), _places(qrel_q[rows])[1]])
    return qrel_q[order], irank, rel[order].astype(float)


def _places(groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each run of equal consecutive ``groups`` starts, and each element's 1-based place
    in its run."""
    if not len(groups):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    starts = np.r_[0, np.flatnonzero(groups[1:] != groups[:-1]) + 1]
    return starts, np.arange(len(groups)) - np.repeat(
        starts, np.diff(np.r_[starts, len(groups)])
    ) + 1


def _by_cutoff(
    mq: np.ndarray, rank: np.ndarray, n_q: int, weights: np.ndarray | None = None
) -> list[np.ndarray]:
    """Per cut-off of ``CUTOFFS``, per query: how many rows (or the sum of their ``weights``)
    rank within it. One ``bincount`` over (cut-off bucket, query) and a cumulative sum over
    the buckets that hold a row, rather than one pass per cut-off; cut-offs past the deepest
    row share its array."""
    bucket = np.searchsorted(_CUTOFF_ARRAY, rank)  # the first cut-off >= rank
    used = min(int(bucket.max(initial=0)) + 1, len(CUTOFFS))
    keep = bucket < used
    sums = np.bincount(
        bucket[keep] * n_q + mq[keep],
        weights=None if weights is None else weights[keep],
        minlength=used * n_q,
    )
    within = np.cumsum(sums.reshape(used, n_q), axis=0, dtype=float)
    return [within[min(i, used - 1)] for i in range(len(CUTOFFS))]
