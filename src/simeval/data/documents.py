"""Linking collections on disk: X query documents, English documents and gold links; and
what a ranker is given (:class:`LinkingInput`) and returns (:class:`TopK`).

Layout (one folder), written by :func:`write_collection`:

==================  =====================================================================
``queries.jsonl``   one X document a line: ``id``, ``source``, ``doc_id`` (as the source
                    names it), ``split`` (train/test), ``text`` (sentences joined by ``\\n``)
``corpus.jsonl``    one English document a line: ``id``, ``source``, ``doc_id``, ``text``
``qrels.train``     TREC qrels ``qid 0 docno 1`` for the train queries
``qrels.test``      the same for the test queries (held back from participants); a folder
                    made by hand may call it ``qrels`` (not both: which is the gold?)
``meta.json``       language, options, seed, counts per step and per source, input sha256
                    (optional in a folder made by hand)
==================  =====================================================================

A folder made by hand may judge a query with several documents, and with relevance 0 (judged
non-relevant): the test qrels are kept as read and evaluated as trec_eval does. Every query
needs a line in its split's qrels, every judged query and document must be in the JSON lines,
and every field there is a string (an integer id is read as its digits).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from simeval.data.textio import iter_lines, read_text, shown
from simeval.data.trec import Qrels, read_qrels
from simeval.errors import InputError
from simeval.metrics.ranking.order import tie_ranks


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
    links: dict[str, str]  # a query's (first) relevant document
    meta: dict[str, Any] = field(default_factory=dict)
    # the qrels files as read, by split: several relevant documents a query, relevance 0 kept
    judgements: dict[str, Qrels] = field(default_factory=dict)
    # relevant documents by query, made from the above on first use
    _relevant: dict[str, list[str]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def split(self, name: str) -> list[Document]:
        return [q for q in self.queries if q.split == name]

    def relevant(self, qid: str) -> list[str]:
        """The documents judged relevant to ``qid`` (relevance >= 1), in qrels order."""
        if self._relevant is None:
            found: dict[str, list[str]] = {}
            for qrels in self.judgements.values():
                for q, d, r in _rows(qrels):
                    if r > 0:
                        found.setdefault(q.decode(), []).append(d.decode())
            judged = {q.id for q in self.queries if q.split in self.judgements}
            for q, d in self.links.items():  # a built collection's links, not read from qrels
                if q not in judged:
                    found.setdefault(q, [d])
            self._relevant = found
        return self._relevant.get(qid, [])


def _rows(qrels: Qrels) -> Any:
    return zip(qrels.qids.tolist(), qrels.docnos.tolist(), qrels.relevance.tolist(), strict=True)


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
                f.writelines(f"{q.id} 0 {d} 1\n" for d in collection.relevant(q.id))
        written.append(path)
    meta = folder / "meta.json"
    meta.write_text(json.dumps(collection.meta, ensure_ascii=False, indent=2) + "\n")
    return [*written, meta]


SPLITS = ("train", "test")
SURROGATE = re.compile("[\ud800-\udfff]")


def _field(row: dict, key: str, path: Path, line: int) -> str:
    """``row[key]`` as text: a string, or an integer id written as its digits; ``null``, a
    number with a point, a list or an object are refused (``null`` was read as "None")."""
    if key not in row:
        raise InputError(path, line, f"key {key!r} is missing")
    value = row[key]
    if isinstance(value, str):
        if SURROGATE.search(value):  # a JSON escape such as \ud800 alone: no UTF-8 for it
            raise InputError(path, line, f"key {key!r}: a lone surrogate escape (\\ud800-\\udfff)")
        return value
    if isinstance(value, int) and not isinstance(value, bool) and key in ("id", "doc_id"):
        return str(value)
    found = "null" if value is None else json.dumps(value)[:40]
    raise InputError(path, line, f"key {key!r}: expected a string, got {found}")


def _read_jsonl(path: Path, keys: tuple[str, ...]) -> list[Document]:
    out = []
    first: dict[str, int] = {}  # id -> line
    for n, line in iter_lines(path):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            msg = f"expected a JSON object with {', '.join(keys)} ({exc})"
            raise InputError(path, n, msg) from None
        if not isinstance(row, dict):
            raise InputError(path, n, f"expected a JSON object with {', '.join(keys)}")
        doc = Document(**{k: _field(row, k, path, n) for k in keys})
        if "split" in keys and doc.split not in SPLITS:
            raise InputError(path, n, f"split {shown(doc.split)}: expected train or test")
        if doc.id in first:
            raise InputError(
                path, n, f"id {shown(doc.id)} given twice (first on line {first[doc.id]})"
            )
        first[doc.id] = n
        out.append(doc)
    return out


def qrels_path(folder: Path, split: str = "test") -> Path | None:
    """The qrels file of ``split`` (a hand-made folder's ``qrels`` is the test split's); a
    folder holding both ``qrels`` and ``qrels.test`` is refused: which is the gold is unclear."""
    names = (f"qrels.{split}", "qrels") if split == "test" else (f"qrels.{split}",)
    found = [folder / n for n in names if (folder / n).is_file()]
    if len(found) > 1:
        raise InputError(
            found[1], None, "a second test qrels beside qrels.test: keep one of the two files"
        )
    return found[0] if found else None


def _judgements(
    folder: Path, queries: list[Document], corpus: list[Document], queries_path: Path
) -> tuple[dict[str, Qrels], dict[str, str]]:
    """Each split's qrels, checked against the documents: every judged query is a query of
    that split, every judged document is in the corpus, every query has a judgement. Returns
    the qrels by split and each query's first relevant document."""
    split_of = {q.id: q.split for q in queries}
    documents = {d.id for d in corpus}
    judged: dict[str, Qrels] = {}
    links: dict[str, str] = {}
    seen: set[str] = set()
    for split in SPLITS:
        path = qrels_path(folder, split)
        if path is None:
            continue
        qrels = read_qrels(path)
        for (qid, docno, rel), line in zip(_rows(qrels), qrels.lines.tolist(), strict=True):
            q, d = qid.decode(), docno.decode()
            if q not in split_of:
                raise InputError(path, line, f"query {shown(q)} is not in {queries_path.name}")
            if split_of[q] != split:
                msg = f"query {shown(q)} is a {split_of[q]} query in {queries_path.name}"
                raise InputError(path, line, f"{msg}, expected in qrels.{split_of[q]}")
            if d not in documents:
                raise InputError(path, line, f"document {shown(d)} is not in corpus.jsonl")
            seen.add(q)
            if rel > 0:
                links.setdefault(q, d)
        judged[split] = qrels
    for n, q in enumerate(queries):
        if q.id not in seen:
            where = qrels_path(folder, q.split) or folder / f"qrels.{q.split}"
            raise InputError(
                queries_path,
                _line_of(queries_path, n),
                f"query {shown(q.id)} ({q.split}) has no judgement in {where.name}",
            )
    return judged, links


