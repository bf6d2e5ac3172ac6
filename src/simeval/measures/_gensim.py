"""gensim-backed loading (optional extra ``vectors``)."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

from simeval.errors import InputError


def load_keyed(path: Path, fmt: str) -> Any:
    """KeyedVectors from a gensim file or a fastText ``.bin`` model (with subword vectors)."""
    try:
        from gensim.models import KeyedVectors
        from gensim.models.fasttext import load_facebook_vectors
    except ImportError as exc:  # pragma: no cover - depends on the extras installed
        raise ImportError(f"format {fmt} needs gensim: pip install 'simeval[vectors]'") from exc
    try:
        if fmt == "fasttext-bin":
            return load_facebook_vectors(str(path))
        return KeyedVectors.load(str(path), mmap="r")
    except (OSError, ValueError, EOFError, struct.error) as exc:  # a cut or damaged file
        raise InputError(path, None, f"cannot load as {fmt}: {exc}") from None
