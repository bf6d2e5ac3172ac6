"""Bilingual dictionaries: (X word, English word) pairs from MUSE and XLING files.

Formats:

- ``hunalign``: ``TARGET @ SOURCE`` per line (the MUSE dictionaries as reformatted for
  hunalign: ``dict/ru-en.dict`` holds ``what @ что``, i.e. MUSE's ru-en pair (что, what));
- ``tsv``: ``source<TAB>target`` per line (MUSE's own files, the XLING BLI sets).

:func:`xling_dictionary` assembles the dictionaries staged in ``xling/`` for one language:

- ``full``: MUSE X→en and en→X, plus XLING train-5k and test-2k (all known translations;
  for translating documents);
- ``train``: XLING ``yacle.train.freq.5k`` (for zh, which XLING lacks: the first 5,000
  source words of MUSE zh-en, which MUSE lists by frequency; MUSE's own 0-5000 split files
  are not staged) — for learning a mapping;
- ``test``: XLING ``yacle.test.freq.2k`` (disjoint from train by construction; none for zh).
"""

from __future__ import annotations

from pathlib import Path

from simeval.data.store import DataStore
from simeval.data.textio import iter_lines
from simeval.errors import InputError

Pairs = list[tuple[str, str]]


def read_dictionary(path: str | Path, fmt: str, source_first: bool = True) -> Pairs:
    """(source, target) pairs of a dictionary file; ``source_first=False`` swaps them."""
    sep = " @ " if fmt == "hunalign" else "\t"
    out: Pairs = []
    for n, line in iter_lines(path):
        if not line.strip():
            continue
        parts = line.split(sep)
        if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
            raise InputError(path, n, f"expected two words separated by {sep!r}")
        a, b = parts[0].strip(), parts[1].strip()
        if fmt == "hunalign":
            a, b = b, a  # the file says TARGET @ SOURCE
        out.append((a, b) if source_first else (b, a))
    return out


def _xling_bli(lang: str, part: str) -> str:
    name = "train.freq.5k" if part == "train" else "test.freq.2k"
    return f"xling/xling_bli/bli_datasets/en-{lang}/yacle.{name}.en-{lang}.tsv"


def xling_dictionary(lang: str, part: str = "full", store: DataStore | None = None) -> Pairs:
    """(X word, English word) pairs of ``part`` (full/train/test) (module docstring)."""
    store = store or DataStore.from_env()
    muse = "xling/muse_dicts_hunalign/dict/"
    files: list[tuple[str, str, bool]] = []  # path, format, X word first
    if part == "full":
        files += [(f"{muse}{lang}-en.dict", "hunalign", True)]
        files += [(f"{muse}en-{lang}.dict", "hunalign", False)]
        if lang != "zh":
            files += [(_xling_bli(lang, p), "tsv", False) for p in ("train", "test")]
    elif part in ("train", "test") and lang != "zh":
        files = [(_xling_bli(lang, part), "tsv", False)]
    elif part == "train":
        files = [(f"{muse}zh-en.dict", "hunalign", True)]
    else:
        raise InputError(None, None, f"no {part} dictionary for {lang}")
    pairs: Pairs = []
    for path, fmt, first in files:
        pairs += read_dictionary(store.path(path), fmt, first)
    if lang == "zh" and part == "train":
        sources = list(dict.fromkeys(x for x, _ in pairs))[:5000]
        keep = set(sources)
        pairs = [p for p in pairs if p[0] in keep]
    return list(dict.fromkeys(pairs))
