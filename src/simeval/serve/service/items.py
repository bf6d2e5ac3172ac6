"""How an item (a word or sentence pair) is compared across benchmarks: by the overlap rule of
hidden phases (:mod:`.campaigns`) and the public/private split (:mod:`.split_rule`)."""

from __future__ import annotations

from typing import Any

Item = tuple[str, str]


def item_key(pair: Any) -> Item:
    """A pair as compared across benchmarks: both strings case-folded and stripped, in a
    fixed order (``(a, b)`` and ``(b, a)`` are one item)."""
    a, b = (" ".join(str(x).split()).casefold() for x in pair)
    return (a, b) if a <= b else (b, a)
