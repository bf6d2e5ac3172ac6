"""Word-vector files as similarity measures: cosine of word vectors, averaged vectors for texts.

Formats: ``word2vec`` text (a ``count dim`` header line; fastText ``.vec`` is the same),
``glove`` (text, no header), ``word2vec-bin`` (binary), ``fasttext-bin`` (a fastText model:
subword vectors for unknown words, via gensim), ``gensim`` (KeyedVectors saved by gensim: a
pickle, so loading one runs whatever code it holds; only when asked for by name, with
``allow_pickle=true`` naming the risk, as numpy's ``allow_pickle``) and ``model``
(a folder written by ``simeval train``: vocab.txt with vectors.npy, memory-mapped, or a sparse
vectors.npz, both read without pickle; its model.bin gives fastText subwords). ``auto``
decides from the file's first bytes (a folder is a model) and never picks ``gensim``: a pickle,
a compressed file or one that is not text is refused (docs/loading-files.md).

Fast path: evaluation first collects every word the requested benchmarks need, then streams the
file once and keeps only those rows (and rows matching their normalized forms) — it never builds
the full matrix, so a 1,000,000-word file costs one sequential read and a few MB of memory.
The kept rows' numbers are read by pyarrow when it is installed (the ``vectors`` extra), by
numpy otherwise: the same float32 vectors bit for bit, pyarrow's in a third of the time.

Out-of-vocabulary policy (``oov``):

- ``zero``: an unknown word's pairs score 0 — RUSSE 2015's official treatment;
- ``skip``: those pairs are left out and only covered pairs are evaluated;
- ``backoff``: try the word as is, lowercased, with ё→е, then its lemma (pymorphy3 for
  Russian), each also against the file's words normalized the same way; then fastText
  subwords when the model has them; pairs still unknown are then left out (``fallback=skip``,
  the default) or scored 0 (``fallback=zero``, RUSSE's official rule after the look-ups).

Coverage (pairs scored / gold) is reported with every result.
"""

from __future__ import annotations

import functools
import mmap
import os
import re
import stat
import struct
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from simeval.data.textio import NUMBER, shown
from simeval.errors import InputError
from simeval.measures._gensim import FASTTEXT_MAGIC, pickle_refused
from simeval.measures.analogy import METHODS, solve_analogies
from simeval.measures.base import Measure, Pairs
from simeval.measures.spec import Params
from simeval.text.normalize import lemma, normalize, tokens

FORMATS = ("auto", "word2vec", "glove", "word2vec-bin", "fasttext-bin", "gensim", "model")
OOV_POLICIES = ("zero", "skip", "backoff")
CHUNK = 1 << 22  # bytes of lines a scan compares at once (and keeps mapped)
PARSED_AT_ONCE = 1024  # kept rows whose numbers one parser call reads (bounds its memory)
# numbers in a call from which pyarrow reads them (_arrow_numbers): for fewer, importing it
# costs more than it saves
ARROW_FROM = 1 << 15
KEY = 16  # first bytes of a line that its numpy key is made of
# WORD_MASKS[n]: the two 64-bit halves of a key that keep a word's first n bytes
WORD_MASKS = np.tril(np.full((KEY + 1, KEY), 255, np.uint8), -1).view("<u8")


# first bytes of files that are not vectors in a format read here (compressed, archives)
COMPRESSED = {
    b"\x1f\x8b": "gzip",
    b"BZh": "bzip2",
    b"\xfd7zXZ\x00": "xz",
    b"\x28\xb5\x2f\xfd": "zstd",
    b"PK\x03\x04": "zip",
}


def refuse_unreadable(path: Path, head: bytes) -> None:
    """Refuse a file whose first bytes say it is compressed or a pickle (gensim's format):
    neither is read unless asked for, and a pickle would run code."""
    for magic, kind in COMPRESSED.items():
        if head.startswith(magic):
            raise InputError(
                path, None, f"{kind}-compressed: decompress it first (vectors are read as is)"
            )
    if head.startswith(b"\x80"):
        raise InputError(
            path,
            None,
            "a Python pickle (gensim's own .model/.kv format?): simeval does not unpickle it "
            "unless asked, since loading a pickle runs the code it holds; save the vectors with "
            "gensim's save_word2vec_format (text or binary=True), or, for a file you trust, "
            "say format=gensim,allow_pickle=true",
        )


def is_fasttext(head: bytes) -> bool:
    """Whether a file's first bytes are fastText's magic number (a ``.bin`` model)."""
    return len(head) >= 4 and struct.unpack("<i", head[:4])[0] == FASTTEXT_MAGIC


