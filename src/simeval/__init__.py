"""simeval: evaluate semantic similarity measures the way the shared tasks do."""

__version__ = "0.1.0"
