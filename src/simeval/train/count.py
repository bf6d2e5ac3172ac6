"""Count models: window co-occurrences, PPMI, truncated SVD.

Co-occurrence: for every token of a sentence and every other token at most ``window`` positions
away in the same sentence, count (word, context) once — symmetric, unweighted, never across a
sentence boundary. Rare words (below ``min_count``) keep their positions (they still separate
tokens) but are neither words nor contexts. Contexts are all vocabulary words, or the
``contexts`` most frequent ones that are not stop words (the SimLex-999 paper's VSM used 2,000).

Counting streams the tokenized corpus in chunks of lines; each chunk becomes a sparse matrix
(``coo → csr`` sums repeated pairs in C), chunks are counted by ``workers`` processes and added.

PPMI with context-distribution smoothing (Levy, Goldberg and Dagan 2015)::

    PMI(w, c) = log( #(w,c) · Σ_c' #(c')^α / ( #(w) · #(c)^α ) ) − log(shift)
    PPMI = max(PMI, 0)

with #(w) and #(c) the row and column sums of the co-occurrence matrix and α = 0.75.
SVD: the top ``dim`` singular triplets of the PPMI matrix, vectors U · Σ^p (p ∈ {0, 0.5, 1}).
"""

from __future__ import annotations

import functools
import operator
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse

