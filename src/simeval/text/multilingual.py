"""Tokens of documents in de, en, fr, ru, tr and zh for cross-lingual rankers.

- ``doc_tokens``: lowercased word tokens (ё→е); Chinese is segmented with jieba, Russian with
  razdel, the rest with the regex of :mod:`simeval.text.tokenize`.
- ``lemmatizer``: pymorphy3 for Russian, simplemma for de, en, fr and tr (identity for zh).
- ``fold``: a Latin-script key for matching strings across languages: accents removed
  (NFKD), Cyrillic transliterated (a BGN/PCGN-like table: ж→zh, х→kh, ц→ts, ч→ch, ш→sh,
  щ→shch, ю→yu, я→ya, й/ы→y, ъ/ь dropped), lowercase.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import cache, lru_cache

from simeval.text.normalize import normalize
from simeval.text.tokenize import words

_CJK = re.compile(r"[\u3400-\u9fff]")
_HAS_WORD = re.compile(r"\w")
_LATIN = "a b v g d e e zh z i y k l m n o p r s t u f kh ts ch sh shch - y - e yu ya"
_CYR = dict(zip("абвгдеёжзийклмнопрстуфхцчшщъыьэюя", _LATIN.split(" "), strict=True))
_CYR["ъ"] = _CYR["ь"] = ""


@lru_cache(maxsize=1)
def _jieba():  # type: ignore[no-untyped-def]
    try:
        import jieba
    except ImportError as exc:  # pragma: no cover - depends on the extras installed
        raise ImportError("Chinese needs jieba: pip install 'simeval[xling]'") from exc
    jieba.setLogLevel(60)
    return jieba


def doc_tokens(text: str, lang: str) -> list[str]:
    """Lowercased word tokens of a document (no punctuation)."""
    if lang == "zh":
        return [
            normalize(t) for t in _jieba().lcut(text) if _HAS_WORD.search(t) and not t.isspace()
        ]
    out: list[str] = []
    for line in text.split("\n"):
        out.extend(normalize(w) for w in words(line, lang if lang == "ru" else "en"))
    return out


@cache  # one function, hence one lemma cache, per language
def lemmatizer(lang: str) -> Callable[[str], str]:
    """A word → lemma function (lowercase) for ``lang``; identity for Chinese."""
    if lang == "ru":
        from simeval.text.normalize import lemma

        return lemma
    if lang == "zh":
        return lambda w: w
    try:
        import simplemma
    except ImportError as exc:  # pragma: no cover - depends on the extras installed
        raise ImportError(
            f"lemmas for {lang} need simplemma: pip install 'simeval[xling]'"
        ) from exc

    @lru_cache(maxsize=500_000)
    def lem(word: str) -> str:
        return normalize(simplemma.lemmatize(word, lang=lang))

    return lem


@lru_cache(maxsize=500_000)
def fold(token: str) -> str:
    """A Latin-script matching key: no accents, Cyrillic transliterated, lowercase."""
    token = token.lower()
    if any("а" <= c <= "я" or c == "ё" for c in token):
        token = "".join(_CYR.get(c, c) for c in token)
    decomposed = unicodedata.normalize("NFKD", token)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def is_cjk(token: str) -> bool:
    return bool(_CJK.search(token))
