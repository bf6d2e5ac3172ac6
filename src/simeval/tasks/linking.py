"""Old imports: the linking benchmark now lives in :mod:`simeval.kinds.linking`."""

from simeval.kinds.linking import LinkingBenchmark

__all__ = ["LinkingBenchmark"]