ENGLISH_STOP_WORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself yourselves
    shall may might must upon said one""".split()
)
RUSSIAN_STOP_TAGS = frozenset({"PREP", "CONJ", "PRCL", "INTJ", "NPRO"})


def is_stop_word(word: str, lang: str) -> bool:
    """English: a fixed list of function words; Russian: pymorphy3's most probable tag is a
    preposition, conjunction, particle, interjection or pronoun."""
    if lang == "ru":
        from simeval.text.normalize import _morph

        return _morph().parse(word)[0].tag.POS in RUSSIAN_STOP_TAGS
    return word in ENGLISH_STOP_WORDS


def read_lines(path: Path, chunk_lines: int) -> Iterator[list[str]]:
    with open(path, encoding="utf-8") as f:
        chunk: list[str] = []
        for line in f:
            chunk.append(line)
            if len(chunk) >= chunk_lines:
                yield chunk
                chunk = []
        if chunk:
            yield chunk


def word_counts(path: Path, chunk_lines: int = 100_000) -> Counter[str]:
    counts: Counter[str] = Counter()
    for chunk in read_lines(path, chunk_lines):
        for line in chunk:
            counts.update(line.split())
    return counts


def build_vocabulary(
    counts: Counter[str], min_count: int, max_words: int | None = None
) -> list[str]:
    """Words with at least ``min_count`` occurrences, most frequent first (ties by word)."""
    kept = sorted((w for w, c in counts.items() if c >= min_count), key=lambda w: (-counts[w], w))
    return kept[:max_words] if max_words else kept


def count_chunk(
    lines: Sequence[str], word_ids: dict[str, int], context_ids: dict[str, int], window: int
) -> sparse.csr_matrix:
    """Co-occurrence counts of one chunk of sentences (see the module docstring)."""
    n_words, n_contexts = len(word_ids), len(context_ids)
    same_ids = context_ids is word_ids  # every word is a context: look each token up once
    w_list: list[int] = []
    c_list: list[int] = []
    sent_list: list[int] = []
    for s, line in enumerate(lines):
        toks = line.split()
        w_list.extend(word_ids.get(t, -1) for t in toks)
        if not same_ids:
            c_list.extend(context_ids.get(t, -1) for t in toks)
        sent_list.extend([s] * len(toks))
    w = np.array(w_list, dtype=np.int64)
    c = w if same_ids else np.array(c_list, dtype=np.int64)
    sent = np.array(sent_list, dtype=np.int64)
    rows, cols = [], []
    for d in range(1, window + 1):
        same = sent[:-d] == sent[d:]
        # left token as word, right as context; and the other way round
        for ws, cs in ((w[:-d], c[d:]), (w[d:], c[:-d])):
            keep = same & (ws >= 0) & (cs >= 0)
            rows.append(ws[keep])
            cols.append(cs[keep])
    r = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
    k = np.concatenate(cols) if cols else np.zeros(0, dtype=np.int64)
    ones = np.ones(len(r), dtype=np.float64)
    return sparse.coo_matrix((ones, (r, k)), shape=(n_words, n_contexts)).tocsr()


def cooccurrence(
    path: Path,
    words: Sequence[str],
    contexts: Sequence[str],
    window: int,
    *,
    workers: int = 2,
    chunk_lines: int = 50_000,
    progress: Callable[[int], None] | None = None,
) -> sparse.csr_matrix:
    """The words × contexts co-occurrence matrix of a tokenized corpus file."""
    word_ids = {w: i for i, w in enumerate(words)}
    same = list(contexts) == list(words)
    context_ids = word_ids if same else {w: i for i, w in enumerate(contexts)}
    from simeval.engine import active

    if (engine := active()) is not None:
        return _cooccurrence_partitioned(
            engine, path, word_ids, None if same else context_ids, window
        )
    total = sparse.csr_matrix((len(words), len(contexts)), dtype=np.float64)
    chunks = read_lines(path, chunk_lines)
    if workers <= 1:
        for chunk in chunks:
            total = total + count_chunk(chunk, word_ids, context_ids, window)
            if progress:
                progress(len(chunk))
        return total
    with ProcessPoolExecutor(workers, initializer=_init, initargs=(word_ids, context_ids)) as ex:
        pending = []
        for chunk in chunks:
            pending.append((len(chunk), ex.submit(_count_in_worker, chunk, window)))
            if len(pending) >= 2 * workers:  # bounded: at most 2 chunks per worker in flight
                n, fut = pending.pop(0)
                total = total + fut.result()
                if progress:
                    progress(n)
        for n, fut in pending:
            total = total + fut.result()
            if progress:
                progress(n)
    return total


PARTITION_BYTES = 32 << 20  # of corpus text per counting task


def _cooccurrence_partitioned(
    engine: Any,
    path: Path,
    word_ids: dict[str, int],
    context_ids: dict[str, int] | None,
    window: int,
    partition_bytes: int = PARTITION_BYTES,
) -> sparse.csr_matrix:
    """The counts as a Dask job: the corpus file read in byte ranges cut at line ends (one
    task each; on a cluster every worker reads the file at the same path), a sparse matrix
    per range, summed by a tree reduction (8 at a time). Counts are integers held exactly in
    float64, so any order of additions gives the single-process matrix exactly."""
    import dask
    import dask.bag

    # the vocabularies as graph values, sent once and fetched by the tasks that need them (a
    # scattered future as a map_partitions argument was 8x slower on RusLit)
    words = dask.delayed(word_ids, pure=True)
    contexts = words if context_ids is None else dask.delayed(context_ids, pure=True)
    bag = dask.bag.read_text(str(path), blocksize=partition_bytes, encoding="utf-8")
    parts = bag.map_partitions(_count_partition, words, contexts, window)
    (total,) = engine.compute(parts.reduction(_add_all, _add_all, split_every=8))
    return sparse.csr_matrix(total, dtype=np.float64)


def _count_partition(
    lines: list[str], word_ids: dict[str, int], context_ids: dict[str, int], window: int
) -> list[sparse.csr_matrix]:
    same = context_ids == word_ids and len(context_ids) == len(word_ids)
    return [count_chunk(list(lines), word_ids, word_ids if same else context_ids, window)]


def _add_all(matrices: Iterable[sparse.csr_matrix]) -> sparse.csr_matrix:
    return functools.reduce(operator.add, matrices)


_WORKER: dict[str, dict[str, int]] = {}


def _init(word_ids: dict[str, int], context_ids: dict[str, int]) -> None:
    _WORKER["words"], _WORKER["contexts"] = word_ids, context_ids


def _count_in_worker(lines: list[str], window: int) -> sparse.csr_matrix:
    return count_chunk(lines, _WORKER["words"], _WORKER["contexts"], window)


def ppmi(counts: sparse.spmatrix, alpha: float = 0.75, shift: float = 1.0) -> sparse.csr_matrix:
    """Positive PMI with context-distribution smoothing and an optional shift (module doc)."""
    m = sparse.coo_matrix(counts, dtype=np.float64)
    row = np.asarray(m.sum(axis=1)).ravel()
    col = np.asarray(m.sum(axis=0)).ravel()
    col_alpha = col**alpha
    log_norm = np.log(col_alpha.sum())
    with np.errstate(divide="ignore"):
        pmi = (
            np.log(m.data)
            + log_norm
            - np.log(row[m.row])
            - np.log(col_alpha[m.col])
            - np.log(shift)
        )
    keep = pmi > 0
    out = sparse.coo_matrix((pmi[keep], (m.row[keep], m.col[keep])), shape=m.shape)
    return out.tocsr()


def svd_vectors(matrix: sparse.spmatrix, dim: int, power: float, seed: int = 0) -> np.ndarray:
    """U · Σ^power of the top ``dim`` singular triplets (largest first)."""
    from scipy.sparse.linalg import svds

    k = min(dim, min(matrix.shape) - 1)
    rng = np.random.default_rng(seed)
    v0 = rng.uniform(-1, 1, size=min(matrix.shape))
    u, s, _ = svds(sparse.csr_matrix(matrix, dtype=np.float64), k=k, v0=v0)
    order = np.argsort(-s)
    return (u[:, order] * s[order] ** power).astype(np.float32)
