"""gensim-backed loading (optional extra ``vectors``)."""

from __future__ import annotations

import mmap
import struct
from pathlib import Path
from typing import Any

from simeval.errors import InputError


def pickle_refused(path: Path) -> InputError:
    """The refusal of ``format=gensim`` without ``allow_pickle=true``."""
    return InputError(
        path,
        None,
        f"format=gensim loads a Python pickle, which can run code: pass allow_pickle=true if "
        f"you trust {path} (or save the vectors with gensim's save_word2vec_format)",
    )


def load_keyed(path: Path, fmt: str, allow_pickle: bool = False) -> Any:
    """KeyedVectors from a gensim file or a fastText ``.bin`` model (with subword vectors).
    A gensim file is a pickle, which can run code: it is loaded only with ``allow_pickle``."""
    if fmt != "fasttext-bin" and not allow_pickle:
        raise pickle_refused(path)
    try:
        from gensim.models import KeyedVectors
        from gensim.models.fasttext import load_facebook_vectors
    except ImportError as exc:  # pragma: no cover - depends on the extras installed
        raise ImportError(f"format {fmt} needs gensim: pip install 'simeval[vectors]'") from exc
    try:
        if fmt == "fasttext-bin":
            check_fasttext_bin(path)
            return load_facebook_vectors(str(path))
        return KeyedVectors.load(str(path), mmap="r")
    except (OSError, ValueError, EOFError, struct.error) as exc:  # a cut or damaged file
        raise InputError(path, None, f"cannot load as {fmt}: {exc}") from None


FASTTEXT_MAGIC = 793712314
VOCAB_ENTRY_TAIL = 9  # after a word's NUL: its count (int64) and entry type (int8)


def check_fasttext_bin(path: Path) -> None:
    """Walk a fastText ``.bin`` model's layout (fastText's ``FastText::saveModel``, as gensim
    reads it: magic and version, 12 int32 and a double of arguments, the dictionary, then the
    input and output matrices) and refuse one that gensim would not load cleanly: cut short
    (gensim loops forever on a cut vocabulary and fails an assertion on a cut matrix), longer
    than its layout, supervised (labels) or quantized (``.ftz``). Reads no vector; the
    dictionary is scanned for its NULs only, so a 2M-word model costs about a second."""

    def refuse(what: str) -> InputError:
        return InputError(path, None, f"cannot load as fasttext-bin: {what}")

    try:
        size = path.stat().st_size
        with open(path, "rb") as f:
            if size < 8:
                raise refuse(f"cut short: {size} bytes, fewer than its header")
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as view:
                end = _walk_fasttext(view, size, refuse)
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror or exc}") from None
    if end != size:
        raise refuse(f"{size - end:,} byte(s) follow the end of the model (a damaged file?)")


def _walk_fasttext(view: Any, size: int, refuse: Any) -> int:
    """Where the model in ``view`` (``size`` bytes) ends, by its own counts (see
    :func:`check_fasttext_bin`)."""
    pos = 0

    def take(fmt: str, part: str) -> tuple[Any, ...]:
        nonlocal pos
        n = struct.calcsize(fmt)
        if pos + n > size:
            raise refuse(f"cut short in its {part} (the file ends at byte {size:,})")
        values = struct.unpack_from(fmt, view, pos)
        pos += n
        return values

    magic, _version = take("<2i", "header")
    if magic != FASTTEXT_MAGIC:
        raise refuse("not a fastText .bin model (no fastText magic number)")
    take("<12id", "header")
    words, _, labels = take("<3i", "dictionary")
    _tokens, pruned = take("<2q", "dictionary")
    if labels > 0:
        raise refuse("a supervised model (it has labels), not word vectors")
    if words < 0:
        raise refuse(f"a dictionary of {words} words (a damaged file?)")
    for i in range(words):
        nul = view.find(b"\0", pos)
        if nul < 0 or nul + 1 + VOCAB_ENTRY_TAIL > size:
            raise refuse(f"cut short in word {i + 1:,} of its {words:,}-word dictionary")
        pos = nul + 1 + VOCAB_ENTRY_TAIL
    pos += 8 * max(pruned, 0)  # the pruned n-grams' index (fastText -cutoff)
    if pos > size:
        raise refuse("cut short in its dictionary's pruning index")
    for part in ("input matrix", "output matrix"):
        if take("<?", part)[0]:
            raise refuse(f"a quantized model (.ftz): its {part} is not plain numbers")
        rows, dim = take("<2q", part)
        if rows < 0 or dim < 0:
            raise refuse(f"its {part} has {rows} × {dim} values (a damaged file?)")
        if pos + 4 * rows * dim > size:
            raise refuse(
                f"cut short in its {part}: {rows:,} × {dim:,} float32 values need "
                f"{4 * rows * dim:,} bytes, {size - pos:,} are left"
            )
        pos += 4 * rows * dim
    return pos