def detect_format(path: Path) -> str:
    """Guess a vector file's format from its first bytes; never ``gensim`` (a pickle)."""
    if path.is_dir():
        return "model"
    with open(path, "rb") as f:
        head = f.read(4096)
    if is_fasttext(head):
        return "fasttext-bin"
    refuse_unreadable(path, head)
    first, _, rest = head.partition(b"\n")
    fields = first.split()
    if len(fields) == 2 and all(f.isdigit() for f in fields):
        # binary word2vec: the first vector's raw float bytes follow the first word
        line = rest.split(b"\n", 1)[0]
        try:
            line.decode("utf-8")
            parts = line.split()
            [float(x) for x in parts[1:]]
            # a word and numbers as text is text, even when their count is not the header's
            # (the text reader then says which line disagrees)
            return "word2vec" if len(parts) != 1 else "word2vec-bin"
        except (UnicodeDecodeError, ValueError):
            return "word2vec-bin"
    return "glove"


class Wanted:
    """The words a run needs: exact forms (UTF-8 bytes, compared without decoding) and, for
    ``oov=backoff``, normalized forms that a file word may match after normalization."""

    def __init__(self, exact: set[bytes], normed: set[str] | None) -> None:
        self.exact = exact
        self.normed = normed

    def match(self, word: bytes) -> tuple[bool, str | None]:
        """Whether to keep a file word, and its normalized key when that is what matched."""
        key = None
        if self.normed is not None:
            key = normalize(word.decode("utf-8", errors="replace"))
            if key not in self.normed:
                key = None
        return word in self.exact or key is not None, key


class Leading(Wanted):
    """The first ``limit`` distinct words of a file, in its order, whatever they are: the
    candidates of an analogy question (gensim's ``restrict_vocab``). A later line repeating
    a kept word is matched too, so the vocabulary lists it as a duplicate (the first vector
    stays)."""

    def __init__(self, limit: int) -> None:
        super().__init__(set(), set())  # a normed set: every line is a candidate
        self.limit = limit
        self.kept: set[bytes] = set()

    def match(self, word: bytes) -> tuple[bool, str | None]:
        if word in self.kept:
            return True, None
        if len(self.kept) < self.limit:
            self.kept.add(word)
            return True, None
        return False, None


