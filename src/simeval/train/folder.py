"""A model folder written whole or not at all."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from simeval.errors import InputError


@contextmanager
def staged(target: str | Path) -> Iterator[Path]:
    """A temporary folder beside ``target`` to write into, renamed to ``target`` when the block
    ends without an error and removed otherwise; an existing ``target`` is refused."""
    target = Path(target)
    if target.exists():
        raise InputError(target, None, "exists: choose a new folder (nothing is overwritten)")
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        yield tmp
        os.replace(tmp, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
