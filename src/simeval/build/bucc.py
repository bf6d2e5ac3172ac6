"""Turning linked document pairs into a BUCC 2015-style linking benchmark.

The BUCC 2015 preparation, each step an option with the BUCC default:

1. ``drop_first`` (on): remove the first sentence of every document, on both sides (BUCC
   removed it because Wikipedia's first sentence often names the English title).
2. ``drop_sentences`` (0.0, off): "comparability" noise. Each sentence of each side is dropped
   independently with this probability (at least one is kept), so translated pairs stop being
   sentence-for-sentence parallel and behave more like comparable articles.
3. ``iqr`` (on): keep a pair only if its length ratio ``len(X) / len(English)`` (characters of
   the remaining text) lies within the inter-quartile range of the ratios of all pairs,
   ``Q1 <= r <= Q3`` (quartiles by linear interpolation, ``numpy.percentile``).
4. ``test_share`` (0.5): split the kept pairs into train (links given) and test (links held
   back), within each source, so every source is split in the same proportion.

The English side of the benchmark is every English document read, including those whose pair
was filtered out in step 3: a query competes against the whole collection. Documents left
empty by step 1 are dropped with their pair. Everything random draws from ``seed``.

The result is written and read by :mod:`simeval.data.documents` (its docstring gives the
layout).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from simeval.data.docpairs import DocPair
from simeval.data.documents import Document, LinkingCollection
from simeval.errors import InputError


@dataclass(frozen=True)
class Preparation:
    """The BUCC 2015 preparation steps (see the module docstring); defaults are BUCC's."""

    drop_first: bool = True
    drop_sentences: float = 0.0
    iqr: bool = True
    test_share: float = 0.5
    seed: int = 0

    def __post_init__(self) -> None:
        if not 0.0 <= self.drop_sentences < 1.0:
            raise InputError(None, None, f"drop_sentences={self.drop_sentences}: need 0 <= p < 1")
        if not 0.0 <= self.test_share <= 1.0:
            raise InputError(None, None, f"test_share={self.test_share}: need 0 <= share <= 1")


def _ident(text: str) -> str:
    return re.sub(r"\s+", "_", text.strip()) or "_"


def _noisy(sentences: list[str], p: float, rng: np.random.Generator) -> list[str]:
    if p <= 0 or len(sentences) <= 1:
        return sentences
    keep = rng.random(len(sentences)) >= p
    if not keep.any():
        keep[rng.integers(len(sentences))] = True
    return [s for s, k in zip(sentences, keep, strict=True) if k]


def iqr_bounds(ratios: np.ndarray) -> tuple[float, float]:
    """Q1 and Q3 of ``ratios`` (numpy's linear-interpolation quartiles)."""
    q1, q3 = np.percentile(ratios, [25, 75])
    return float(q1), float(q3)


def prepare(
    pairs: list[DocPair], lang: str, options: Preparation | None = None
) -> LinkingCollection:
    """Apply the BUCC preparation to ``pairs`` (see the module docstring)."""
    options = options or Preparation()
    rng = np.random.default_rng(options.seed)
    counts: dict[str, Any] = {"read": len(pairs)}
    queries: list[Document] = []
    corpus: list[Document] = []
    seen: set[str] = set()
    linked: dict[str, str] = {}  # query id -> English id
    ratios: list[float] = []  # characters X / English, one per query
    for p in pairs:
        x = [s for s in p.x if s.strip()]
        en = [s for s in p.en if s.strip()]
        if options.drop_first:
            x, en = x[1:], en[1:]
        x = _noisy(x, options.drop_sentences, rng)
        en = _noisy(en, options.drop_sentences, rng)
        base = f"{_ident(p.source)}/{_ident(p.doc_id)}"
        if base in seen:
            raise InputError(None, None, f"document {p.doc_id!r} of {p.source} appears twice")
        seen.add(base)
        if en:
            corpus.append(Document(f"en:{base}", p.source, p.doc_id, "\n".join(en)))
        if x and en:
            queries.append(Document(f"{lang}:{base}", p.source, p.doc_id, "\n".join(x)))
            linked[queries[-1].id] = corpus[-1].id
            ratios.append(len(queries[-1].text) / len(corpus[-1].text))
    counts["non_empty"] = len(queries)
    if options.iqr and queries:
        q1, q3 = iqr_bounds(np.array(ratios))
        counts["iqr"] = [round(q1, 6), round(q3, 6)]
        queries = [q for q, r in zip(queries, ratios, strict=True) if q1 <= r <= q3]
    counts["kept"] = len(queries)
    by_source: dict[str, list[Document]] = {}
    for q in queries:
        by_source.setdefault(q.source, []).append(q)
    for docs in by_source.values():
        order = rng.permutation(len(docs))
        n_test = round(options.test_share * len(docs))
        for rank, i in enumerate(order):
            docs[i].split = "test" if rank < n_test else "train"
    counts["train"] = sum(q.split == "train" for q in queries)
    counts["test"] = sum(q.split == "test" for q in queries)
    counts["corpus"] = len(corpus)
    counts["by_source"] = {
        s: {
            "queries": len(docs),
            "test": sum(d.split == "test" for d in docs),
            "corpus": sum(d.source == s for d in corpus),
        }
        for s, docs in sorted(by_source.items())
    }
    links = {q.id: linked[q.id] for q in queries}
    meta = {"lang": lang, "options": asdict(options), "counts": counts}
    return LinkingCollection(lang, queries, corpus, links, meta)


MANIFEST = "manifest.json"
FORMAT = 1  # bump when the preparation's output changes, so cached collections are rebuilt


def cached_xling(lang: str, store: Any, options: Preparation | None = None) -> LinkingCollection:
    """``xling-<lang>-en``'s collection: every staged X-en pair (:func:`xling_pairs`) prepared
    once into the cache (``collections/xling-<lang>-en-<key>``) and read from there after.

    The key hashes the inputs' catalogued sha256, the preparation's settings and ``FORMAT``;
    ``manifest.json`` beside the collection records them. The folder is written under a
    temporary name and renamed, so a build cut short leaves nothing that looks finished.
    """
    import hashlib
    import json
    import os
    import shutil

    from simeval.cache import cache_root
    from simeval.data.docpairs import xling_files, xling_pairs
    from simeval.data.documents import read_collection, write_collection

    options = options or Preparation()
    manifest = {
        "builder": "bucc",
        "format": FORMAT,
        "settings": {"lang": lang, **asdict(options)},
        "inputs": {f: store.sha256(f) for f in xling_files(lang)},
    }
    key = hashlib.sha256(json.dumps(manifest, sort_keys=True).encode()).hexdigest()[:16]
    folder = cache_root() / "collections" / f"xling-{lang}-en-{key}"
    if not (folder / MANIFEST).is_file():
        pairs, data = xling_pairs(lang, store)
        collection = prepare(pairs, lang, options)
        collection.meta["data"] = data
        partial = folder.with_name(f"{folder.name}.partial-{os.getpid()}")
        write_collection(collection, partial)
        (partial / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        try:
            os.replace(partial, folder)
        except OSError:  # another process finished first: keep its folder
            shutil.rmtree(partial, ignore_errors=True)
    return read_collection(folder)


def build_collection(entry: Any, store: Any) -> LinkingCollection:
    """The collection of a registry entry with a builder (``tasks.registry.CollectionEntry``)."""
    builders = {"bucc": lambda lang: cached_xling(lang, store)}
    if entry.builder not in builders:
        raise InputError(None, None, f"{entry.name}: unknown builder {entry.builder!r}")
    return builders[entry.builder](**dict(entry.options))
