"""A model folder written whole or not at all."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from simeval.data import atomic
from simeval.errors import InputError


@contextmanager
def staged(target: str | Path) -> Iterator[Path]:
    """A temporary folder beside ``target`` to write into, renamed to ``target`` when the block
    ends without an error and removed otherwise; an existing ``target`` is refused."""
    target = Path(target)
    if target.exists():
        raise InputError(target, None, "exists: choose a new folder (nothing is overwritten)")
    with atomic.staged(target, folder=True) as tmp:
        yield tmp
