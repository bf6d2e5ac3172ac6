"""Old imports: the pair benchmarks now live in :mod:`simeval.kinds.pairs`."""

from simeval.kinds.graded import GRADED as _GRADED
from simeval.kinds.pairs import PairBenchmark, extra_pairs, pair_kinds, range_warnings
from simeval.kinds.related import RELATED as _RELATED

GRADED, RELATED = _GRADED.name, _RELATED.name
KIND_NAMES = pair_kinds()

__all__ = ["GRADED", "KIND_NAMES", "RELATED", "PairBenchmark", "extra_pairs", "range_warnings"]
