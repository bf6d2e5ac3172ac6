"""Train a model from a corpus and write a model folder that ``vectors:`` measures read.

A model folder holds ``vocab.txt`` (one word a line, most frequent first), ``vectors.npy``
(dense float32 rows in vocabulary order) or ``vectors.npz`` (a sparse PPMI matrix), for fastText
also ``model.bin`` (the full model with subword vectors, fastText's own format), and
``config.json``: the kind, every parameter, the corpus path and sha256, token counts, package
versions and timings.

Kinds:

- ``ppmi``: sparse PPMI rows over the context words;
- ``svd``: truncated SVD of that PPMI matrix, U · Σ^p;
- ``word2vec``: gensim skip-gram (``sg=1``, default) or CBOW (``sg=0``);
- ``fasttext``: gensim fastText with character n-grams (``min_n``..``max_n``).

gensim results are exactly reproducible only with ``workers=1`` (threads interleave updates);
the seed is fixed either way.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse

from simeval.data.atomic import staged
from simeval.errors import InputError
from simeval.train.count import (
    build_vocabulary,
    cooccurrence,
    is_stop_word,
    ppmi,
    svd_vectors,
    word_counts,
)
from simeval.train.prepared import PreparedCorpus

KINDS = ("ppmi", "svd", "word2vec", "fasttext")


@dataclass
class TrainConfig:
    kind: str
    lang: str
    lemmatize: bool = False
    min_count: int = 5
    window: int = 5
    dim: int = 300
    # count models
    contexts: int = 0  # 0: every vocabulary word; N: the N most frequent non-stop words
    max_words: int = 0  # 0: no cap on the vocabulary
    alpha: float = 0.75
    shift: float = 1.0
    power: float = 0.5
    # gensim models
    sg: int = 1
    negative: int = 5
    epochs: int = 5
    min_n: int = 3
    max_n: int = 6
    seed: int = 1
    workers: int = 2
    extra: dict[str, Any] = field(default_factory=dict)


def _write_vocab(folder: Path, words: list[str]) -> None:
    (folder / "vocab.txt").write_text("".join(w + "\n" for w in words), encoding="utf-8")


def train_count(
    config: TrainConfig, corpus: PreparedCorpus, folder: Path, progress: Callable[[int], None]
) -> dict[str, Any]:
    counts = word_counts(corpus.path)
    words = build_vocabulary(counts, config.min_count, config.max_words or None)
    if not words:
        raise InputError(corpus.path, None, f"no word occurs {config.min_count} times")
    if config.contexts:
        contexts = [w for w in words if not is_stop_word(w, config.lang)][: config.contexts]
    else:
        contexts = words
    matrix = cooccurrence(
        corpus.path, words, contexts, config.window, workers=config.workers, progress=progress
    )
    weighted = ppmi(matrix, config.alpha, config.shift)
    _write_vocab(folder, words)
    if config.kind == "ppmi":
        sparse.save_npz(folder / "vectors.npz", weighted.astype(np.float32))
        dim = len(contexts)
    else:
        vectors = svd_vectors(weighted, config.dim, config.power, config.seed)
        np.save(folder / "vectors.npy", vectors)
        dim = vectors.shape[1]
    return {"words": len(words), "contexts": len(contexts), "dim": dim, "nonzero": weighted.nnz}


def train_gensim(config: TrainConfig, corpus: PreparedCorpus, folder: Path) -> dict[str, Any]:
    try:
        from gensim.models import FastText, Word2Vec
        from gensim.models.fasttext import save_facebook_model
    except ImportError as exc:  # pragma: no cover
        raise ImportError("word2vec/fasttext need gensim: pip install 'simeval[vectors]'") from exc
    common = {
        "corpus_file": str(corpus.path),
        "vector_size": config.dim,
        "window": config.window,
        "min_count": config.min_count,
        "sg": config.sg,
        "negative": config.negative,
        "epochs": config.epochs,
        "seed": config.seed,
        "workers": config.workers,
    }
    if config.max_words:
        common["max_final_vocab"] = config.max_words
    if config.kind == "word2vec":
        model = Word2Vec(**common)
    else:
        model = FastText(**common, min_n=config.min_n, max_n=config.max_n)
        save_facebook_model(model, str(folder / "model.bin"))
    kv = model.wv
    _write_vocab(folder, list(kv.index_to_key))
    np.save(folder / "vectors.npy", np.asarray(kv.vectors, dtype=np.float32))
    return {"words": len(kv.index_to_key), "dim": config.dim}


def train(
    config: TrainConfig,
    corpus: PreparedCorpus,
    out: str | Path,
    progress: Callable[[int], None] | None = None,
) -> Path:
    """Train ``config.kind`` on a prepared corpus into the folder ``out`` (written as a
    temporary folder and renamed, so a failed run leaves nothing half-written)."""
    from simeval.results.record import package_versions

    if config.kind not in KINDS:
        raise InputError(None, None, f"unknown model kind {config.kind!r}; one of {KINDS}")
    target = Path(out)
    with staged(target, folder=True, replace=True) as tmp:
        start = time.perf_counter()
        if config.kind in ("ppmi", "svd"):
            facts = train_count(config, corpus, tmp, progress or (lambda n: None))
        else:
            facts = train_gensim(config, corpus, tmp)
        record = {
            "config": asdict(config),
            "corpus": {
                "sha256": corpus.sha256,
                "documents": corpus.documents,
                "sentences": corpus.sentences,
                "tokens": corpus.tokens,
            },
            "model": facts,
            "seconds": round(time.perf_counter() - start, 3),
            "versions": package_versions(),
        }
        (tmp / "config.json").write_text(json.dumps(record, indent=2, ensure_ascii=False))
    return target
