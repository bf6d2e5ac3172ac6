"""Pure metric functions over arrays, and one declaration per metric of the task kinds
(:mod:`.declared`, :mod:`.catalog`). This package imports nothing else of simeval (where
bootstrap replicates run is passed in by the caller: :mod:`simeval.metrics.stats`)."""

from simeval.metrics.classification import (
    average_precision,
    average_precision_trapezoid,
    precision_recall_curve,
    roc_auc,
    russe_accuracy,
)
from simeval.metrics.correlation import (
    least_squares_fit,
    pearson,
    spearman,
    sts_all,
    sts_allnrm,
    sts_mean,
    weighted_pearson,
)
from simeval.metrics.ranking import TrecEvaluation, evaluate_trec, tie_ranks, trec_order

__all__ = [
    "TrecEvaluation",
    "average_precision",
    "average_precision_trapezoid",
    "evaluate_trec",
    "least_squares_fit",
    "pearson",
    "precision_recall_curve",
    "roc_auc",
    "russe_accuracy",
    "spearman",
    "sts_all",
    "sts_allnrm",
    "sts_mean",
    "tie_ranks",
    "trec_order",
    "weighted_pearson",
]
