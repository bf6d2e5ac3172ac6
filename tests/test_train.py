"""Training: exact window counts against a brute-force counter, PPMI by hand, text handling."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from simeval.train.count import (
    build_vocabulary,
    cooccurrence,
    count_chunk,
    ppmi,
    svd_vectors,
    word_counts,
)

TEXT = [
    "the cat sat on the mat",
    "the dog sat",
    "a cat and a dog and a cat",
    "mat",
    "cat zebra okapi dog",  # zebra, okapi occur once: below min_count, but keep their positions
]


def brute_force(sentences: list[list[str]], words: set[str], contexts: set[str], window: int):
    counts: Counter[tuple[str, str]] = Counter()
    for s in sentences:
        for i, w in enumerate(s):
            for j, c in enumerate(s):
                if i != j and abs(i - j) <= window and w in words and c in contexts:
                    counts[(w, c)] += 1
    return counts


def as_counter(matrix, words, contexts) -> Counter[tuple[str, str]]:
    m = matrix.tocoo()
    return Counter(
        {(words[r], contexts[c]): int(v) for r, c, v in zip(m.row, m.col, m.data, strict=True)}
    )


@pytest.mark.parametrize("window", [1, 2, 5])
def test_window_counts_match_brute_force(window: int) -> None:
    sentences = [line.split() for line in TEXT]
    counts = Counter(t for s in sentences for t in s)
    words = build_vocabulary(counts, min_count=2)
    # by frequency, ties by word; with window 2, cat and dog of the last line are not neighbours
    assert words == ["cat", "a", "dog", "the", "and", "mat", "sat"]
    contexts = [w for w in words if w not in ("the", "a", "and")]
    got = as_counter(
        count_chunk(
            TEXT,
            {w: i for i, w in enumerate(words)},
            {c: i for i, c in enumerate(contexts)},
            window,
        ),
        words,
        contexts,
    )
    assert got == brute_force(sentences, set(words), set(contexts), window)


def test_parallel_chunked_counting_equals_one_pass(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    vocab = [f"w{i}" for i in range(40)]
    lines = [" ".join(rng.choice(vocab, size=rng.integers(1, 12))) for _ in range(500)]
    f = tmp_path / "corpus.txt"
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    counts = word_counts(f)
    words = build_vocabulary(counts, min_count=20)
    contexts = words[:15]
    m = cooccurrence(f, words, contexts, window=3, workers=2, chunk_lines=37)
    expected = brute_force([s.split() for s in lines], set(words), set(contexts), 3)
    assert as_counter(m, words, contexts) == expected


def test_ppmi_by_hand() -> None:
    counts = np.array([[2.0, 1.0], [0.0, 3.0]])
    # alpha = 1, shift 1: PMI = log(#(w,c) * D / (#w * #c)), D = 6, rows 3 3, cols 2 4
    m = ppmi(counts, alpha=1.0).toarray()
    assert m[0, 0] == pytest.approx(math.log(2 * 6 / (3 * 2)))
    assert m[0, 1] == 0.0  # log(1*6/(3*4)) < 0
    assert m[1, 1] == pytest.approx(math.log(3 * 6 / (3 * 4)))
    # alpha = 0.75: columns smoothed, #c^a / sum #c^a
    s = 2**0.75 + 4**0.75
    m = ppmi(counts, alpha=0.75).toarray()
    assert m[0, 0] == pytest.approx(math.log((2 / 6) / ((3 / 6) * (2**0.75 / s))))
    # shift k = 2 subtracts log 2 before clipping at 0
    shifted = ppmi(counts, alpha=1.0, shift=2.0).toarray()
    assert shifted[0, 0] == pytest.approx(max(math.log(2) - math.log(2), 0))


def test_svd_weighting() -> None:
    rng = np.random.default_rng(1)
    a = rng.random((30, 20))
    u, s, _ = np.linalg.svd(a, full_matrices=False)
    for p in (0.0, 0.5, 1.0):
        got = svd_vectors(a, 5, p)
        want = u[:, :5] * s[:5] ** p
        # columns are defined up to sign
        signs = np.sign((got * want).sum(axis=0))
        assert got * signs == pytest.approx(want, abs=1e-4)
