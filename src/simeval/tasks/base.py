"""Old imports: the task contract now lives in :mod:`simeval.kinds.base`."""

from simeval.kinds.base import (
    Aligned,
    Benchmark,
    Documents,
    Request,
    Suite,
    TextPairs,
    WordPairs,
    flags_of,
    sha256_of,
)

__all__ = [
    "Aligned",
    "Benchmark",
    "Documents",
    "Request",
    "Suite",
    "TextPairs",
    "WordPairs",
    "flags_of",
    "sha256_of",
]
