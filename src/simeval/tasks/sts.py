"""Old imports: the STS benchmark now lives in :mod:`simeval.kinds.sts`."""

from simeval.kinds.sts import STSBenchmark

__all__ = ["STSBenchmark"]
