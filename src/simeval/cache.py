"""Where simeval keeps what it can rebuild: ``SIMEVAL_CACHE_DIR``, else the user cache folder
(``platformdirs.user_cache_dir("simeval")``). Data downloads, embeddings and tokenized corpora
live in sub-folders."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    env = os.environ.get("SIMEVAL_CACHE_DIR")
    if env:
        return Path(env)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("simeval"))
