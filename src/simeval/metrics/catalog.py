"""Every metric of the built-in task kinds, declared once (:class:`~.declared.Metric`), and the
registry that kinds, reports and docs read.

A kind's metric set is the declarations naming it, in the order they are registered here; that
order is the order of a record's ``metrics``. A metric shared by two kinds in different
positions (Pearson and Spearman: graded pairs put Spearman first, STS Pearson) is declared once
per kind, with the scorer each kind's figures match. :func:`register` adds a metric from
outside (a plugin, a test); it joins its kinds' records, intervals, reports and docs.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from simeval.metrics import classification as cls
from simeval.metrics import correlation as corr
from simeval.metrics import weighted as wt
from simeval.metrics.declared import (
    AGGREGATE,
    AREA,
    CORRELATION,
    COUNT,
    FISHER_Z,
    R_RANGE,
    RANDOMIZATION,
    SHARE,
    TALLY,
    UNIT,
    WILLIAMS,
    Columns,
    Metric,
    Replicates,
)

GRADED = "graded-pairs"
RELATED = "related-pairs"
STS = "sts"
LINKING = "linking"
STS_SUITES = ("suite-sts", "suite-sts-year")
# a linking result's per-query rows: trec_eval's measures, averaged over the queries
QUERY_MEANS = (
    "success_1", "success_5", "recip_rank", "map", "Rprec", "P_5", "P_10", "recall_5",
    "recall_10", "ndcg_cut_5", "ndcg_cut_10",
)  # fmt: skip
QUERY_COUNTS = ("num_ret", "num_rel", "num_rel_ret")  # per query, summed (trec_eval num_*)

# -- point functions over one result's rows ---------------------------------------------------


def _pearson(c: Columns) -> float:
    return corr.pearson(c["score"], c["gold"])


def _spearman(c: Columns) -> float:
    return corr.spearman(c["score"], c["gold"])


def _weighted_pearson(c: Columns) -> float:
    return corr.weighted_pearson(c["score"], c["gold"], c["confidence"])


def _ap_2015(c: Columns) -> float:
    return cls.average_precision_trapezoid(c["gold"], c["score"])


def _ap(c: Columns) -> float:
    return cls.average_precision(c["gold"], c["score"])


def _accuracy(c: Columns) -> float:
    return cls.russe_accuracy(c["word1"], c["word2"], c["score"], c["gold"])


def _roc_auc(c: Columns) -> float:
    return cls.roc_auc(c["gold"], c["score"])


def _num_q(c: Columns) -> float:
    return float(len(c[QUERY_COUNTS[0]]))


def _query_mean(column: str) -> Callable[[Columns], float]:
    def point(c: Columns) -> float:
        return float(c[column].mean()) if len(c[column]) else float("nan")

    return point


def _query_sum(column: str) -> Callable[[Columns], float]:
    def point(c: Columns) -> float:
        return float(c[column].sum())

    return point


# a suite's rows: the list of its members' columns


def _sts_all(parts: list[Columns]) -> float:
    return corr.sts_all([c["gold"] for c in parts], [c["score"] for c in parts])


def _sts_allnrm(parts: list[Columns]) -> float:
    return corr.sts_allnrm([c["gold"] for c in parts], [c["score"] for c in parts])


def _sts_mean(parts: list[Columns]) -> float:
    return corr.sts_mean([_pearson(c) for c in parts], [len(c["gold"]) for c in parts])


def _pooled_spearman(parts: list[Columns]) -> float:
    pooled = {k: np.concatenate([c[k] for c in parts]) for k in ("score", "gold")}
    return _spearman(pooled)


# -- the same over every resample of a block --------------------------------------------------


def _pearson_w(r: Replicates) -> np.ndarray:
    return wt.pearson(r.c["score"], r.c["gold"], r.w)


def _spearman_w(r: Replicates) -> np.ndarray:
    return wt.spearman(r.p.score_ranks, r.p.gold_ranks, r.w)


def _weighted_pearson_w(r: Replicates) -> np.ndarray:
    return wt.weighted_pearson(r.c["score"], r.c["gold"], r.c["confidence"], r.w)


def _ap_2015_w(r: Replicates) -> np.ndarray:
    return wt.average_precision(r.points_2015, trapezoid=True)


def _ap_w(r: Replicates) -> np.ndarray:
    return wt.average_precision(r.points, trapezoid=False)


def _accuracy_w(r: Replicates) -> np.ndarray:
    return r.p.labels.accuracy(r.c["gold"], r.w)


def _roc_auc_w(r: Replicates) -> np.ndarray:
    return wt.roc_auc(r.points)


def _num_q_w(r: Replicates) -> np.ndarray:
    return r.total


def _query_mean_w(column: str) -> Callable[[Replicates], np.ndarray]:
    def resampled(r: Replicates) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return r.w @ r.c[column] / r.total

    return resampled


def _query_sum_w(column: str) -> Callable[[Replicates], np.ndarray]:
    def resampled(r: Replicates) -> np.ndarray:
        return r.w @ r.c[column]

    return resampled


def _sts_allnrm_w(r: Replicates) -> np.ndarray:
    return wt.pearson(r.member_fits[0], r.c["gold"], r.w)


def _sts_mean_w(r: Replicates) -> np.ndarray:
    _, rs, sizes = r.member_fits
    return (rs * sizes).sum(axis=0) / sizes.sum(axis=0)


# -- the declarations -------------------------------------------------------------------------

_SIMLEX = "scipy.stats.spearmanr, as SimLex-999 and RUSSE 2015's evaluate.py (HJ)"
_TREC = "trec_eval 9 / pytrec_eval"
# the independent implementations the property tests compare with (Metric.reference)
_RHO = "scipy.stats.spearmanr(score, gold).statistic"
_R = "scipy.stats.pearsonr(score, gold).statistic"
_RUSSE_LABELS = (
    "RUSSE's labelling (the top half of each word1's pairs, ties by word2) exists only in its "
    "evaluate.py; tests/kinds/test_russe.py re-implements that script against the real files"
)


def _trec(measure: str, total: bool = False) -> str:
    """A pytrec_eval measure over the evaluated queries: their mean, or (``total``) sum."""
    stem, _, cutoff = measure.rpartition("_")
    family = stem if cutoff.isdigit() else measure  # success_5 -> success, num_ret stays
    values = (
        f"[q[{measure!r}] for q in pytrec_eval.RelevanceEvaluator(qrels, {{{family!r}}})"
        ".evaluate(run).values()]"
    )
    return f"sum({values})" if total else f"numpy.mean({values})"


METRICS: list[Metric] = [
    Metric(
        "spearman", (GRADED,), _spearman, _spearman_w,
        description="Spearman's ρ of scores with human judgements (ties: average ranks)",
        scorer=_SIMLEX,
        bounds=R_RANGE, family=CORRELATION, interval=FISHER_Z, paired_test=WILLIAMS, ranks=True,
        symmetric=True, reference=_RHO,
    ),
    Metric(
        "pearson", (GRADED,), _pearson, _pearson_w,
        description="Pearson's r of scores with human judgements",
        scorer="scipy.stats.pearsonr",
        bounds=R_RANGE, family=CORRELATION, interval=FISHER_Z, paired_test=WILLIAMS,
        symmetric=True, reference=_R,
    ),
    Metric(
        "ap_trapezoid", (RELATED,), _ap_2015, _ap_2015_w,
        description="average precision, trapezoid rule, near-ties within 1e-8 merged",
        scorer="RUSSE 2015 evaluate.py (scikit-learn 0.16-0.18)",
        bounds=UNIT, family=AREA, paired_test=RANDOMIZATION, ranks=True,
        # scikit-learn 0.16's AP: the trapezoid area under today's curve (no near-ties)
        reference="-numpy.trapezoid(*sklearn.metrics.precision_recall_curve(gold, score)[:2])",
    ),
    Metric(
        "ap", (RELATED,), _ap, _ap_w,
        description="step-wise average precision Σ (R_k − R_{k−1}) P_k",
        scorer="sklearn.metrics.average_precision_score (≥ 0.19)",
        bounds=UNIT, family=AREA, paired_test=RANDOMIZATION, ranks=True,
        reference="sklearn.metrics.average_precision_score(gold, score)",
    ),
    Metric(
        "accuracy", (RELATED,), _accuracy, _accuracy_w,
        description="share of pairs labelled right, the top half of each word1's pairs related",
        scorer="RUSSE 2015 evaluate.py",
        bounds=UNIT, family=SHARE, paired_test=RANDOMIZATION, ranks=True,
        no_reference=_RUSSE_LABELS,
    ),
    Metric(
        "roc_auc", (RELATED,), _roc_auc, _roc_auc_w,
        description="area under the ROC curve (Mann-Whitney, ties counted half)",
        scorer="sklearn.metrics.roc_auc_score",
        bounds=UNIT, family=AREA, paired_test=RANDOMIZATION, ranks=True,
        reference="sklearn.metrics.roc_auc_score(gold, score)",
    ),
    Metric(
        "pearson", (STS,), _pearson, _pearson_w,
        description="Pearson's r of scores with the gold similarity",
        scorer="SemEval STS correlation.pl",
        bounds=R_RANGE, family=CORRELATION, interval=FISHER_Z, paired_test=WILLIAMS,
        symmetric=True, reference=_R,
    ),
    Metric(
        "spearman", (STS,), _spearman, _spearman_w,
        description="Spearman's ρ of scores with the gold similarity",
        scorer="STS Benchmark / MTEB (scipy.stats.spearmanr)",
        bounds=R_RANGE, family=CORRELATION, interval=FISHER_Z, paired_test=WILLIAMS, ranks=True,
        symmetric=True, reference=_RHO,
    ),
    Metric(
        "weighted_pearson", (STS,), _weighted_pearson, _weighted_pearson_w, needs=("confidence",),
        description="Pearson's r weighted by the system's confidences (when it gave them)",
        scorer="SemEval-2012 STS scorer, confidences as weights",
        bounds=R_RANGE, family=CORRELATION, symmetric=True,
        reference="(lambda v: v[0, 1] / numpy.sqrt(v[0, 0] * v[1, 1]))"
                  "(numpy.cov(score, gold, aweights=confidence))",
    ),
    Metric(
        "all", STS_SUITES, _sts_all, _pearson_w,
        description="Pearson's r over every member's pairs pooled (ALL)",
        scorer="SemEval-2012 STS official ALL",
        bounds=R_RANGE, family=CORRELATION, paired_test=WILLIAMS, symmetric=True, reference=_R,
    ),
    Metric(
        "allnrm", STS_SUITES, _sts_allnrm, _sts_allnrm_w,
        description="ALL after each member's scores are fitted to its gold by least squares",
        scorer="SemEval-2012 STS official ALLnrm",
        bounds=R_RANGE, family=AGGREGATE,
        # each member's least-squares projection (numpy's lstsq; a constant member: its mean)
        reference="scipy.stats.pearsonr(numpy.concatenate([(lambda a, g: a @ numpy.linalg."
                  "lstsq(a, g)[0])(numpy.vander(p['score'], 2), p['gold']) for p in parts]), "
                  "gold).statistic",
    ),
    Metric(
        "mean", STS_SUITES, _sts_mean, _sts_mean_w,
        description="members' Pearson's r weighted by their number of pairs (Mean)",
        scorer="SemEval-2012 STS official Mean (2013-2016's main figure)",
        bounds=R_RANGE, family=AGGREGATE, symmetric=True,
        reference="numpy.average([scipy.stats.pearsonr(p['score'], p['gold']).statistic "
                  "for p in parts], weights=[len(p['gold']) for p in parts])",
    ),
    Metric(
        "pooled_spearman", STS_SUITES, _pooled_spearman, _spearman_w,
        description="Spearman's ρ over every member's pairs pooled",
        scorer="MTEB STS12-STS16",
        bounds=R_RANGE, family=CORRELATION, ranks=True, symmetric=True, reference=_RHO,
    ),
    *(
        Metric(
            name, (LINKING,), _query_mean(name), _query_mean_w(name),
            description=text + ", averaged over the queries",
            scorer=_TREC, bounds=UNIT, family=SHARE, paired_test=RANDOMIZATION, ranks=True,
            reference=_trec(name),
        )
        for name, text in zip(
            QUERY_MEANS[:3],
            ("1 when the first document is relevant", "1 when one of the first five is",
             "1 / the rank of the first relevant document"),
            strict=True,
        )
    ),
    *(
        Metric(
            name, (LINKING,), _query_mean(name), _query_mean_w(name), needs=(name,),
            description=text + ", averaged over the queries",
            scorer=_TREC, bounds=UNIT, family=SHARE, paired_test=RANDOMIZATION, ranks=True,
            reaches_top=not name.startswith(("P_", "recall_")), reference=_trec(name),
        )
        for name, text in zip(
            QUERY_MEANS[3:],
            (
                "average precision (their mean: MAP): the precision at the rank of each "
                "relevant document retrieved, summed, / the query's relevant documents",
                "R-precision: the share of relevant documents among the first R, R the "
                "query's relevant documents",
                *(f"P@{k}: relevant documents among the first {k}, / {k}" for k in (5, 10)),
                *(
                    f"recall@{k}: relevant documents among the first {k}, / the query's "
                    "relevant documents"
                    for k in (5, 10)
                ),
                *(
                    f"nDCG@{k}: Σ relevance / log2(rank + 1) over the first {k}, / the same "
                    "for the judged documents in decreasing relevance (graded gain)"
                    for k in (5, 10)
                ),
            ),
            strict=True,
        )
    ),
    Metric(
        "num_q", (LINKING,), _num_q, _num_q_w, needs=QUERY_COUNTS,
        description="queries evaluated", scorer=_TREC, bounds=TALLY, family=COUNT,
        paired_test=RANDOMIZATION, ranks=True,
        reference="len(pytrec_eval.RelevanceEvaluator(qrels, {'num_q'}).evaluate(run))",
    ),
    *(
        Metric(
            name, (LINKING,), _query_sum(name), _query_sum_w(name), needs=QUERY_COUNTS,
            description=text + ", summed over the queries", scorer=_TREC, bounds=TALLY,
            family=COUNT, paired_test=RANDOMIZATION, ranks=True,
            reference=_trec(name, total=True),
        )
        for name, text in zip(
            QUERY_COUNTS,
            ("documents retrieved", "relevant documents", "relevant documents retrieved"),
            strict=True,
        )
    ),
]  # fmt: skip


def register(metric: Metric) -> Metric:
    """Add ``metric`` to its kinds' metric sets (after the built-in ones)."""
    clash = [m for m in METRICS if m.name == metric.name and set(m.kinds) & set(metric.kinds)]
    if clash:
        raise ValueError(f"metric {metric.name!r} is already declared for {clash[0].kinds}")
    METRICS.append(metric)
    return metric


