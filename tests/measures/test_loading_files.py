"""What simeval loads and what it refuses (docs/loading-files.md): no file given to a measure
runs code — a pickle found by format detection, a pickled numpy array, a ``learned`` folder or
an encoder folder holding a pickle are refused with the file named — and the saved ``learned``
models compute what scikit-learn's fitted models compute."""

from __future__ import annotations

import hashlib
import json
import pickle
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import readme_text
from simeval.cli import app
from simeval.errors import InputError
from simeval.measures import create_measure

PAGE = readme_text.doc("loading-files.md")


class _Opens:
    """Unpickling this creates the file at ``path`` (standing for any code a pickle can run)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return open, (str(self.path), "w")


def _hostile_pickle(path: Path, marker: Path) -> Path:
    path.write_bytes(pickle.dumps(_Opens(marker), protocol=4))
    assert path.read_bytes()[:1] == b"\x80"
    return path


def test_format_detection_never_unpickles(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    vectors = _hostile_pickle(tmp_path / "vectors.kv", marker)
    with pytest.raises(InputError, match=r"vectors\.kv: a Python pickle .*format=gensim"):
        create_measure(f"vectors:path={vectors}").score_words([("cat", "dog")])
    done = CliRunner().invoke(app, ["evaluate", f"vectors:path={vectors}", "-b", "mc30"])
    assert done.exit_code == 2 and "pickle" in done.stderr, done.output
    assert "Traceback" not in done.output
    assert not marker.exists()


REFUSED = r"format=gensim loads a Python pickle, which can run code: pass allow_pickle=true if"


def test_format_gensim_needs_allow_pickle(tmp_path: Path) -> None:
    """``format=gensim`` alone unpickled the file (issue 44): like numpy's ``allow_pickle``,
    the pickle is loaded only with ``allow_pickle=true``, and then scores as gensim does."""
    from gensim.models import KeyedVectors

    kv = KeyedVectors(2)
    kv.add_vectors(["cat", "dog"], np.array([[1.0, 0.0], [1.0, 1.0]], dtype=np.float32))
    path = tmp_path / "v.kv"
    kv.save(str(path))
    with pytest.raises(InputError, match=REFUSED + r" .*v\.kv"):
        create_measure(f"vectors:path={path},format=gensim")
    done = CliRunner().invoke(app, ["evaluate", f"vectors:path={path},format=gensim", "-b", "mc30"])
    assert done.exit_code == 2 and "allow_pickle=true" in done.stderr, done.output
    measure = create_measure(f"vectors:path={path},format=gensim,allow_pickle=true")
    assert measure.score_words([("cat", "dog")])[0] == pytest.approx(2**-0.5)  # cos 45°


def test_a_hostile_pickle_said_gensim_does_not_run_without_allow_pickle(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    vectors = _hostile_pickle(tmp_path / "vectors.kv", marker)
    for spec in (f"vectors:path={vectors},format=gensim", f"vectors:path={vectors},format=gensim"
                 ",allow_pickle=false"):  # fmt: skip
        with pytest.raises(InputError, match=REFUSED):
            create_measure(spec).score_words([("cat", "dog")])
        done = CliRunner().invoke(app, ["evaluate", spec, "-b", "mc30"])
        assert done.exit_code == 2 and "Traceback" not in done.output, done.output
    assert not marker.exists()


def test_a_pickled_numpy_array_in_a_model_folder_is_refused(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "vocab.txt").write_text("cat\ndog\n", encoding="utf-8")
    np.save(folder / "vectors.npy", np.array([_Opens(marker), 1], dtype=object))
    with pytest.raises(InputError, match=r"vectors\.npy: expected a numeric matrix"):
        create_measure(f"vectors:path={folder}").score_words([("cat", "dog")])
    assert not marker.exists()


def _combine_folder(folder: Path, model: bytes, name: str) -> Path:
    """A folder that looks like `simeval train combine` wrote it, its record naming the sha256
    of ``model`` (anyone can compute it: the check is against accidents, not attacks)."""
    folder.mkdir()
    (folder / name).write_bytes(model)
    record = {
        "config": {"measures": ["overlap"], "features": [], "model": "linear"},
        "columns": ["score:overlap", "scored:overlap"],
        "data": {},
        "model_sha256": hashlib.sha256(model).hexdigest(),
    }
    (folder / "combine.json").write_text(json.dumps(record), encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("model.joblib", r"model\.joblib: a pickled model .* train"),  # what simeval wrote before
        ("model.npz", r"model\.npz: expected the arrays"),  # a pickle under the new name
    ],
)
def test_a_learned_folder_with_a_pickle_is_refused(tmp_path: Path, name: str, message: str) -> None:
    marker = tmp_path / "ran"
    payload = pickle.dumps(_Opens(marker), protocol=4)
    folder = _combine_folder(tmp_path / "combo", payload, name)
    with pytest.raises(InputError, match=message):
        create_measure(f"learned:model={folder}")
    assert not marker.exists()


def test_a_learned_tree_that_loops_is_refused(tmp_path: Path) -> None:
    """Links that point back would loop for ever: refused when the folder is read."""
    import io

    buffer = io.BytesIO()
    np.savez(
        buffer, baseline=np.zeros(1), feature=np.zeros(2, int), threshold=np.zeros(2),
        missing_left=np.zeros(2, bool), left=np.array([1, 0]), right=np.array([1, 0]),
        leaf=np.zeros(2, bool), value=np.zeros(2), roots=np.zeros(1, int),
    )  # fmt: skip
    folder = _combine_folder(tmp_path / "combo", buffer.getvalue(), "model.npz")
    record = json.loads((folder / "combine.json").read_text())
    record["config"]["model"] = "boosting"
    (folder / "combine.json").write_text(json.dumps(record))
    with pytest.raises(InputError, match=r"model\.npz: not a tree ensemble over 2 columns"):
        create_measure(f"learned:model={folder}")


@pytest.mark.parametrize("binary", [False, True])
@pytest.mark.parametrize("kind", ["linear", "boosting"])
def test_saved_models_compute_what_scikit_learn_computes(kind: str, binary: bool) -> None:
    from simeval.measures.learned import CombineConfig, LinearModel, TreeEnsemble, predict
    from simeval.train.combine import make_model, model_arrays

    rng = np.random.default_rng(7)
    x = rng.normal(size=(400, 5))
    x[rng.random(x.shape) < 0.05] = np.nan if kind == "boosting" else 0.0
    y = np.nan_to_num(x[:, 0]) - 0.5 * np.nan_to_num(x[:, 3]) + rng.normal(size=400) * 0.3
    y = (y > 0).astype(int) if binary else y
    config = CombineConfig(model=kind, binary=binary, seed=3)
    fitted = make_model(config).fit(x, y)
    arrays = model_arrays(fitted, config)
    saved = (TreeEnsemble if kind == "boosting" else LinearModel)(
        {k: np.asarray(v) for k, v in arrays.items()}, binary
    )
    unseen = rng.normal(size=(300, 5))
    unseen[rng.random(unseen.shape) < 0.05] = np.nan if kind == "boosting" else 0.0
    expected = predict(fitted, unseen, binary)
    assert np.allclose(saved.score(unseen), expected, rtol=0, atol=1e-12)


def test_an_encoder_folder_with_pickled_weights_is_refused(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    folder = tmp_path / "encoder"
    folder.mkdir()
    (folder / "config.json").write_text("{}", encoding="utf-8")
    _hostile_pickle(folder / "pytorch_model.bin", marker)
    with pytest.raises(InputError, match=r"pytorch_model\.bin: .*safetensors"):
        create_measure(f"encoder:model={folder},cache=false")
    assert not marker.exists()


def test_the_page_lists_every_vector_format() -> None:
    from simeval.measures.vectors import FORMATS

    rows = readme_text.tables(PAGE)[0]
    assert [r[0].strip("`") for r in rows[2:]] == list(FORMATS[1:])


def test_the_pages_console_example_is_what_the_cli_prints() -> None:
    (block,) = readme_text.blocks(PAGE, "console")
    command, expected = block.strip().splitlines()
    args = command.removeprefix("$ simeval ").split()
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 2
    assert done.stderr.strip().endswith(expected), done.stderr


def _graph_folder(tmp_path: Path, record: str | None, model: dict | None) -> Path:
    folder = tmp_path / "graph"
    folder.mkdir()
    rows = "word1\tword2\tsource\nкошка\tсобака\trt\nсобака\tлиса\trt\n"
    (folder / "edges.tsv").write_text(rows, encoding="utf-8")
    if record is not None:
        (folder / "graph.json").write_text(record, encoding="utf-8")
    if model is not None:
        (folder / "model.json").write_text(json.dumps(model), encoding="utf-8")
    return folder


GOOD_MODEL = {"features": ["cn", "ra_rt"], "mean": [0, 0], "scale": [1, 1], "coef": [1, 2]}


@pytest.mark.parametrize(
    ("record", "model", "message"),
    [
        (None, None, r"graph\.json: missing: not a folder of `simeval train graph`"),
        ("{not json", None, r"graph\.json: expected the JSON record of `simeval train graph`"),
        ("[]", None, r"graph\.json: expected the keys sources"),
        ('{"sources": ["rt"]}', {**GOOD_MODEL}, r"model\.json: expected the keys intercept"),
        (
            '{"sources": ["rt"]}',
            {**GOOD_MODEL, "features": ["cn", "os.system"], "intercept": 0},
            r"model\.json: features: expected a list of",
        ),
        (
            '{"sources": ["rt"]}',
            {**GOOD_MODEL, "coef": [1, float("nan")], "intercept": 0},
            r"model\.json: expected 2 finite numbers per array",
        ),
        (
            '{"sources": ["rt"]}',
            {**GOOD_MODEL, "coef": [1], "intercept": 0},
            r"model\.json: expected 2 finite numbers per array",
        ),
    ],
)
def test_a_graph_folders_records_are_checked_when_read(
    tmp_path: Path, record: str | None, model: dict | None, message: str
) -> None:
    folder = _graph_folder(tmp_path, record, model)
    with pytest.raises(InputError, match=message):
        create_measure(f"graph:path={folder},score=learned")


def test_a_good_graph_model_scores_by_hand(tmp_path: Path) -> None:
    """кошка–лиса share one neighbour (собака, degree 2): cn = 1, ra_rt = 1/2, so the score is
    σ(0 + 1·log1p(1) + 2·log1p(0.5)) by the module's formula."""
    folder = _graph_folder(tmp_path, '{"sources": ["rt"]}', {**GOOD_MODEL, "intercept": 0})
    (got,) = create_measure(f"graph:path={folder},score=learned").score_words([("кошка", "лиса")])
    z = 1 * np.log1p(1) + 2 * np.log1p(0.5)
    assert got == pytest.approx(1 / (1 + np.exp(-z)))


def test_a_learned_folders_record_is_checked_when_read(tmp_path: Path) -> None:
    folder = _combine_folder(tmp_path / "combo", b"", "model.npz")
    (folder / "combine.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError, match=r"combine\.json: expected the JSON record"):
        create_measure(f"learned:model={folder}")
    (folder / "combine.json").write_text('{"config": "linear"}', encoding="utf-8")
    with pytest.raises(InputError, match=r"combine\.json: expected the keys columns, data"):
        create_measure(f"learned:model={folder}")
