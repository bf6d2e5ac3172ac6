"""``navec:``: the cosine of navec's Russian word vectors, with back-off for the words navec
lacks.

navec (Kukushkin, the Natasha project) is a quantized word2vec-style model: 250,002 words of
Russian news (1 B tokens), 300 dimensions. The wheel of the PyPI package ``natasha`` ships it
(``natasha/data/emb/navec_news_v1_1B_250K_300d_100q.tar``), so ``path=auto`` needs no download;
the ``navec`` package reads it.

navec holds word forms as news uses them, and often lacks a lemma: *галька* is missing,
*гальки* is there. With ``oov=backoff`` (the default) a word navec lacks is looked up, in
order, as:

1. its lowercase, ё→е and pymorphy3 lemma forms (as ``vectors:oov=backoff`` does);
2. the mean of the vectors of every form of its lemma that navec holds (pymorphy3's lexeme);
3. cleaned: stray spaces dropped and Latin look-alike letters in a Cyrillic word made
   Cyrillic (``мoлoкo`` with Latin o), then steps 1–2 again;
4. a hyphenated or multiword entry: the mean of its parts' vectors, when every part is found.

A word found nowhere leaves its pair unscored (``fallback=zero``, RUSSE's rule, scores it 0;
``skip`` leaves it out). ``oov=zero`` or ``skip`` turns the back-off off. The record keeps how
many words each step found (``backoff_found``).
"""

from __future__ import annotations

import os
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from simeval.errors import InputError
from simeval.measures.spec import Params
from simeval.measures.vectors import Vocabulary, Wanted, WordVectors, pick_rows
from simeval.text.normalize import lexeme

NAVEC_FILE = "navec_news_v1_1B_250K_300d_100q.tar"
# Latin letters that look like Cyrillic ones, as typed into Russian words by mistake
LOOK_ALIKES = str.maketrans("aeopcxyATEOPCXBMHK", "аеорсхуАТЕОРСХВМНК")


def natasha_navec() -> Path:
    """The navec file inside the installed ``natasha`` package (found without importing
    natasha, whose own imports are heavy)."""
    from importlib.util import find_spec

    spec = find_spec("natasha")
    if spec is None or spec.origin is None:
        raise InputError(
            None, None, "navec:path=auto reads the file natasha's wheel ships: pip install "
            "'simeval[russian]' (or give path=FILE.tar)",
        )  # fmt: skip
    path = Path(spec.origin).parent / "data" / "emb" / NAVEC_FILE
    if not path.is_file():
        raise InputError(path, None, "natasha is installed without its navec file")
    return path


@lru_cache(maxsize=2)
def load_navec(path: str) -> Any:
    """navec's model (its quantized vectors stay quantized until a row is asked for)."""
    try:
        from navec import Navec
    except ImportError:
        raise InputError(
            None, None, "the navec measure needs navec: pip install 'simeval[russian]'"
        ) from None
    try:
        return Navec.load(path)
    except Exception as exc:  # a tar that is not navec's: its reader raises many kinds
        raise InputError(path, None, f"not a navec file ({type(exc).__name__}: {exc})") from None


class NavecVectors(WordVectors):
    """``navec:path=auto,oov=backoff,fallback=zero`` (module docstring)."""

    name = "navec"

    def __init__(self, spec: str, params: dict[str, Any]) -> None:
        super().__init__(spec, {**params, "format": "navec", "sif": False, "lang": "ru"})
        self.found_by: Counter[str] = Counter()

    @property
    def navec(self) -> Any:
        return load_navec(str(self.path))

    def _read(self, wanted: Wanted) -> Vocabulary:
        words = self.navec.vocab.words
        return pick_rows(self.path, words, lambda i: self.navec[words[i]], 300, wanted)

    def _vector(self, word: str) -> np.ndarray | None:
        """navec's vector of ``word`` as written, or None."""
        return np.asarray(self.navec[word], dtype=np.float32) if word in self.navec else None

    def _lexeme_mean(self, word: str) -> np.ndarray | None:
        """The mean of the vectors of the forms of ``word``'s lemma that navec holds."""
        rows = [v for f in lexeme(word) if (v := self._vector(f)) is not None]
        return np.mean(rows, axis=0) if rows else None

    def _found(self, word: str) -> np.ndarray | None:
        """Steps 1 and 2 of the back-off for one word."""
        for form in self.forms(word):  # as written, lowercase, ё→е, lemma
            vector = self._vector(form)
            if vector is not None:
                return vector
        return self._lexeme_mean(word)

    def _lookup(self, word: str) -> int | None:
        i = super()._lookup(word)
        if i is not None or not self.backoff:
            if i is not None:
                self.found_by["as written or a normal form"] += 1
            return i
        assert self.vocab is not None
        vector, step = self._lexeme_mean(word), "lemma's forms"
        cleaned = "".join(word.split()).translate(LOOK_ALIKES) if _cyrillic(word) else word
        if vector is None and cleaned != word:
            vector, step = self._found(cleaned), "cleaned"
        if vector is None:
            parts = [p for p in cleaned.replace("-", " ").split() if p]
            if len(parts) > 1:
                found = [self._found(p) for p in parts]
                if all(v is not None for v in found):
                    vector, step = np.mean(found, axis=0), "mean of parts"
        if vector is None:
            return None
        self.found_by[step] += 1
        self.vocab.rows.append(np.asarray(vector, dtype=np.float32))
        return len(self.vocab.rows) - 1

    def extra(self) -> dict[str, Any]:
        return {**super().extra(), "backoff_found": dict(self.found_by)}


def _cyrillic(word: str) -> bool:
    letters = [c for c in word if c.isalpha()]
    return bool(letters) and sum("а" <= c.lower() <= "я" or c in "ёЁ" for c in letters) * 2 >= len(
        letters
    )


def make_navec(p: Params) -> NavecVectors:
    path = p.get("path", "auto", str)
    if path == "auto":
        p.resolved["path"] = str(natasha_navec())
    elif not os.path.isfile(path):
        raise InputError(path, None, "navec file not found")
    p.get("oov", "backoff", str, ("backoff", "zero", "skip"))
    p.get("fallback", "zero", str, ("skip", "zero"))
    return NavecVectors(str(p.spec), p.done())
