"""Integer keys for large arrays of identifiers (byte strings), for joins and duplicate checks.

Sorting or hashing Python strings one by one dominates the cost of scoring a BUCC-size run
(750,000 lines). Here identifiers are numpy byte-string arrays (dtype ``S``, UTF-8) and get
64-bit keys in two interchangeable ways:

- :func:`hash_ids` — a vectorised hash of the bytes; fast, but two different ids may in principle
  share a key, so every user of hash keys verifies its matches on the bytes and raises
  :class:`KeyCollision` when one is wrong;
- :func:`exact_codes` — ranks from ``np.unique`` over all arrays at once; exact, slower.

Callers run once with hash keys and, on :class:`KeyCollision` (about one chance in 10^7 for a
million ids), once more with exact codes, so results never depend on the hash.
Byte strings compare in ``strcmp`` order, which is the order trec_eval uses for document ids.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import numpy as np

_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)  # 2^64 / golden ratio, odd
_SHIFT = np.uint64(29)


class KeyCollision(Exception):
    """Two different identifiers received the same hash key."""


def as_bytes(ids: Sequence[str] | Sequence[bytes] | np.ndarray) -> np.ndarray:
    """``ids`` as a numpy byte-string array (UTF-8). Ids must not end in NUL characters, which
    numpy's ``S`` dtype drops."""
    a = np.asarray(ids)
    if a.dtype.kind == "S":
        return a
    if a.dtype.kind in "UO":
        encoded = [str(x).encode("utf-8") for x in a.tolist()]
        return np.array(encoded, dtype=bytes) if encoded else np.array([], dtype="S1")
    raise TypeError(f"expected string identifiers, got an array of {a.dtype}")


def as_text(ids: np.ndarray) -> np.ndarray:
    """Byte-string ids back to a ``str`` array."""
    try:
        return ids.astype(str)  # fast when every id is ASCII
    except UnicodeDecodeError:
        return np.char.decode(ids, "utf-8")


def hash_ids(ids: np.ndarray) -> np.ndarray:
    """A 64-bit hash of every byte string: its bytes, zero-padded to whole 8-byte words, folded
    word by word with a multiply-xorshift step."""
    n, width = len(ids), ids.dtype.itemsize
    words = -(-width // 8)
    if width == words * 8 and ids.flags.c_contiguous:  # whole words already: no padded copy
        view = ids.view("<u8").reshape(n, words)
    else:
        padded = np.zeros((n, words * 8), dtype=np.uint8)
        padded[:, :width] = ids.view(np.uint8).reshape(n, width)
        view = padded.view("<u8")
    h = np.zeros(n, dtype=np.uint64)
    for j in range(words):
        h = (h ^ view[:, j]) * _MULTIPLIER
        h ^= h >> _SHIFT
    return h


def exact_codes(*arrays: np.ndarray) -> list[np.ndarray]:
    """Exact keys for several arrays at once: equal ids get equal codes across all arrays."""
    _, inverse = np.unique(np.concatenate(arrays), return_inverse=True)
    inverse = inverse.astype(np.uint64)
    bounds = np.cumsum([0, *(len(a) for a in arrays)])
    return [inverse[a:b] for a, b in pairwise(bounds)]


def joint_keys(*arrays: np.ndarray, exact: bool) -> list[np.ndarray]:
    """Hash keys (``exact=False``) or exact codes for each array."""
    if exact:
        return exact_codes(*arrays)
    # One width for all: the hash folds whole 8-byte words, padding included, so b"ab" as S2
    # and as S9 would otherwise hash differently.
    width = max(max(a.dtype.itemsize for a in arrays), 1)
    return [hash_ids(a.astype(f"S{width}", copy=False)) for a in arrays]


def pair_keys(first: np.ndarray, second: np.ndarray, *, exact: bool) -> np.ndarray:
    """One key for a pair of keys: for exact codes (below 2^32 each) ``first * 2^32 + second``,
    exact again; for hash keys a multiply-xorshift mix, whose matches the caller verifies."""
    if exact:
        return (first << np.uint64(32)) | second
    h = (first * _MULTIPLIER) ^ second
    return (h ^ (h >> _SHIFT)) * _MULTIPLIER


def first_duplicate(a: np.ndarray, b: np.ndarray) -> tuple[int, int] | None:
    """Indices ``(first, repeat)`` of the earliest repeated pair ``(a[i], b[i])`` in array order
    (the repeat with the smallest index and its first occurrence), or None."""
    for exact in (False, True):
        ka, kb = joint_keys(a, exact=exact)[0], joint_keys(b, exact=exact)[0]
        key = pair_keys(ka, kb, exact=exact)
        ascending = np.sort(key)  # unstable and several times faster: enough to see none
        if not (ascending[1:] == ascending[:-1]).any():
            return None
        order = np.argsort(key, kind="stable")
        sk = key[order]
        same = np.flatnonzero(sk[1:] == sk[:-1])
        if not len(same):
            return None
        # In a run of equal keys every later index repeats the run's first one.
        head = np.r_[0, np.flatnonzero(sk[1:] != sk[:-1]) + 1]
        group_first = order[head[np.searchsorted(head, same + 1, side="right") - 1]]
        later = order[same + 1]
        if exact or ((a[later] == a[group_first]) & (b[later] == b[group_first])).all():
            i = int(np.argmin(later))
            return int(group_first[i]), int(later[i])
    raise AssertionError("unreachable")  # pragma: no cover
