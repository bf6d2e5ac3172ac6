"""Sentence splitting and tokenization per language, and the token normalization used for
training: lowercase, ё→е, optional lemmas (pymorphy3 for Russian, simplemma for English).

- Russian: razdel (``sentenize``, ``tokenize``), the rule-based splitter of the Natasha project,
  tested on UD Russian-GSD sentences in ``tests/train/test_train.py``;
- English (and other languages): sentences end at ``.``, ``!``, ``?`` or ``…`` followed by
  white space and an upper-case letter or a quote; tokens are runs of letters and digits with
  inner hyphens or apostrophes.

Only word tokens are kept (no punctuation); numbers are kept as tokens.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import lru_cache

from simeval.text.normalize import lemma as ru_lemma
from simeval.text.normalize import normalize

_EN_SENTENCE_END = re.compile(r"(?<=[.!?…])[\"'”’)\]]*\s+(?=[\"'“‘(\[]?[A-ZА-ЯЁ0-9])")
_TITLES = "Mr|Mrs|Ms|Dr|St|Prof|Rev|Gen|Col|Capt|Lt|Sr|Jr|vs|etc|i\\.e|e\\.g"
_ABBREVIATION = re.compile(rf"(?:^|\s)(?:{_TITLES})\.$")
_WORD = re.compile(r"\w+(?:[-'’]\w+)*")
_HAS_LETTER_OR_DIGIT = re.compile(r"\w")
LANGUAGES = ("ru", "en")


def _english_sentences(paragraph: str) -> list[str]:
    out: list[str] = []
    for part in _EN_SENTENCE_END.split(paragraph):
        if out and _ABBREVIATION.search(out[-1]):
            out[-1] += " " + part  # "Mr. Smith": no sentence break after a title
        elif part:
            out.append(part)
    return out


def sentences(text: str, lang: str) -> list[str]:
    """The sentences of a text (paragraph breaks always end a sentence)."""
    out: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text):
        paragraph = " ".join(paragraph.split())
        if not paragraph:
            continue
        if lang == "ru":
            from razdel import sentenize

            out.extend(s.text for s in sentenize(paragraph))
        else:
            out.extend(_english_sentences(paragraph))
    return out


def words(sentence: str, lang: str) -> list[str]:
    """The word tokens of one sentence, as written."""
    if lang == "ru":
        from razdel import tokenize

        return [t.text for t in tokenize(sentence) if _HAS_LETTER_OR_DIGIT.search(t.text)]
    return _WORD.findall(sentence)


@lru_cache(maxsize=500_000)
def en_lemma(word: str) -> str:
    try:
        import simplemma
    except ImportError as exc:  # pragma: no cover - depends on the extras installed
        raise ImportError("English lemmas need simplemma: pip install 'simeval[train]'") from exc
    return simplemma.lemmatize(word, lang="en").lower()


def normalizer(lang: str, lemmatize: bool) -> Callable[[str], str]:
    """The function applied to every token: lowercase and ё→е, then the lemma if asked."""
    if not lemmatize:
        return normalize
    return ru_lemma if lang == "ru" else lambda w: normalize(en_lemma(normalize(w)))


def token_sentences(text: str, lang: str, lemmatize: bool = False) -> Iterator[list[str]]:
    """Normalized token lists, one per sentence, skipping empty ones."""
    norm = normalizer(lang, lemmatize)
    for s in sentences(text, lang):
        toks = [norm(w) for w in words(s, lang)]
        if toks:
            yield toks
