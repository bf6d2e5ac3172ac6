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
5. ``halves`` (off; on for ``xling-hard-*``): each side keeps a different random half of the
   pair's sentences, so no sentence has its translation on the other side and the pair reads
   like two comparable articles rather than a translation (:data:`HALVES_RULE`, :func:`halves`).
   Steps 3 and 4 are computed on the full documents before it, so the hard variant asks the
   queries of the plain one, less those that cannot be halved, with the same train/test split.

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
    halves: bool = False

    def __post_init__(self) -> None:
        """Refuse settings out of range, naming the option (``--test-share``...) as the command
        line spells it."""
        if not 0.0 <= self.drop_sentences < 1.0:
            raise InputError(
                None, None, f"--drop-sentences {self.drop_sentences}: expected 0 <= p < 1"
            )
        if self.halves and self.drop_sentences > 0:
            raise InputError(
                None, None, "--halves needs sentence-aligned pairs: it excludes --drop-sentences"
            )
        if not 0.0 <= self.test_share <= 1.0:
            raise InputError(None, None, f"--test-share {self.test_share}: expected 0 to 1")
        if self.seed < 0:
            raise InputError(None, None, f"--seed {self.seed}: expected 0 or above")


def _ident(text: str) -> str:
    return re.sub(r"\s+", "_", text.strip()) or "_"


def _noisy(sentences: list[str], p: float, rng: np.random.Generator) -> list[str]:
    if p <= 0 or len(sentences) <= 1:
        return sentences
    keep = rng.random(len(sentences)) >= p
    if not keep.any():
        keep[rng.integers(len(sentences))] = True
    return [s for s, k in zip(sentences, keep, strict=True) if k]


HALVES_RULE = (
    "After the first sentence is dropped, a pair whose two sides have the same number n of "
    "sentences is taken as sentence-aligned. Its sentence indices 0..n-1 are permuted by "
    "numpy.random.default_rng([seed, h]), h = the first 8 bytes (big-endian) of the sha256 "
    "of the pair's id '<source>/<doc_id>' (the query id after '<lang>:'); the English "
    "document keeps the first ceil(n/2) indices of the permutation and the X document the "
    "other floor(n/2), each in document order. A pair with n = 1, or whose sides differ in "
    "sentence count (not aligned, so an index split could leave a translation on both sides), "
    "gives no query; its English document keeps ceil(n_en/2) of its sentences by the same "
    "rule and stays as a distractor. The length filter and the train/test split are computed "
    "on the full documents, before halving."
)


def half_seed(seed: int, doc: str) -> list[int]:
    """The seed of one document's halves: ``[seed, h]``, h = the first 8 bytes of
    ``sha256(doc)`` as a big-endian integer, so a document's halves depend only on ``seed`` and
    its id (``<source>/<doc_id>``), not on the order or number of documents read."""
    import hashlib

    return [seed, int.from_bytes(hashlib.sha256(doc.encode()).digest()[:8], "big")]


def halves(x: list[str], en: list[str], seed: int, doc: str) -> tuple[list[str], list[str]]:
    """The X and English halves of one pair (:data:`HALVES_RULE`): with ``n = len(en)`` and
    ``π`` the permutation of ``0..n-1`` drawn from :func:`half_seed`, English keeps
    ``sorted(π[:⌈n/2⌉])`` and X ``sorted(π[⌈n/2⌉:])`` when ``len(x) == n``; otherwise X keeps
    nothing. ``n = 1`` leaves X empty; ``n = 0`` gives two empty lists."""
    n = len(en)
    order = np.random.default_rng(half_seed(seed, doc)).permutation(n)
    cut = (n + 1) // 2
    en_keep = sorted(int(i) for i in order[:cut])
    x_keep = sorted(int(i) for i in order[cut:]) if len(x) == n else []
    return [x[i] for i in x_keep], [en[i] for i in en_keep]


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
    halved: dict[str, str] = {}  # document id -> its half's text (``halves``; "" for none)
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
        if options.halves:
            hx, hen = halves(x, en, options.seed, base)
            halved[f"{lang}:{base}"], halved[f"en:{base}"] = "\n".join(hx), "\n".join(hen)
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
    if options.halves:
        queries, corpus = _halve(queries, corpus, halved, by_source)
        counts["halved"] = len(queries)
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


