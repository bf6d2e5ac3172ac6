"""Word normalization for vocabulary look-ups: lowercase, ё→е, lemma (pymorphy3 for Russian).

RUSSE's data writes е for ё; many Russian vector files keep ё, so both are tried.
"""

from __future__ import annotations

import re
from functools import lru_cache

_CYRILLIC = re.compile("[а-яёА-ЯЁ]")
_TOKEN = re.compile(r"\w+(?:[-'’]\w+)*")


def yo_to_e(word: str) -> str:
    return word.replace("ё", "е").replace("Ё", "Е")


def normalize(word: str) -> str:
    """Lowercase and ё→е."""
    return yo_to_e(word.lower())


def tokens(text: str) -> list[str]:
    """Word tokens of a text (letters and digits, with inner hyphens and apostrophes)."""
    return _TOKEN.findall(text)


@lru_cache(maxsize=1)
def _morph():  # type: ignore[no-untyped-def]
    try:
        import pymorphy3
    except ImportError as exc:  # pragma: no cover - depends on the extras installed
        raise ImportError(
            "lemmatizing Russian needs pymorphy3: pip install 'simeval[russian]'"
        ) from exc
    return pymorphy3.MorphAnalyzer()


@lru_cache(maxsize=200_000)
def lemma(word: str) -> str:
    """The most probable pymorphy3 lemma of a Russian word (lowercase, ё→е); other words are
    returned normalized but otherwise unchanged."""
    word = normalize(word)
    if not _CYRILLIC.search(word):
        return word
    return yo_to_e(_morph().parse(word)[0].normal_form)


@lru_cache(maxsize=50_000)
def lexeme(word: str) -> tuple[str, ...]:
    """Every form of the lemma of a Russian word's most probable pymorphy3 parse (lowercase,
    with ё and with е), the lemma first; other words give themselves."""
    word = normalize(word)
    if not _CYRILLIC.search(word):
        return (word,)
    parse = _morph().parse(word)[0]
    forms = [parse.normal_form, *(f.word for f in parse.lexeme)]
    return tuple(dict.fromkeys(v for f in forms for v in (f, yo_to_e(f))))
