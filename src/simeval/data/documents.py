"""Linking collections on disk: X query documents, English documents and gold links; and
what a ranker is given (:class:`LinkingInput`) and returns (:class:`TopK`).

Layout (one folder), written by :func:`write_collection`:

==================  =====================================================================
``queries.jsonl``   one X document a line: ``id``, ``source``, ``doc_id`` (as the source
                    names it), ``split`` (train/test), ``text`` (sentences joined by ``\\n``)
``corpus.jsonl``    one English document a line: ``id``, ``source``, ``doc_id``, ``text``
``qrels.train``     TREC qrels ``qid 0 docno 1`` for the train queries
``qrels.test``      the same for the test queries (held back from participants)
``meta.json``       language, options, seed, counts per step and per source, input sha256
                    (optional in a folder made by hand)
==================  =====================================================================
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from simeval.data.textio import read_text
from simeval.errors import InputError
from simeval.metrics.order import tie_ranks


@dataclass
class Document:
    id: str
    source: str
    doc_id: str
    text: str
    split: str = ""  # train/test for queries; empty for English documents


@dataclass
class LinkingCollection:
    """Queries (X documents), the English corpus and the gold links (query id → docno)."""

    lang: str
    queries: list[Document]
    corpus: list[Document]
    links: dict[str, str]
    meta: dict[str, Any] = field(default_factory=dict)

    def split(self, name: str) -> list[Document]:
        return [q for q in self.queries if q.split == name]


def _write_jsonl(path: Path, docs: list[Document], with_split: bool) -> None:
    with path.open("w", encoding="utf-8") as f:
        for d in docs:
            row = asdict(d)
            if not with_split:
                row.pop("split")
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def write_collection(collection: LinkingCollection, folder: str | Path) -> list[Path]:
    """Write the documented layout (module docstring) into ``folder``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = [folder / "queries.jsonl", folder / "corpus.jsonl"]
    _write_jsonl(written[0], collection.queries, True)
    _write_jsonl(written[1], collection.corpus, False)
    for split in ("train", "test"):
        path = folder / f"qrels.{split}"
        with path.open("w", encoding="utf-8") as f:
            for q in collection.split(split):
                f.write(f"{q.id} 0 {collection.links[q.id]} 1\n")
        written.append(path)
    meta = folder / "meta.json"
    meta.write_text(json.dumps(collection.meta, ensure_ascii=False, indent=2) + "\n")
    return [*written, meta]


def _read_jsonl(path: Path, keys: tuple[str, ...]) -> list[Document]:
    out = []
    for n, line in enumerate(read_text(path).splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            out.append(Document(**{k: str(row[k]) for k in keys}))
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            msg = f"expected a JSON object with {', '.join(keys)} ({exc})"
            raise InputError(path, n, msg) from None
    return out


def read_collection(folder: str | Path) -> LinkingCollection:
    """Read a folder written by :func:`write_collection`."""
    from simeval.data.trec import read_qrels

    folder = Path(folder)
    # meta.json is optional for a folder made by hand: no language, no counts
    meta = json.loads(read_text(folder / "meta.json")) if (folder / "meta.json").is_file() else {}
    queries = _read_jsonl(folder / "queries.jsonl", ("id", "source", "doc_id", "text", "split"))
    corpus = _read_jsonl(folder / "corpus.jsonl", ("id", "source", "doc_id", "text"))
    links: dict[str, str] = {}
    for split in ("train", "test"):
        path = folder / f"qrels.{split}"
        if path.exists():
            q = read_qrels(path)
            links.update(
                {
                    a.decode(): b.decode()
                    for a, b, r in zip(q.qids, q.docnos, q.relevance, strict=True)
                    if r > 0
                }
            )
    return LinkingCollection(str(meta.get("lang", "")), queries, corpus, links, meta)


@dataclass
class LinkingInput:
    """What a ranker sees: queries in ``lang``, English documents, optional training links
    (``train_gold[i]`` is the corpus position of the document linked to ``train_queries[i]``),
    and optionally the English documents' ids (``corpus_ids[j]`` is the docno of ``corpus[j]``,
    as the run will name it), which decide ties as trec_eval does; without them ties go by
    corpus position."""

    lang: str
    queries: Sequence[str]
    corpus: Sequence[str]
    train_queries: Sequence[str] = ()
    train_gold: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    corpus_ids: Sequence[str] | None = None

    @cached_property
    def ties(self) -> np.ndarray | None:
        """The tie key of every English document (:func:`~simeval.metrics.order.tie_ranks` of
        ``corpus_ids``: 0 for the document trec_eval ranks first among equal scores), or None
        for ties by corpus position."""
        if self.corpus_ids is None:
            return None
        if len(self.corpus_ids) != len(self.corpus):
            raise ValueError(
                f"{len(self.corpus_ids)} corpus ids for {len(self.corpus)} corpus documents"
            )
        return tie_ranks(self.corpus_ids)


@dataclass
class TopK:
    """``index[i, j]``: corpus position of query i's j-th candidate (-1: none); ``score``."""

    index: np.ndarray
    score: np.ndarray