def _line_of(path: Path, index: int) -> int:
    """The line of the ``index``-th non-blank line of ``path`` (for a message only)."""
    count = -1
    for n, line in iter_lines(path):
        count += bool(line.strip())
        if count == index:
            return n
    return index + 1


def read_collection(folder: str | Path) -> LinkingCollection:
    """Read a folder written by :func:`write_collection` (or made by hand, module docstring)."""
    folder = Path(folder)
    # meta.json is optional for a folder made by hand: no language, no counts
    meta: Any = {}
    if (folder / "meta.json").is_file():
        try:
            meta = json.loads(read_text(folder / "meta.json"))
        except json.JSONDecodeError as exc:
            raise InputError(folder / "meta.json", exc.lineno, f"not JSON: {exc.msg}") from None
    queries_path = folder / "queries.jsonl"
    queries = _read_jsonl(queries_path, ("id", "source", "doc_id", "text", "split"))
    corpus = _read_jsonl(folder / "corpus.jsonl", ("id", "source", "doc_id", "text"))
    judged, links = _judgements(folder, queries, corpus, queries_path)
    lang = str(meta.get("lang", "")) if isinstance(meta, dict) else ""
    meta = meta if isinstance(meta, dict) else {}
    return LinkingCollection(lang, queries, corpus, links, meta, judged)


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
        """The tie key of every English document
        (:func:`~simeval.metrics.ranking.order.tie_ranks` of ``corpus_ids``: 0 for the document
        trec_eval ranks first among equal scores), or None for ties by corpus position."""
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
