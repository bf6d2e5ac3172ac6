"""Chinese tokens re-cut against a dictionary's headwords (``segment=headwords`` of the
``dictionary`` ranker).

jieba's own word list decides where a Chinese text is cut, and many of its words are not
headwords of the bilingual dictionary (一年 and 重新 are not in MUSE and CC-CEDICT, their
characters are), or it cuts a headword into pieces (他 | 的, where MUSE has 他的, his).
:func:`resegment` repairs both against ``known``, the headwords, in two passes over jieba's
tokens:

1. **split**: a Chinese token of two or more characters that is not known is cut by forward
   longest match (at each position the longest known string of at most ``MAX_WORD``
   characters, else one character); the pieces replace it only if every piece is known,
   otherwise the token stays whole.
2. **merge**: from left to right, the longest run of at most ``MAX_RUN`` adjacent Chinese
   tokens whose concatenation is known (and is not already one token) becomes one token.

Tokens with no Chinese character (numbers, Latin words) are never cut or joined.
"""

from __future__ import annotations

from collections.abc import Container, Sequence

from simeval.text.multilingual import is_cjk

MAX_WORD = 6
MAX_RUN = 4


def _longest_match(token: str, known: Container[str]) -> list[str]:
    """``token`` cut by forward longest match over ``known`` (unknown characters alone)."""
    out: list[str] = []
    i = 0
    while i < len(token):
        size = next(
            (n for n in range(min(MAX_WORD, len(token) - i), 1, -1) if token[i : i + n] in known),
            1,
        )
        out.append(token[i : i + size])
        i += size
    return out


def resegment(tokens: Sequence[str], known: Container[str]) -> list[str]:
    """jieba's ``tokens`` split and merged against the headwords ``known`` (module
    docstring)."""
    split: list[str] = []
    for tok in tokens:
        if len(tok) < 2 or tok in known or not is_cjk(tok):
            split.append(tok)
            continue
        pieces = _longest_match(tok, known)
        split.extend(pieces if all(p in known for p in pieces) else [tok])
    out: list[str] = []
    i = 0
    while i < len(split):
        size = 1
        for n in range(min(MAX_RUN, len(split) - i), 1, -1):
            run = split[i : i + n]
            if all(is_cjk(t) for t in run) and "".join(run) in known:
                size = n
                break
        out.append("".join(split[i : i + size]))
        i += size
    return out