def of_kind(kind: str) -> list[Metric]:
    """The metrics declared for ``kind``, in record order."""
    return [m for m in METRICS if kind in m.kinds]


def find(name: str, kind: str | None = None) -> Metric | None:
    """The declaration of ``name`` for ``kind`` (or, when it has none, any of that name)."""
    named = [m for m in METRICS if m.name == name]
    return next((m for m in named if kind in m.kinds), named[0] if named else None)


def declared(name: str, kind: str) -> Metric | None:
    """The declaration of ``name`` by ``kind`` itself; None when ``kind`` does not declare it
    (a suite's sum of its members' scores, or a mean of its members' metric, is not the
    metric: it has neither its bounds nor its interval nor its test)."""
    return next((m for m in METRICS if m.name == name and kind in m.kinds), None)


def bounds(name: str, kind: str) -> tuple[float, float] | None:
    """The bounds (:attr:`Metric.bounds`) of ``name`` as ``kind`` declares it; None when
    ``kind`` does not declare it (a suite's sum of its members' scores has none)."""
    m = declared(name, kind)
    return None if m is None else m.bounds


def higher_is_better(name: str, kind: str | None = None) -> bool:
    """The ranking direction of a metric (an undeclared one, such as a suite member's column
    or RUSSE's sum of main scores, ranks higher first)."""
    m = find(name, kind)
    return True if m is None else m.higher_is_better


