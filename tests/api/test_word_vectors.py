"""Word vectors in memory as a measure (issue 31, item 7): a dict, a (matrix, words) pair and
gensim KeyedVectors give the cosine that numpy gives here, and the Spearman scipy gives."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import spearmanr

import simeval
from simeval.errors import DefaultPolicyWarning, InputError
from simeval.measures.python import as_measure


@pytest.fixture(scope="module")
def vectors() -> dict[str, np.ndarray]:
    """Random 20-dimensional vectors for rg65's words, but five of them (left out)."""
    words = sorted({w for p in simeval.load_target("rg65").gold.pairs for w in p})
    rng = np.random.default_rng(7)
    return {w: rng.normal(size=20) for w in words[5:]}


def _expected(vectors: dict[str, np.ndarray]) -> tuple[float, int]:
    """Spearman of the cosines (0 where a word has no vector, RUSSE's rule), by hand."""
    target = simeval.load_target("rg65")
    scores = []
    for a, b in target.gold.pairs:
        if a in vectors and b in vectors:
            va, vb = vectors[a], vectors[b]
            scores.append(float(va @ vb / np.linalg.norm(va) / np.linalg.norm(vb)))
        else:
            scores.append(0.0)
    missing = sum(1 for a, b in target.gold.pairs if a not in vectors or b not in vectors)
    return float(spearmanr(target.gold.scores, scores)[0]), missing


def test_a_dict_a_matrix_and_keyed_vectors_score_alike(vectors) -> None:  # type: ignore[no-untyped-def]
    expected, missing = _expected(vectors)
    assert missing > 0
    words = list(vectors)
    matrix = np.vstack([vectors[w] for w in words])
    given = {"dict": vectors, "matrix": (matrix, words), "words-first": (words, matrix)}
    gensim = pytest.importorskip("gensim")
    keyed = gensim.models.KeyedVectors(vector_size=20)
    keyed.add_vectors(words, matrix)
    given["keyed"] = keyed
    for shape, obj in given.items():
        with pytest.warns(DefaultPolicyWarning, match=f"left {missing} of 65"):
            result = simeval.evaluate(obj, "rg65")[0]
        # float32 rows, as the vectors measure keeps a file's rows
        assert result.metrics["spearman"] == pytest.approx(expected, abs=1e-6), shape
        assert result.coverage["missing"] == missing
        assert result.system["kind"] == "python"


def test_wrong_vectors_are_refused(vectors) -> None:  # type: ignore[no-untyped-def]
    words = list(vectors)
    with pytest.raises(InputError, match="words for a matrix of"):
        simeval.evaluate((np.zeros((3, 4)), words), "rg65")
    bad = dict(vectors)
    bad[words[0]] = np.zeros(7)
    with pytest.raises(InputError, match="has shape"):
        simeval.evaluate(bad, "rg65")
    nan = dict(vectors)
    nan[words[3]] = np.full(20, np.nan)
    with pytest.raises(InputError, match="expected finite numbers"):
        simeval.evaluate(nan, "rg65")


@pytest.mark.parametrize("scale", [1e20, 1e-30])
def test_scaled_vectors_in_a_dict_give_scipys_cosine(vectors, scale: float) -> None:  # type: ignore[no-untyped-def]
    """The fixture's vectors times 1e20 or 1e-30 overflowed or underflowed the float32 norms
    (every cosine 0 or NaN); scipy's cosine of the float64 vectors does not change with the
    scale, nor must ours: the same Spearman as the unscaled vectors, each cosine as scipy's."""
    from scipy.spatial.distance import cosine

    scaled = {w: v * scale for w, v in vectors.items()}
    a, b = next((a, b) for a, b in simeval.load_target("rg65").gold.pairs
                if a in vectors and b in vectors)  # fmt: skip
    got = as_measure(scaled).score_words([(a, b)])[0]
    assert got == pytest.approx(1 - cosine(scaled[a], scaled[b]), abs=1e-6)
    expected, missing = _expected(vectors)
    with pytest.warns(DefaultPolicyWarning, match=f"left {missing} of 65"):
        result = simeval.evaluate(scaled, "rg65")[0]
    assert result.metrics["spearman"] == pytest.approx(expected, abs=1e-6)