class Vocabulary:
    """The kept rows of a vector file: exact words and their normalized forms. A word found
    twice keeps its first vector, as gensim's word2vec reader does; each later occurrence of a
    kept word is listed in :attr:`duplicates` (word, line of the first, line of this one)."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.rows: list[np.ndarray] = []
        self.exact: dict[str, int] = {}
        self.normed: dict[str, int] = {}
        self.file_words = 0
        self.lines: dict[str, int | None] = {}
        self.duplicates: list[tuple[str, int | None, int | None]] = []

    def add(
        self, word: str, vector: np.ndarray, normed_key: str | None, line: int | None = None
    ) -> None:
        if word in self.lines:
            self.duplicates.append((word, self.lines[word], line))
        else:
            self.lines[word] = line
        if word in self.exact and normed_key is None:
            return
        i = len(self.rows)
        self.rows.append(vector)
        self.exact.setdefault(word, i)
        if normed_key is not None:
            self.normed.setdefault(normed_key, i)  # files list frequent words first

    def matrix(self) -> np.ndarray:
        """Rows scaled to unit length (zero rows stay zero)."""
        m = np.vstack(self.rows).astype(np.float32) if self.rows else np.zeros((0, self.dim))
        return normalize_rows(m)


def _parse_row(path: Path, number: int, values: bytes | list[bytes], dim: int) -> np.ndarray:
    parts = values.split() if isinstance(values, bytes) else values
    if len(parts) != dim:
        raise InputError(path, number, f"expected {dim} numbers after the word, got {len(parts)}")
    bad = next((p for p in parts if not _NUMBER.fullmatch(p) and not _is_nan_or_inf(p)), None)
    if bad is not None:  # numpy reads 1_0 as 10, as float() does; the readers refuse it
        text = shown(bad.decode("utf-8", errors="replace"))
        raise InputError(path, number, f"expected numbers after the word, got {text}")
    try:
        with np.errstate(over="ignore"):
            row = np.array(parts, dtype=np.float32)
    except ValueError:
        raise InputError(path, number, "expected numbers after the word") from None
    check_finite(path, number, row)
    return row


_NUMBER = re.compile(NUMBER.pattern.encode())  # the readers' grammar, on a row's bytes


def _is_nan_or_inf(field: bytes) -> bool:
    """Whether ``field`` spells NaN or infinity (refused by :func:`check_finite`, which says
    so: "not finite" tells more than "not a number")."""
    return field.lower().lstrip(b"+-") in (b"nan", b"inf", b"infinity")


def check_finite(path: Path, line: int | None, row: np.ndarray, what: str = "") -> None:
    """Refuse a vector holding NaN or ±inf (or a number too large for float32)."""
    if not np.isfinite(row).all():
        bad = row[~np.isfinite(row)][0]
        raise InputError(
            path, line, f"{what}expected finite numbers, got {bad} (NaN, inf or beyond float32)"
        )


def _whole_file(f: BinaryIO) -> bytes | mmap.mmap:
    """A file's bytes: memory-mapped when it is a regular file (no copy; the pages a scan has
    passed are handed back), read whole otherwise (a pipe)."""
    info = os.fstat(f.fileno())
    if stat.S_ISREG(info.st_mode) and info.st_size:
        data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        if hasattr(mmap, "MADV_SEQUENTIAL"):
            data.madvise(mmap.MADV_SEQUENTIAL)
        return data
    return f.read()


def _line_ends(find: Callable[..., int], pos: int, stop: int, size: int) -> list[int]:
    """Where the lines starting at ``pos`` end (their newline, or ``size`` for a last line
    without one): those ending before ``stop``, else the first one however long."""
    ends: list[int] = []
    add = ends.append
    while (end := find(b"\n", pos, stop)) >= 0:  # the hot loop: one memchr per line
        add(end)
        pos = end + 1
    if pos < size and (not ends or stop == size):
        end = find(b"\n", pos)
        add(end if end >= 0 else size)
    return ends


def line_keys(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """A 64-bit key of each line's word (the bytes before its first space, or the whole line)
    from its first ``KEY`` bytes, zero from the word's end on: lines holding the same word
    get the same key; a key shared by different words (the same first ``KEY`` bytes, or a
    collision of the hash) only makes a line a candidate, which is then checked."""
    window = np.empty((len(starts), KEY), np.uint8)
    tail = max(len(data) - KEY, 0)  # lines starting after it are read from a padded copy
    inside = int(np.searchsorted(starts, tail, side="right")) if len(data) >= KEY else 0
    window[:inside] = sliding_window_view(data, KEY)[starts[:inside]] if inside else 0
    if inside < len(starts):
        padded = np.zeros(2 * KEY, np.uint8)
        padded[: len(data) - tail] = data[tail:]
        window[inside:] = sliding_window_view(padded, KEY)[starts[inside:] - tail]
    space = window == 32
    first = space.argmax(axis=1)
    length = np.where(space[np.arange(len(starts)), first], first, KEY)
    halves = window.view("<u8") & WORD_MASKS[np.minimum(length, ends - starts)]
    return halves[:, 0] * np.uint64(0x9E3779B97F4A7C15) + halves[:, 1]


def wanted_keys(words: Iterable[bytes]) -> np.ndarray:
    """The sorted keys (:func:`line_keys`) of lines holding each of ``words``."""
    words = list(words)
    data = np.frombuffer(b"".join(w + b"\n" for w in words) or b"\n", np.uint8)
    lengths = np.array([len(w) for w in words], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths + 1)[:-1]]).astype(np.int64)
    return np.sort(line_keys(data, starts, starts + lengths)) if words else lengths


def _parse_rows(path: Path, rows: list[tuple[int, bytes]], dim: int) -> list[np.ndarray]:
    """The vectors of kept rows (line number, the text after the word), read
    :data:`PARSED_AT_ONCE` rows at a time (:func:`_parse_joined`)."""
    step = PARSED_AT_ONCE
    return [
        v
        for at in range(0, len(rows), step)
        for v in _parse_joined(path, rows[at : at + step], dim)
    ]


def _parse_joined(path: Path, rows: list[tuple[int, bytes]], dim: int) -> list[np.ndarray]:
    """The vectors of kept rows: their numbers joined and read at once, by pyarrow when it is
    installed and they are many (:func:`_arrow_numbers`), else by numpy's C parser; when a
    row has the wrong count, or any number does not read as a finite float32, each row is
    read alone, which names the line that fails."""
    text = b"\n".join(rest for _, rest in rows) + b"\n"
    byte = np.frombuffer(text, np.uint8)
    spaces = (byte == 32) | ((byte >= 9) & (byte <= 13))  # what bytes.split() splits at
    first = ~spaces
    first[1:] &= spaces[:-1]  # a number's first byte: not a space, after a space or the start
    starts = np.flatnonzero(first)
    bounds = np.cumsum([0] + [len(rest) + 1 for _, rest in rows])
    counts = np.diff(np.searchsorted(starts, bounds))
    if (counts == dim).all():
        values = _arrow_numbers(text, spaces, starts) if len(starts) >= ARROW_FROM else None
        if values is None:
            try:
                with np.errstate(over="ignore"):
                    values = np.fromstring(text, dtype=np.float32, sep=" ")
            except ValueError:
                values = np.zeros(0, dtype=np.float32)
        if values.size == len(rows) * dim and np.isfinite(values).all():
            return list(values.reshape(len(rows), dim))
    return [_parse_row(path, number, rest, dim) for number, rest in rows]


SPACES = b" \t\n\v\f\r"  # the bytes bytes.split() splits at, and numpy's parser skips
DECIMAL = b"0123456789.+-eE" + SPACES  # all the bytes a text _arrow_numbers reads may hold


@functools.cache
def _arrow() -> tuple[Any, Any] | None:
    """pyarrow and its compute module, or None when pyarrow is not installed (the ``vectors``
    extra has it); imported by the first large batch of kept rows, not with this module."""
    try:
        import pyarrow
        import pyarrow.compute
    except ImportError:
        return None
    return pyarrow, pyarrow.compute


def _arrow_numbers(text: bytes, spaces: np.ndarray, starts: np.ndarray) -> np.ndarray | None:
    """The float32 numbers of a joined text (which of its bytes are spaces, where each number
    starts) read by pyarrow, or None for numpy to read them: pyarrow is missing, the text
    holds a byte no decimal number has (``nan``, ``1_0``...), or a number pyarrow refuses.

    Each number is read as the nearest float64 (pyarrow's parser, like numpy's, rounds
    correctly), then rounded to float32 by numpy: the two roundings numpy's float32 parser
    makes, so the vectors are bit for bit numpy's, in about a third of its time."""
    arrow = _arrow()
    if arrow is None or text.translate(None, DECIMAL):
        return None
    pa, pc = arrow
    ends = ~spaces
    ends[:-1] &= spaces[1:]  # a number's last byte (the text ends with a line end)
    offsets = np.zeros(len(starts) + 1, dtype=np.int64)
    np.cumsum(np.flatnonzero(ends) + 1 - starts, out=offsets[1:])
    digits = text.translate(None, SPACES)  # the numbers end to end, from the offsets on
    buffers = [None, pa.py_buffer(offsets), pa.py_buffer(digits)]
    # text: the bytes checked above are ASCII
    numbers = pa.Array.from_buffers(pa.large_string(), len(starts), buffers)
    try:
        doubles = pc.cast(numbers, pa.float64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):  # a number, or a pyarrow, it can't
        return None
    # its values buffer as is (to_numpy would import pandas, a quarter of a second)
    values = np.frombuffer(doubles.buffers()[1], np.float64, len(doubles), doubles.offset)
    with np.errstate(over="ignore"):  # beyond float32: inf, refused by the caller
        return values.astype(np.float32)


