"""Ranking metrics for document linking, with trec_eval's semantics, and what they rest on.

- :mod:`.trec_eval`: the measures (success@k, reciprocal rank, the ``num_*`` counts), matching
  trec_eval 9 and pytrec_eval;
- :mod:`.order`: the one ranking rule, trec_eval's order (``form_res_rels.c``), which the
  measures, written runs and the linking rankers' top k all follow;
- :mod:`.id_keys`: 64-bit keys for arrays of identifiers, by which the measures join a run to
  its qrels (and the TREC readers find repeated pairs) without sorting Python strings.

The order and the keys live here, not in :mod:`simeval.data`, because the measures need them
and :mod:`simeval.metrics` imports nothing else of simeval.
"""

from simeval.metrics.ranking.order import tie_ranks, trec_order
from simeval.metrics.ranking.trec_eval import TrecEvaluation, evaluate_trec

__all__ = ["TrecEvaluation", "evaluate_trec", "tie_ranks", "trec_order"]