def is_count(name: str, kind: str | None = None) -> bool:
    """Whether ``name`` is a tally rather than a score (:attr:`Metric.count`)."""
    m = find(name, kind)
    return m is not None and m.count


PAGE_HEAD = """# Metrics

Generated from the declarations in `src/simeval/metrics/catalog.py` and the task kinds' own
(`TaskKind.declares`, as `src/simeval/kinds/analogy.py`) by `python -m
simeval.kinds > docs/metrics.md`; `tests/docs/test_metric_docs.py` checks that this file
is up to date. Each metric's record key, the task kinds whose results carry it, its ranking
direction, its family (a correlation, an aggregate of the members' correlations, a share, an area, a
count), the interval the report gives it beside every metric's bootstrap percentile interval (Fisher
z for the main correlations of word pairs and STS sets), the paired test that compares two systems
whose main metric it is (Williams', approximate randomization or the paired bootstrap), how its
bootstrap replicates are computed (vectorised over all replicates, or one call per replicate) and
the official scorer its values match. Each is tested against its declared bounds, its family's
invariances and, where one exists, an independent implementation (`tests/metrics/test_common.py`). A
result records its kind's metrics in this order; the kind names the main one. Tallies (`num_*`) are
recorded but not averaged over suite members nor shown in the report's metric tables. The suites'
own aggregates not listed here are derived from their members' metrics: `suite-sum` records each
member's main score and their sum (RUSSE 2015's ranking, compared by the paired bootstrap),
`suite-mean` the mean of the metrics its members share.

"""


def markdown_page() -> str:
    """``docs/metrics.md``: a short introduction and :func:`markdown_table`."""
    return PAGE_HEAD + markdown_table()


def markdown_table() -> str:
    """The metric table of the docs: name, kinds, direction, family, interval, paired test,
    replicates, description, official scorer."""
    lines = [
        "| metric | kinds | better | family | interval | paired test | replicates | description "
        "| official scorer |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for m in METRICS:
        cells = [
            f"`{m.name}`",
            ", ".join(f"`{k}`" for k in m.kinds),
            "higher" if m.higher_is_better else "lower",
            m.family,
            m.interval,
            m.paired_test,
            "vectorised" if m.vectorised else "per replicate",
            m.description,
            m.scorer,
        ]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"
