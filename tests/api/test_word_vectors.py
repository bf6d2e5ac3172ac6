"""Word vectors in memory as a measure (issue 31, item 7): a dict, a (matrix, words) pair and
gensim KeyedVectors give the cosine that numpy gives here, and the Spearman scipy gives."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import spearmanr

import simeval
from simeval.errors import DefaultPolicyWarning, InputError


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