def _halve(
    queries: list[Document],
    corpus: list[Document],
    halved: dict[str, str],
    by_source: dict[str, list[Document]],
) -> tuple[list[Document], list[Document]]:
    """Every document's text replaced by its half; queries left without one are dropped."""
    for d in [*queries, *corpus]:
        d.text = halved[d.id]
    for source, docs in by_source.items():
        by_source[source] = [q for q in docs if q.text]
    return [q for q in queries if q.text], corpus


MANIFEST = "manifest.json"
FORMAT = 1  # bump when the preparation's output changes, so cached collections are rebuilt


def cached_xling(lang: str, store: Any, options: Preparation | None = None) -> LinkingCollection:
    """``xling-<lang>-en``'s collection (``xling-hard-<lang>``'s with ``options.halves``): every
    staged X-en pair (:func:`xling_pairs`) prepared once into the cache
    (``collections/xling-<lang>-en-<key>``, ``collections/xling-hard-<lang>-<key>``) and read
    from there after.

    The key hashes the inputs' catalogued sha256, the preparation's settings and ``FORMAT``;
    ``manifest.json`` beside the collection records them, and with ``halves`` the rule
    (:data:`HALVES_RULE`); the seed is ``settings.seed``. The folder is written under a
    temporary name and renamed, so a build cut short leaves nothing that looks finished.
    """
    import hashlib
    import json

    from simeval.cache import cache_root
    from simeval.data.atomic import staged
    from simeval.data.docpairs import xling_files, xling_pairs
    from simeval.data.documents import read_collection, write_collection

    options = options or Preparation()
    manifest: dict[str, Any] = {
        "builder": "bucc",
        "format": FORMAT,
        "settings": {"lang": lang, **asdict(options)},
        "inputs": {f: store.sha256(f) for f in xling_files(lang)},
    }
    if options.halves:
        manifest["rule"] = HALVES_RULE
    key = hashlib.sha256(json.dumps(manifest, sort_keys=True).encode()).hexdigest()[:16]
    name = f"xling-hard-{lang}" if options.halves else f"xling-{lang}-en"
    folder = cache_root() / "collections" / f"{name}-{key}"
    if not (folder / MANIFEST).is_file():
        pairs, data = xling_pairs(lang, store)
        collection = prepare(pairs, lang, options)
        collection.meta["data"] = data
        try:
            with staged(folder, folder=True) as partial:
                write_collection(collection, partial)
                (partial / MANIFEST).write_text(
                    json.dumps(manifest, indent=2) + "\n", encoding="utf-8"
                )
        except OSError:  # another process finished first: keep its folder
            if not (folder / MANIFEST).is_file():
                raise
    return read_collection(folder)


def build_collection(entry: Any, store: Any) -> LinkingCollection:
    """The collection of a registry entry with a builder (``kinds.linking.CollectionEntry``)."""
    if entry.builder != "bucc":
        raise InputError(None, None, f"{entry.name}: unknown builder {entry.builder!r}")
    options = bucc_options(entry.name, dict(entry.options))
    return cached_xling(options["lang"], store, Preparation(halves=options["halves"]))


BUCC_OPTIONS = {"lang": str, "halves": bool}


def bucc_options(name: str, options: dict[str, Any]) -> dict[str, Any]:
    """The ``options`` of a ``builder = "bucc"`` entry checked: ``lang`` (text, required) and
    ``halves`` (true or false, default false); any other key is refused."""
    unknown = sorted(set(options) - set(BUCC_OPTIONS))
    if unknown:
        raise InputError(
            None, None, f"{name}: options: unknown key(s) {unknown}; expected lang, halves"
        )
    if "lang" not in options:
        raise InputError(None, None, f"{name}: options: 'lang' is missing")
    for key, kind in BUCC_OPTIONS.items():
        if key in options and not isinstance(options[key], kind):
            what = "text" if kind is str else "true or false"
            raise InputError(None, None, f"{name}: options: {key!r} must be {what}")
    return {"halves": False, **options}
