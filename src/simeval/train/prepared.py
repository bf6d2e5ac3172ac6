"""A corpus tokenized once: one sentence a line, tokens separated by spaces, in the cache.

Every model trained from the same corpus with the same language and lemmatization reads this
file, so the slow part (sentence splitting, tokenizing, lemmatizing) runs once. Its name holds
the corpus sha256 and the options; it is written under a temporary name and renamed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from simeval.data.atomic import staged, write_atomic
from simeval.text.corpus import iter_documents
from simeval.text.tokenize import token_sentences

TOKENIZATION_VERSION = 1  # bump when tokenization changes, so old cached files are not reused


@dataclass
class PreparedCorpus:
    path: Path  # the tokenized text
    sha256: str  # of the raw corpus (files in order, for folders)
    documents: int
    sentences: int
    tokens: int


def corpus_sha256(path: Path) -> str:
    """sha256 of a corpus file, or of the sorted files of a folder (names and contents)."""
    h = hashlib.sha256()
    files = sorted(f for f in path.rglob("*") if f.is_file()) if path.is_dir() else [path]
    for f in files:
        if path.is_dir():
            h.update(str(f.relative_to(path)).encode() + b"\0")
        with open(f, "rb") as stream:
            while block := stream.read(1 << 20):
                h.update(block)
    return h.hexdigest()


def prepare_corpus(
    corpus: str | Path,
    lang: str,
    lemmatize: bool,
    cache: Path,
    *,
    one_per_line: bool = False,
    progress: Callable[[int], None] | None = None,
) -> PreparedCorpus:
    """The tokenized form of ``corpus`` (made on first use, then reused)."""
    src = Path(corpus)
    digest = corpus_sha256(src)
    options = (
        f"{lang}-{'lemma' if lemmatize else 'form'}-{int(one_per_line)}-v{TOKENIZATION_VERSION}"
    )
    target = cache / f"{digest[:20]}-{options}.txt"
    meta = target.with_suffix(".json")
    if target.is_file() and meta.is_file():
        info = json.loads(meta.read_text())
        return PreparedCorpus(target, digest, info["documents"], info["sentences"], info["tokens"])
    cache.mkdir(parents=True, exist_ok=True)
    documents = sentences = tokens = 0
    with staged(target) as tmp, open(tmp, "w", encoding="utf-8") as out:
        for doc in iter_documents(src, one_per_line=one_per_line):
            documents += 1
            for sentence in token_sentences(doc.text, lang, lemmatize):
                out.write(" ".join(sentence) + "\n")
                sentences += 1
                tokens += len(sentence)
            if progress:
                progress(documents)
    info = {"documents": documents, "sentences": sentences, "tokens": tokens, "sha256": digest}
    write_atomic(meta, json.dumps(info).encode())
    return PreparedCorpus(target, digest, documents, sentences, tokens)