def scan_text(
    path: Path,
    has_header: bool,
    wanted: Wanted,
    progress: Callable[[int], None] | None = None,
) -> Vocabulary:
    """One pass over a text vector file keeping the rows ``wanted`` matches.

    The file is memory-mapped; the hot loop finds each line's end with one ``find`` (memchr);
    the lines' words are then compared a batch at a time by a numpy key of their first bytes
    (:func:`line_keys`), and only the candidates are sliced and looked up, only the kept rows
    parsed. With ``oov=backoff`` every word is normalized, so every line is a candidate."""
    with open(path, "rb") as f:
        data = _whole_file(f)
    size = len(data)
    if not size:
        raise InputError(path, None, "empty vector file")
    find = data.find
    end = find(b"\n")
    line = data[: end if end >= 0 else size]
    number, pos = 1, 0
    if has_header:  # the first line: a header, or (GloVe) the first row tells dim
        count, dim = _header(path, line)
        pos, number = (end + 1 if end >= 0 else size), 2
    else:
        dim = len(line.partition(b" ")[2].split())
        if not dim:
            raise InputError(path, number, "expected a word followed by numbers")
    vocab = Vocabulary(dim)
    # the first row is always read, whether or not its word is wanted: a junk file or a
    # header whose dimension is not the rows' fails here, not with 0 coverage
    first_end = find(b"\n", pos) if pos < size else -1
    if pos < size and (has_header or first_end != pos):
        row = data[pos : first_end if first_end >= 0 else size]
        _parse_row(path, number, row.partition(b" ")[2], dim)
    plain = wanted.normed is None
    keys = wanted_keys(wanted.exact) if plain else None
    array = np.frombuffer(data, np.uint8)
    handed_back = 0
    # kept rows not parsed yet, parsed PARSED_AT_ONCE at a time whatever chunks they come
    # from (a parser is fast on many rows at once)
    kept: list[tuple[int, bytes]] = []  # (line number, text after the word)
    words: list[tuple[bytes, str | None]] = []  # (word, normalized key) of each
    if progress and pos:
        progress(pos)  # the header line
    while pos < size:
        stop = min(pos + CHUNK, size)
        ends = np.array(_line_ends(find, pos, stop, size), dtype=np.int64)
        starts = np.concatenate([[pos], ends[:-1] + 1])
        lines = range(len(ends))
        if keys is not None:
            candidate = line_keys(array, starts, ends)
            found = np.searchsorted(keys, candidate) % max(len(keys), 1)
            lines = np.flatnonzero(keys[found] == candidate).tolist() if len(keys) else []
        for i in lines:
            start, end = int(starts[i]), int(ends[i])
            space = find(b" ", start, end)
            word = data[start : space if space >= 0 else end]
            keep, key = (word in wanted.exact, None) if plain else wanted.match(word)
            if keep:
                kept.append((number + i, data[space + 1 : end] if space >= 0 else b""))
                words.append((word, key))
        if len(kept) >= PARSED_AT_ONCE:
            _add_rows(path, vocab, kept, words)
            kept, words = [], []
        vocab.file_words += len(ends)
        number += len(ends)
        done = int(ends[-1]) + 1
        if progress:
            progress(min(done, size) - pos)
        pos = done
        if isinstance(data, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED"):
            upto = pos - pos % mmap.PAGESIZE
            if upto > handed_back:  # pages already scanned: out of this process's memory
                data.madvise(mmap.MADV_DONTNEED, handed_back, upto - handed_back)
                handed_back = upto
    _add_rows(path, vocab, kept, words)
    if has_header and vocab.file_words != count:
        raise InputError(
            path, 1, f"the header says {count} words, but {vocab.file_words} rows follow it"
        )
    return vocab


def _add_rows(
    path: Path,
    vocab: Vocabulary,
    kept: list[tuple[int, bytes]],
    words: list[tuple[bytes, str | None]],
) -> None:
    """Parse kept rows (line number, the text after the word) and add them, with their
    words (the word, its normalized key), to ``vocab``."""
    rows = _parse_rows(path, kept, vocab.dim)
    for (line_number, _), (word, key), row in zip(kept, words, rows, strict=True):
        text = word.decode("utf-8", errors="replace").rstrip("\r")
        vocab.add(text, row, key, line_number)


def _header(path: Path, line: bytes) -> tuple[int, int]:
    """The word count and dimension of a word2vec header line ``count dim``."""
    fields = line.split()
    if len(fields) != 2 or not all(f.isdigit() for f in fields):
        raise InputError(path, 1, "expected a header line 'count dimension'")
    count, dim = int(fields[0]), int(fields[1])
    if dim < 1:
        raise InputError(path, 1, "expected a dimension of at least 1 in the header")
    return count, dim


def scan_binary(
    path: Path,
    wanted: Wanted,
    progress: Callable[[int], None] | None = None,
) -> Vocabulary:
    """One pass over a binary word2vec file (``count dim`` line, then per word: the word, a
    space, ``dim`` little-endian float32 values, an optional newline)."""
    with open(path, "rb") as f:
        count, dim = _header(path, f.readline())
        width = 4 * dim
        vocab = Vocabulary(dim)
        buf, pos = b"", 0
        for i in range(count):
            if len(buf) - pos < width + 1024:
                more = f.read(CHUNK)
                if progress:
                    progress(len(more))
                buf, pos = buf[pos:] + more, 0
            while pos < len(buf) and buf[pos] in b"\n\r":
                pos += 1
            space = buf.find(b" ", pos)
            if space < 0 or len(buf) - space - 1 < width:
                raise InputError(path, None, f"truncated at word {i + 1} of {count}")
            word = buf[pos:space]
            pos = space + 1 + width
            vocab.file_words += 1
            keep, normed = wanted.match(word)
            if keep:
                vector = np.frombuffer(buf, dtype="<f4", count=dim, offset=space + 1).copy()
                check_finite(path, None, vector, f"word {i + 1} of {count}: ")
                vocab.add(word.decode("utf-8", errors="replace"), vector, normed)
        if (buf[pos:] + f.read(64)).strip():
            raise InputError(path, None, f"the header says {count} words, but more data follows")
    return vocab


def pick_rows(
    path: Path, words: list[str], row: Callable[[int], np.ndarray], dim: int, wanted: Wanted
) -> Vocabulary:
    """The wanted rows of an in-memory (or memory-mapped) vocabulary; ``path`` is the file
    whose line i + 1 holds word i."""
    vocab = Vocabulary(dim)
    vocab.file_words = len(words)
    for i, word in enumerate(words):
        keep, normed = wanted.match(word.encode("utf-8"))
        if keep:
            vector = np.asarray(row(i), dtype=np.float32).ravel()
            check_finite(path, i + 1, vector, f"the vector of {word!r}: ")
            vocab.add(word, vector, normed, i + 1)
    return vocab


def _from_keyed(path: Path, kv: Any, wanted: Wanted) -> Vocabulary:
    words = list(kv.index_to_key)
    return pick_rows(path, words, lambda i: kv.vectors[i], kv.vector_size, wanted)


def _ordinary(norm: Any) -> Any:
    """Whether a float32 norm is free of overflow and of underflow's lost digits."""
    return (norm > 2.0**-50) & (norm < 2.0**50)


def unit_vector(v: np.ndarray) -> np.ndarray:
    """``v / ‖v‖`` (zero stays zero); an over- or underflowing norm as :func:`normalize_rows`."""
    with np.errstate(over="ignore", under="ignore"):
        n = np.linalg.norm(v)
    if _ordinary(n):
        return v / n
    return normalize_rows(np.asarray(v)[None, :])[0]


def normalize_rows(m: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero).

    A row whose float32 norm overflows (entries near 1e20) or loses its digits to underflow
    (near 1e-30) is first multiplied by the power of two that brings its largest magnitude
    into [0.5, 1): exact, so it gets the unit vector, and the cosine, of float64 arithmetic.
    Other rows are divided by their norm directly (scaling them would give the same bits).
    """
    with np.errstate(over="ignore", under="ignore"):
        norms = np.linalg.norm(m, axis=1, keepdims=True)
    out = m / np.where(norms == 0, 1, norms)
    odd = np.flatnonzero(~_ordinary(norms[:, 0]))
    if len(odd):
        rows = m[odd]
        top = np.max(np.abs(rows), axis=1, keepdims=True, initial=0.0)
        rows = np.ldexp(rows, -np.frexp(top)[1]).astype(m.dtype, copy=False)
        scaled = np.linalg.norm(rows, axis=1, keepdims=True)
        out[odd] = rows / np.where(scaled == 0, 1, scaled)
    return out


def read_model_folder(path: Path) -> tuple[list[str], Any]:
    """The words and rows of a ``simeval train`` model folder: ``vectors.npy`` memory-mapped,
    or ``vectors.npz`` as a sparse CSR matrix; one word of ``vocab.txt`` per row."""
    vocab_file = path / "vocab.txt"
    if not vocab_file.is_file():
        raise InputError(path, None, "not a model folder: no vocab.txt")
    words = vocab_file.read_text(encoding="utf-8").split("\n")[:-1]
    dense, packed = path / "vectors.npy", path / "vectors.npz"
    try:
        if dense.is_file():
            matrix: Any = np.load(dense, mmap_mode="r", allow_pickle=False)
        elif packed.is_file():
            from scipy import sparse

            matrix = sparse.load_npz(packed).tocsr()  # scipy reads it with allow_pickle=False
        else:
            raise InputError(path, None, "model folder without vectors.npy or vectors.npz")
    except (ValueError, OSError, KeyError) as exc:
        raise InputError(
            dense if dense.is_file() else packed,
            None,
            f"expected a numeric matrix saved by numpy/scipy, without pickled objects ({exc})",
        ) from None
    if matrix.ndim != 2 or matrix.dtype.kind not in "fiu":
        raise InputError(
            path, None, f"expected a 2-d numeric matrix, got {matrix.dtype} of shape {matrix.shape}"
        )
    if matrix.shape[0] != len(words):
        raise InputError(vocab_file, None, f"{len(words)} words for {matrix.shape[0]} vectors")
    return words, matrix


def load_model_folder(path: Path, wanted: Wanted) -> Vocabulary:
    """The wanted rows of a ``simeval train`` model folder."""
    words, matrix = read_model_folder(path)
    vocab_file = path / "vocab.txt"
    if hasattr(matrix, "toarray"):
        return pick_rows(vocab_file, words, lambda i: matrix[i].toarray(), matrix.shape[1], wanted)
    return pick_rows(vocab_file, words, lambda i: matrix[i], matrix.shape[1], wanted)


class WordVectors(Measure):
    """``vectors:path=FILE,format=auto,oov=zero,fallback=skip``: cosine of word vectors;
    texts are the mean of their words' vectors (``sif=true`` weights them a/(a + p(w)) with
    word frequencies from the ``wordfreq`` package, a = 1e-3, as in Arora et al. 2017, without
    removing the common component). Analogy questions are answered by 3CosAdd or, with
    ``analogy=3cosmul``, 3CosMul over the file's first words (:meth:`answer_analogies`)."""

    name = "vectors"

    def __init__(self, spec: str, params: dict[str, Any]) -> None:
        super().__init__(spec, params)
        self.path = Path(params["path"])
        self.missing = "skip" if params["oov"] == "skip" else "zero"
        if params["oov"] == "backoff":
            self.missing = params["fallback"]
        self.backoff = params["oov"] == "backoff"
        self.vocab: Vocabulary | None = None
        self.unit = np.zeros((0, 0), dtype=np.float32)
        self.subword: Any = None  # gensim FastTextKeyedVectors for fasttext-bin
        self.found: dict[str, int] = {}
        self.words_seen: set[str] = set()
        self.progress: Callable[[int, int], None] | None = None
        self.candidates = 0  # words an analogy question's answer was searched among
        self.analogy_duplicates: list[tuple[str, int | None, int | None]] = []

    # -- loading --

    def forms(self, word: str) -> list[str]:
        """Look-up forms of a word in order: as is, then (backoff) lower, ё→е, lemma."""
        if not self.backoff:
            return [word]
        out = [word]
        for f in (word.lower(), normalize(word), lemma(word)):
            if f not in out:
                out.append(f)
        return out

    def prepare(self, words: Iterable[str], texts: Iterable[str]) -> None:
        needed = set(words)
        for t in texts:
            needed.update(tokens(t))
        needed -= self.words_seen
        if not needed and self.vocab is not None:
            return
        all_forms = {f for w in needed for f in self.forms(w)}
        wanted = Wanted(
            {f.encode("utf-8") for f in all_forms},
            {normalize(f) for f in all_forms} if self.backoff else None,
        )
        vocab = self._read(wanted)
        self._merge(vocab)
        for w in needed:
            self.words_seen.add(w)
            i = self._lookup(w)
            if i is not None:
                self.found[w] = i
        self.unit = self.vocab.matrix()  # once, after any subword rows were added

    def _read(self, wanted: Wanted) -> Vocabulary:
        """The wanted rows of the vector file, in its format."""
        fmt = self.params["format"]
        if fmt == "auto":
            fmt = detect_format(self.path)
            self.params["format_detected"] = fmt
        if not self.path.exists():
            raise InputError(self.path, None, "vector file not found")
        total = self.path.stat().st_size
        done = [0]

        def step(n: int) -> None:
            done[0] += n
            if self.progress:
                self.progress(min(done[0], total), total)

        if fmt in ("word2vec", "glove", "word2vec-bin", "fasttext-bin"):
            with open(self.path, "rb") as f:
                head = f.read(8)
            refuse_unreadable(self.path, head)
            if fmt == "fasttext-bin" and not is_fasttext(head):
                raise InputError(
                    self.path, None, "format=fasttext-bin, but not a fastText .bin model"
                )
        if fmt in ("word2vec", "glove"):
            vocab = scan_text(self.path, fmt == "word2vec", wanted, step)
        elif fmt == "word2vec-bin":
            vocab = scan_binary(self.path, wanted, step)
        elif fmt == "model":
            vocab = load_model_folder(self.path, wanted)
            if self.backoff and (self.path / "model.bin").is_file() and self.subword is None:
                from simeval.measures._gensim import load_keyed

                self.subword = load_keyed(self.path / "model.bin", "fasttext-bin")
        else:
            from simeval.measures._gensim import load_keyed

            kv = load_keyed(self.path, fmt, self.params.get("allow_pickle", False))
            if fmt == "fasttext-bin":
                self.subword = kv
            vocab = _from_keyed(self.path, kv, wanted)
        return vocab

    def _merge(self, vocab: Vocabulary) -> None:
        if self.vocab is None:
            self.vocab = vocab
        else:  # a later prepare() adds rows
            base = len(self.vocab.rows)
            self.vocab.rows.extend(vocab.rows)
            for w, i in vocab.exact.items():
                self.vocab.exact.setdefault(w, base + i)
            for w, i in vocab.normed.items():
                self.vocab.normed.setdefault(w, base + i)
            self.vocab.duplicates.extend(vocab.duplicates)

    def _lookup(self, word: str) -> int | None:
        assert self.vocab is not None
        for f in self.forms(word):
            if f in self.vocab.exact:
                return self.vocab.exact[f]
            if self.backoff and normalize(f) in self.vocab.normed:
                return self.vocab.normed[normalize(f)]
        if self.backoff and self.subword is not None:
            vector = np.asarray(self.subword.get_vector(normalize(word)), dtype=np.float32)
            if np.any(vector):
                self.vocab.rows.append(vector)
                return len(self.vocab.rows) - 1
        return None

    # -- scoring --

    def score_words(self, pairs: Pairs) -> np.ndarray:
        self.prepare({w for p in pairs for w in p}, [])
        ia = np.array([self.found.get(a, -1) for a, _ in pairs], dtype=np.int64)
        ib = np.array([self.found.get(b, -1) for _, b in pairs], dtype=np.int64)
        ok = (ia >= 0) & (ib >= 0)
        out = np.full(len(pairs), np.nan)
        if ok.any():
            cosines = np.einsum("ij,ij->i", self.unit[ia[ok]], self.unit[ib[ok]])
            out[ok] = np.clip(cosines, -1.0, 1.0)  # float32 rounding can pass 1 by 1e-7
        return out

    def answer_analogies(
        self,
        questions: list[tuple[str, str, str, str]],
        *,
        restrict_vocab: int,
        case_insensitive: bool,
        progress: Callable[[int, int], None] | None = None,
    ) -> list[str | None]:
        """The answer to each question ``(a, b, c, d)`` among the file's first
        ``restrict_vocab`` words, by the ``analogy`` method (:mod:`simeval.measures.analogy`);
        None for a question with a word outside them. One more pass over the file: the
        candidates are its leading rows, not the words asked."""
        vocab = self._read(Leading(restrict_vocab))
        words = list(vocab.exact)  # in row order: one word a row, none normalized
        matrix = np.vstack(vocab.rows) if vocab.rows else np.zeros((0, vocab.dim), np.float32)
        self.candidates = len(words)
        self.analogy_duplicates = vocab.duplicates
        return solve_analogies(
            words,
            matrix,
            questions,
            method=self.params["analogy"],
            case_insensitive=case_insensitive,
            progress=progress,
        )

    def _text_vector(self, text: str, weights: dict[str, float] | None) -> np.ndarray | None:
        rows = [(self.found[t], t) for t in tokens(text) if t in self.found]
        if not rows:
            return None
        w = np.array([weights[t] if weights else 1.0 for _, t in rows], dtype=np.float32)
        return (self.unit[[i for i, _ in rows]] * w[:, None]).sum(axis=0)

    def score_texts(self, pairs: Pairs) -> np.ndarray:
        self.prepare([], [t for p in pairs for t in p])
        weights = self._sif_weights({t for p in pairs for s in p for t in tokens(s)})
        out = np.full(len(pairs), np.nan)
        for k, (a, b) in enumerate(pairs):
            va, vb = self._text_vector(a, weights), self._text_vector(b, weights)
            if va is None or vb is None:
                continue
            na, nb = np.linalg.norm(va), np.linalg.norm(vb)
            out[k] = float(va @ vb / (na * nb)) if na and nb else 0.0
        return out

    def _sif_weights(self, words: set[str]) -> dict[str, float] | None:
        if not self.params["sif"]:
            return None
        try:
            from wordfreq import word_frequency
        except ImportError as exc:  # pragma: no cover
            raise ImportError("sif=true needs wordfreq: pip install 'simeval[vectors]'") from exc
        lang = self.params["lang"]
        a = 1e-3
        return {w: a / (a + word_frequency(w.lower(), lang)) for w in words}

    def warnings(self) -> list[str]:
        """Words the run looked up that the file lacks, with what ``oov`` does with their
        pairs and how to change it; words the file holds more than once."""
        return [*self._unknown_words(), *self._repeated_words()]

    def _unknown_words(self) -> list[str]:
        unknown = sorted(self.words_seen - set(self.found))
        if not unknown:
            return []
        first = ", ".join(repr(w) for w in unknown[:3])
        policy = self.params["oov"]
        done = {
            "zero": "their pairs are scored 0 (oov=zero); oov=skip leaves them unscored, "
            "oov=backoff tries their lemmas and normal forms first",
            "skip": "their pairs are left unscored (oov=skip); oov=zero scores them 0, "
            "oov=backoff tries their lemmas and normal forms first",
            "backoff": "not even as a lemma or normal form (oov=backoff); their pairs are "
            f"{'left unscored' if self.missing == 'skip' else 'scored 0'} "
            f"(fallback={self.params['fallback']})",
        }[policy]
        return [
            f"{self.path}: {len(unknown)} of {len(self.words_seen)} words are not in its "
            f"vocabulary (first: {first}); {done}"
        ]

    def _repeated_words(self) -> list[str]:
        found = self.vocab.duplicates if self.vocab is not None else []
        if not found:
            found = self.analogy_duplicates
        if not found:
            return []
        shown = [
            f"{word!r}" + (f" (lines {first} and {later})" if first else "")
            for word, first, later in found[:5]
        ]
        more = len(found) - len(shown)
        return [
            f"{self.path}: {len(found)} repeated word(s): "
            + ", ".join(shown)
            + (f" and {more} more" if more > 0 else "")
            + "; the first vector of each is used, as gensim's word2vec reader does"
        ]

    def extra(self) -> dict[str, Any]:
        v = self.vocab
        return {
            "vocabulary_rows_kept": 0 if v is None else len(v.rows),
            "file_words": 0 if v is None else v.file_words,
            "words_asked": len(self.words_seen),
            "words_found": len(self.found),
            **({"analogy_candidates": self.candidates} if self.candidates else {}),
        }


