"""Cross-lingual word embeddings by orthogonal Procrustes (MUSE's supervised method), averaged
into document vectors.

1. Monolingual vectors for X and English: the model folders of ``simeval train`` given by
   ``x=`` and ``en=`` (``vocab.txt`` + ``vectors.npy``), or, by default, gensim word2vec
   (skip-gram, ``dim`` dimensions, window 5, min count 2, 10 epochs, seed 0, ``workers``
   threads) trained on the benchmark's own documents, one side at a time. That reads the
   query texts but never a link; no other X-language corpus is staged here except for
   Russian. The default, one thread, repeats exactly from run to run; gensim's threads
   interleave their updates, so ``workers=2`` is faster but its numbers move (procrustes
   MRR on xling by up to .04).
2. Every vector is L2-normalized, centred and normalized again (MUSE's ``renorm,center,renorm``).
3. The map ``W = U Vᵀ`` with ``U Σ Vᵀ = svd(Xᵀ Y)`` over the train dictionary pairs found in
   both vocabularies (:func:`simeval.data.dictionaries.xling_dictionary`, part ``train``)
   minimizes ``‖XW − Y‖`` among orthogonal maps (Schönemann 1966).
4. A document is the IDF-weighted mean of its words' (mapped) vectors, L2-normalized; IDF is
   ``ln(N / df)`` within its own side. Candidates come from :func:`top_k_dense`: exact below
   ``ann_from`` English documents, faiss HNSW (approximate) from there on.

Recorded with results: the number of dictionary pairs used, and bilingual lexicon induction
precision@1 on the disjoint XLING test dictionary (nearest English word by cosine) — a check
that the map learned something.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse

from simeval.errors import InputError
from simeval.measures.dictionary import cached_tokens
from simeval.measures.search import Matrix, Progress, TopK, VectorRanker, top_k_dense
from simeval.measures.spec import Params
from simeval.measures.vectors import normalize_rows, read_model_folder

Space = tuple[list[str], np.ndarray]  # vocabulary, rows


def renorm_center(m: np.ndarray) -> np.ndarray:
    """L2-normalize, centre, L2-normalize (MUSE's ``renorm,center,renorm``)."""
    m = normalize_rows(m)
    return normalize_rows(m - m.mean(axis=0, keepdims=True))


def procrustes(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The orthogonal ``W`` minimizing ``‖xW − y‖_F``: ``U Vᵀ`` for ``U Σ Vᵀ = svd(xᵀ y)``."""
    u, _, vt = np.linalg.svd(x.T @ y)
    return u @ vt


def dense_model_folder(path: str | Path) -> Space:
    """The words and dense rows of a ``simeval train`` model folder; a PPMI folder (sparse
    rows) is refused."""
    words, matrix = read_model_folder(Path(path))
    if sparse.issparse(matrix):
        raise InputError(path, None, "procrustes needs dense vectors (vectors.npy), not PPMI rows")
    return words, np.asarray(matrix, dtype=np.float32)


def train_word2vec(docs: list[Sequence[str]], dim: int, seed: int = 0, workers: int = 1) -> Space:
    """Skip-gram vectors from token lists (gensim; exactly reproducible with one worker)."""
    try:
        from gensim.models import Word2Vec
    except ImportError as exc:  # pragma: no cover - depends on the extras installed
        raise ImportError("training vectors needs gensim: pip install 'simeval[train]'") from exc
    model = Word2Vec(
        [list(d) for d in docs],
        vector_size=dim,
        window=5,
        min_count=2,
        sg=1,
        epochs=10,
        seed=seed,
        workers=workers,
    )
    return list(model.wv.index_to_key), model.wv.vectors.astype(np.float32)


def doc_vectors(docs: list[Sequence[str]], vocab: dict[str, int], rows: np.ndarray) -> np.ndarray:
    """IDF-weighted mean word vector of every document, L2-normalized (zeros when no word is
    known)."""
    df = Counter(w for d in docs for w in set(d) if w in vocab)
    n = len(docs)
    out = np.zeros((n, rows.shape[1]), np.float32)
    for i, d in enumerate(docs):
        counts = Counter(w for w in d if w in vocab)
        if counts:
            ids = np.fromiter((vocab[w] for w in counts), np.int64, len(counts))
            weights = np.array([c * np.log(n / df[w]) for w, c in counts.items()], np.float32)
            out[i] = weights @ rows[ids]
    return normalize_rows(out)


def bli_precision(
    pairs: list[tuple[str, str]],
    xv: dict[str, int],
    ev: dict[str, int],
    xm: np.ndarray,
    em: np.ndarray,
) -> tuple[float, int]:
    """Precision@1 of nearest-neighbour translation over the test pairs whose words both
    spaces know (a source word is right if its neighbour is any of its gold translations)."""
    gold: dict[str, set[str]] = {}
    for x, e in pairs:
        if x in xv and e in ev:
            gold.setdefault(x, set()).add(e)
    if not gold:
        return float("nan"), 0
    words = list(gold)
    english = list(ev)
    nearest = np.argmax(xm[[xv[w] for w in words]] @ em.T, axis=1)
    hits = sum(english[j] in gold[w] for w, j in zip(words, nearest, strict=True))
    return hits / len(words), len(words)


class ProcrustesRanker(VectorRanker):
    name = "procrustes"

    def __init__(self, spec: str, params: dict[str, Any]) -> None:
        super().__init__(spec, params)
        self.facts: dict[str, Any] = {}

    def _space(self, which: str, docs: list[Sequence[str]]) -> Space:
        path = self.params[which]
        if path:
            return dense_model_folder(path)
        return train_word2vec(docs, self.params["dim"], workers=self.params["workers"])

    def vectors(
        self, queries: Sequence[str], corpus: Sequence[str], lang: str
    ) -> tuple[Matrix, Matrix]:
        from simeval.data.dictionaries import xling_dictionary

        x_docs = [cached_tokens(t, lang) for t in queries]
        e_docs = [cached_tokens(t, "en") for t in corpus]
        x_words, x_rows = self._space("x", x_docs)
        e_words, e_rows = self._space("en", e_docs)
        x_rows, e_rows = renorm_center(x_rows), renorm_center(e_rows)
        xv = {w: i for i, w in enumerate(x_words)}
        ev = {w: i for i, w in enumerate(e_words)}
        train = xling_dictionary(lang, "train")
        known = [
            (xv[x.lower()], ev[e.lower()]) for x, e in train if x.lower() in xv and e.lower() in ev
        ]
        if len(known) < 10:
            raise InputError(
                None, None, f"{len(known)} train dictionary pairs in both vocabularies"
            )
        xi, ei = np.array(known).T
        w = procrustes(x_rows[xi], e_rows[ei])
        mapped = normalize_rows(x_rows @ w)
        self.facts.update({"map_pairs": len(known), "x_vocab": len(xv), "en_vocab": len(ev)})
        if lang != "zh":
            test = xling_dictionary(lang, "test")
            lowered = [(x.lower(), e.lower()) for x, e in test]
            p1, n = bli_precision(lowered, xv, ev, mapped, e_rows)
            self.facts.update({"bli_p1": round(p1, 4), "bli_pairs": n})
        return doc_vectors(x_docs, xv, mapped), doc_vectors(e_docs, ev, e_rows)

    def search(
        self,
        q: Matrix,
        d: Matrix,
        k: int,
        progress: Progress | None = None,
        ties: np.ndarray | None = None,
    ) -> TopK:
        return top_k_dense(
            q,  # type: ignore[arg-type]
            d,  # type: ignore[arg-type]
            k,
            ann_from=self.params["ann_from"],
            progress=progress,
            ties=ties,
        )

    def extra(self) -> dict[str, Any]:
        return dict(self.facts)


def make_procrustes(p: Params) -> ProcrustesRanker:
    params = {
        "x": p.get("x", ""),
        "en": p.get("en", ""),
        "dim": p.get("dim", 100, int, minimum=1),
        "ann_from": p.get("ann_from", 50_000, int, minimum=0),
        "workers": p.get("workers", 1, int, minimum=1),
        "csls": p.get("csls", 0, int, minimum=0),
    }
    p.done()
    return ProcrustesRanker(str(p.spec), params)
