"""A supervised combination of rankers, learned on the train split (the approach that won
RUSSE 2015 and that BUCC 2015's best systems pointed to).

For every query, the candidates are the union of the top ``depth`` documents of each base
ranker. Each (query, candidate) gets, per base ranker, three features: its score (computed
exactly even when that ranker did not retrieve the candidate), the score minus the query's best
score under that ranker, and whether that ranker retrieved it. A logistic regression
(scikit-learn, L2, C=1) learns from the train queries, whose gold document is always among the
rows (label 1; every other candidate 0); test candidates are ranked by its decision function,
ties broken as trec_eval breaks them (:mod:`simeval.metrics.ranking.order`, ``LinkingInput.ties``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from simeval.errors import InputError
from simeval.measures.search import (
    LinkingInput,
    Progress,
    Ranker,
    TopK,
    VectorRanker,
    pair_scores,
)
from simeval.measures.spec import Params
from simeval.metrics.ranking.order import ranking


def _group_top(
    q: np.ndarray,
    d: np.ndarray,
    s: np.ndarray,
    n: int,
    k: int,
    ties: np.ndarray | None = None,
) -> TopK:
    """Top k (document, score) per query from flat candidate rows (query, document position,
    score): score descending, ties by ``ties`` of the document (a per-document key,
    ``LinkingInput.ties``; by position when None), the one rule of
    :mod:`simeval.metrics.ranking.order`."""
    index = np.full((n, k), -1, np.int64)
    score = np.full((n, k), -np.inf, np.float32)
    order = ranking(s, d if ties is None else ties[d], q)
    q, d, s = q[order], d[order], s[order]
    starts = np.searchsorted(q, np.arange(n))
    rank = np.arange(len(q)) - starts[q]
    keep = rank < k
    index[q[keep], rank[keep]] = d[keep]
    score[q[keep], rank[keep]] = s[keep]
    return TopK(index, score)


class CombinationRanker(Ranker):
    name = "combine"

    def __init__(self, spec: str, params: dict[str, Any], rankers: list[VectorRanker]) -> None:
        super().__init__(spec, params)
        self.rankers = rankers
        self.facts: dict[str, Any] = {}

    def rank(self, data: LinkingInput, k: int, progress: Progress | None = None) -> TopK:
        from sklearn.linear_model import LogisticRegression

        n_test, n_train = len(data.queries), len(data.train_queries)
        if n_train == 0:
            raise InputError(None, None, "combine learns from train queries; this input has none")
        texts = [*data.queries, *data.train_queries]
        depth = self.params["depth"]
        spaces, tops = [], []
        for r in self.rankers:
            q, d = r.space(texts, data.corpus, data.lang)
            spaces.append((q, d))
            tops.append(r.search(q, d, depth, ties=data.ties))
        rows = np.repeat(np.arange(len(texts)), depth)
        cand = np.concatenate([np.c_[rows, t.index.ravel()] for t in tops])
        gold = np.c_[np.arange(n_test, n_test + n_train), data.train_gold]
        cand = np.unique(np.concatenate([cand[cand[:, 1] >= 0], gold]), axis=0)
        cq, cd = cand[:, 0], cand[:, 1]
        features = []
        for (q, d), t in zip(spaces, tops, strict=True):
            s = pair_scores(q, d, cq, cd)
            retrieved = (t.index[cq] == cd[:, None]).any(axis=1)
            features += [s, s - t.score[cq, 0], retrieved.astype(float)]
        x = np.column_stack(features)
        train = cq >= n_test
        label = np.zeros(len(cq), dtype=int)
        label[train] = cd[train] == data.train_gold[cq[train] - n_test]
        model = LogisticRegression(C=1.0, max_iter=2000).fit(x[train], label[train])
        self.facts.update(
            {
                "weights": [round(float(w), 4) for w in model.coef_[0]],
                "train_rows": int(train.sum()),
                "candidates_per_query": round(float((~train).sum() / max(n_test, 1)), 2),
            }
        )
        test = ~train
        s = model.decision_function(x[test]).astype(np.float32)
        if progress:
            progress(n_test, n_test)
        return _group_top(cq[test], cd[test], s, n_test, min(k, len(data.corpus)), data.ties)

    def extra(self) -> dict[str, Any]:
        facts = dict(self.facts)
        for r in self.rankers:
            facts.update({f"{r.name}.{k}": v for k, v in r.extra().items()})
        return facts


def make_combination(p: Params, create_measure: Callable[[str], Any]) -> CombinationRanker:
    """``combine``; ``create_measure`` makes the base rankers (passed in, so this module does
    not import the measures package that imports it). Base rankers are separated by ``+``; a
    base ranker's own parameters are separated by ``;`` (a ``,`` would end ``rankers``):
    ``combine:rankers=dictionary:csls=10;simplified=true+hapax``."""
    names = p.get("rankers", "dictionary+hapax+procrustes")
    params = {"rankers": names, "depth": p.get("depth", 20, int, minimum=1)}
    p.done()
    rankers = []
    for name in names.split("+"):
        r = create_measure(name.replace(";", ","))
        if not isinstance(r, VectorRanker):
            raise InputError(None, None, f"combine: {name!r} is not a vector ranker")
        rankers.append(r)
    return CombinationRanker(str(p.spec), params, rankers)