def check_vector_path(path: str) -> None:
    """Refuse, before any reading, a path that cannot hold vectors: missing, a folder that is
    not a model folder, a device or pipe (``/dev/zero`` would be read without end), a name
    the system cannot use."""
    shown = path if len(path) <= 100 else path[:100] + "…"
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise InputError(shown, None, "vector file not found") from None
    except OSError as exc:
        raise InputError(shown, None, f"cannot use this path: {exc.strerror}") from None
    if stat.S_ISDIR(mode):
        if not (Path(path) / "vocab.txt").is_file():
            raise InputError(
                shown, None, "a folder, but not a model folder of `simeval train` (no vocab.txt)"
            )
    elif not stat.S_ISREG(mode):
        raise InputError(shown, None, "not a regular file (a device or a pipe?): expected vectors")


def make_vectors(p: Params) -> WordVectors:
    path = p.get("path", None)
    if not path:
        raise InputError(None, None, f"measure {p.spec}: needs path=FILE")
    check_vector_path(str(path))
    fmt = p.get("format", "auto", str, FORMATS)
    if fmt == "gensim" and not p.get("allow_pickle", False, bool):  # declared for every format
        raise pickle_refused(Path(path))
    p.get("allow_pickle", False, bool)
    p.get("oov", "zero", str, OOV_POLICIES)
    p.get("fallback", "skip", str, ("skip", "zero"))
    p.get("sif", False, bool)
    p.get("lang", "en", str)
    p.get("analogy", "3cosadd", str, METHODS)
    return WordVectors(str(p.spec), p.done())
