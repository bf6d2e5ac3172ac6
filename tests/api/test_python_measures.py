"""Python functions as measures, as a notebook uses them (issue 31, items 4, 8 and 9): a
function of one pair or of a batch, an explicit missing-score policy with a printed warning
for the default, names that keep a sweep's runs apart, and records as a DataFrame. Numbers are
checked against scipy."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
from scipy.stats import spearmanr

import simeval
from simeval.errors import DefaultPolicyWarning, InputError


def _letters(a: str, b: str) -> float:
    """Jaccard of the two words' letter sets (a made-up measure)."""
    return len(set(a) & set(b)) / len(set(a) | set(b))


def test_a_function_of_one_pair_equals_the_same_function_over_a_batch() -> None:
    target = simeval.load_target("rg65")
    one = simeval.evaluate(_letters, target)[0]
    batch = simeval.evaluate(lambda pairs: [_letters(a, b) for a, b in pairs], target)[0]
    expected = spearmanr(target.gold.scores, [_letters(a, b) for a, b in target.gold.pairs])[0]
    assert one.metrics["spearman"] == pytest.approx(expected, abs=1e-12)
    assert batch.metrics["spearman"] == pytest.approx(expected, abs=1e-12)
    assert one.system["params"]["calls"] == "one pair"


def _half_unscored(pairs: list[tuple[str, str]]) -> list[float]:
    return [np.nan if i % 2 else _letters(a, b) for i, (a, b) in enumerate(pairs)]


def test_missing_policy_is_explicit_and_the_default_warns() -> None:
    target = simeval.load_target("mc30")
    scores = np.array(_half_unscored(list(target.gold.pairs)))
    gold = target.gold.scores
    with pytest.warns(DefaultPolicyWarning, match="mc30: .* left 15 of 30 items without a score"):
        zero = simeval.evaluate(_half_unscored, target)[0]
    assert zero.metrics["spearman"] == pytest.approx(spearmanr(gold, np.nan_to_num(scores))[0])
    assert "RUSSE" not in " ".join(zero.warnings)  # an English set: no RUSSE rule cited
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an explicit policy: no warning
        skip = simeval.evaluate(_half_unscored, target, missing="skip")[0]
    kept = ~np.isnan(scores)
    assert skip.metrics["spearman"] == pytest.approx(spearmanr(gold[kept], scores[kept])[0])
    assert skip.coverage["missing"] == 15
    with pytest.raises(InputError, match="15 of 30 gold pairs have no score"):
        simeval.evaluate(_half_unscored, target, missing="error")
    with pytest.raises(InputError, match="missing must be one of zero, skip, error"):
        simeval.evaluate(_half_unscored, target, missing="drop")


def test_a_sweep_gets_one_name_per_setting(tmp_path) -> None:
    def make(alpha: float):  # a closure, as a sweep in a notebook builds it
        def weighted(a: str, b: str) -> float:
            return alpha * _letters(a, b) + (1 - alpha) * (a[0] == b[0])

        return weighted

    def scaled(pairs: list[tuple[str, str]], power: float = 1.0) -> list[float]:
        return [_letters(a, b) ** power for a, b in pairs]

    measures = [make(0.2), make(0.8), functools.partial(scaled, power=2.0),
                lambda pairs, k=3: [len(a) % k for a, _ in pairs]]  # fmt: skip
    names = []
    for m in measures:
        names.append(simeval.evaluate(m, "mc30", results_dir=tmp_path)[0].system["measure"])
    assert names[:3] == ["weighted(alpha=0.2)", "weighted(alpha=0.8)", "scaled(power=2.0)"]
    assert names[3].startswith("lambda@test_python_measures.py:") and names[3].endswith("(k=3)")
    frame = simeval.results_frame(tmp_path)
    assert sorted(frame["measure"]) == sorted(names)  # four runs kept, none overwritten


def test_results_frame_of_records_in_memory() -> None:
    pytest.importorskip("pandas")
    results = simeval.evaluate(_letters, "mc30", "rg65", name="letters")
    frame = simeval.results_frame(results)
    assert list(frame["benchmark"]) == ["mc30", "rg65"]
    for bench, row in zip(["mc30", "rg65"], frame.itertuples(), strict=True):
        target = simeval.load_target(bench)
        own = [_letters(a, b) for a, b in target.gold.pairs]
        assert row.score == pytest.approx(spearmanr(target.gold.scores, own)[0], abs=1e-12)
    assert list(simeval.results_frame([r.to_dict() for r in results])["score"]) == list(
        frame["score"]
    )


@pytest.mark.parametrize("scale", [1e20, 1e-30])
def test_an_encoder_of_huge_or_tiny_embeddings_gives_scipys_cosine(scale: float) -> None:
    """An object whose ``encode`` returns float32 embeddings times 1e20 (norm overflows) or
    1e-30 (norm underflows) scored every pair 0 or NaN; the cosine is scipy's on float64."""
    from scipy.spatial.distance import cosine

    from simeval.measures.python import as_measure

    table = {"a b": [1.0, 0.5, 0.0], "c d": [0.6, 0.8, 0.1], "e f": [0.0, -0.2, 1.0]}

    class Scaled:
        def encode(self, texts: list[str]) -> np.ndarray:
            return (np.array([table[t] for t in texts]) * scale).astype(np.float32)

    pairs = [("a b", "c d"), ("c d", "e f"), ("a b", "e f")]
    got = as_measure(Scaled(), name="scaled").score_texts(pairs)
    expected = [1 - cosine(np.array(table[a]) * scale, np.array(table[b]) * scale)
                for a, b in pairs]  # fmt: skip
    assert got == pytest.approx(expected, abs=1e-6)
