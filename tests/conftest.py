"""Shared fixtures: the real data in ../shared/data (or SIMEVAL_DATA_DIR)."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from simeval.data.store import DataStore

# Fuzzing repeats exactly: derandomized (examples drawn from a fixed seed), 40 examples a test
# unless a test says otherwise, no example database carried between runs. Under CI (CI=true)
# the "ci" profile draws 150 examples a property, derandomized too: CI explores more than the
# developer's loop, and what it finds a developer finds with CI=true before submitting
# (a submission is never refused by a draw no one could see); a failure prints its blob.
settings.register_profile("simeval", derandomize=True, max_examples=40, database=None)
settings.register_profile("ci", derandomize=True, max_examples=150, database=None, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI", "").lower() == "true" else "simeval")

ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = Path(os.environ.get("SIMEVAL_DATA_DIR") or ROOT.parent / "shared" / "data").resolve()
# Set for the whole session, so module-scoped fixtures see them too; tests never download.
os.environ["SIMEVAL_DATA_DIR"] = str(DATA_DIR)
os.environ["SIMEVAL_OFFLINE"] = "1"


# Two test workers on two cores (pytest-xdist, CI's -n 2): each computes with one thread.
# torch, the BLAS libraries and the encoder's ONNX Runtime session read OMP_NUM_THREADS (at
# their import or session, after this), and so do the commands a test starts: a worker whose
# torch spread over both cores while the other worker ran made both wait on each other.
if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1:
    os.environ.setdefault("OMP_NUM_THREADS", "1")


# The test files that load a torch model (the encoder, a fine-tuned one) or fine-tune one. With
# `-n 2 --dist loadfile` (CI, .ci/run) they are one work unit: one worker runs them one after
# another, as it runs a file's tests, while the other runs the rest file by file. torch uses
# every core, so two of them at once on CI's two cores each took about twice as long.
TORCH_FILES = (
    "tests/docs/test_benchmarks.py",
    "tests/docs/test_docs_crossfit.py",
    "tests/docs/test_executable_docs.py",
    "tests/docs/test_readme.py",
    "tests/docs/test_readme_build.py",
    "tests/docs/test_readme_main.py",
    "tests/docs/test_readme_strong.py",
    "tests/docs/test_readme_sts.py",
    "tests/engine/test_engine.py",
    "tests/kinds/test_bitext.py",
    "tests/measures/test_encoder.py",
    "tests/measures/test_encoder_backends.py",
    "tests/measures/test_encoder_onnx.py",
    "tests/registry/test_new_benchmarks.py",
    "tests/report/test_report.py",
    "tests/train/test_train_encoder.py",
)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: there only when it is installed
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadfile`` with :data:`TORCH_FILES` as one file. (Not ``--dist loadgroup`` and
    ``xdist_group`` marks: pytest-xdist 3.8 marks a group in the test's id, which pytest 9.2
    no longer reads, so every test went to either worker: pytest-xdist issue 1386.)"""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    missing = [name for name in TORCH_FILES if not (ROOT / name).is_file()]
    if missing:
        raise pytest.UsageError(f"tests/conftest.py: TORCH_FILES names no file: {missing}")

    class TorchFilesTogether(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = super()._split_scope(nodeid)
            return "torch" if path in TORCH_FILES else path

    return TorchFilesTogether(config, log)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 1 MiB tmpfs, mounted for the test (:mod:`disk_kit`: root only, CI runs as root)."""
    from disk_kit import mounted_tmpfs

    with mounted_tmpfs(tmp_path / "disk") as mount:
        yield mount


@pytest.fixture(scope="session")
def data_dir() -> Path:
    if not (DATA_DIR / "russe" / "test.csv").is_file():
        pytest.fail(f"real data not found in {DATA_DIR}; set SIMEVAL_DATA_DIR")
    return DATA_DIR


@pytest.fixture(scope="session")
def store(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> DataStore:
    return DataStore(data_dir=data_dir, cache_dir=tmp_path_factory.mktemp("cache"), offline=True)


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SIMEVAL_DATA_DIR", str(DATA_DIR))
    monkeypatch.setenv("SIMEVAL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SIMEVAL_OFFLINE", "1")
    monkeypatch.delenv("SIMEVAL_MIRROR_URL", raising=False)
    # a command without --results appends here, never into the checkout's results/
    monkeypatch.setenv("SIMEVAL_RESULTS", str(tmp_path / "default-results"))


@pytest.fixture(scope="session")
def encoder_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One embedding cache for the tests that run the encoder (the first encodes)."""
    return tmp_path_factory.mktemp("encoder-cache")


def _postgres_database(base: str, request: pytest.FixtureRequest) -> str:
    """A new, empty database on the PostgreSQL server at ``base`` (dropped after the test)."""
    import uuid

    psycopg = pytest.importorskip("psycopg")
    name = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(base, autocommit=True) as con:
        con.execute(f"CREATE DATABASE {name}")

    def drop() -> None:
        with psycopg.connect(base, autocommit=True) as con:
            con.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    request.addfinalizer(drop)
    return base.rsplit("/", 1)[0] + "/" + name


@pytest.fixture(params=["sqlite", "postgresql"])
def serve_db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A shared-task server's database URL: SQLite in a folder, and the same test again on
    PostgreSQL when SIMEVAL_TEST_POSTGRES names a server (`.ci/postgres start` prints one; CI
    sets SIMEVAL_REQUIRE_POSTGRES=1, so a missing server fails instead of skipping)."""
    if request.param == "sqlite":
        folder = tmp_path / "sqlite"
        folder.mkdir()
        return f"sqlite:///{folder / 'serve.db'}"
    base = os.environ.get("SIMEVAL_TEST_POSTGRES")
    if not base:
        if os.environ.get("SIMEVAL_REQUIRE_POSTGRES"):
            pytest.fail("SIMEVAL_TEST_POSTGRES is not set (.ci/postgres start DIR prints it)")
        pytest.skip("no PostgreSQL server (set SIMEVAL_TEST_POSTGRES)")
    return _postgres_database(base, request)


@pytest.fixture(scope="session")
def mc30(data_dir: Path) -> list[tuple[str, str, float]]:
    """MC-30's pairs and gold, read here (the server's tests upload files made from them)."""
    from serve_kit import gold

    return gold(data_dir / "mc30" / "EN-MC-30.txt")


@pytest.fixture(scope="session")
def rg65(data_dir: Path) -> list[tuple[str, str, float]]:
    from serve_kit import gold

    return gold(data_dir / "rg65" / "EN-RG-65.txt")


LOGGERS = ("simeval", "uvicorn", "uvicorn.error", "uvicorn.access")


@pytest.fixture(autouse=True)
def _loggers_restored() -> Iterator[None]:
    """A test that runs `simeval serve run` (uvicorn mocked) configures these loggers onto the
    CliRunner's stream, which closes with the test; put them back, so a later thread's log
    line cannot land as "Logging error" in another test's captured stderr."""
    saved = {n: (logging.getLogger(n).handlers[:], logging.getLogger(n).level,
                 logging.getLogger(n).propagate) for n in LOGGERS}  # fmt: skip
    yield
    for name, (handlers, level, propagate) in saved.items():
        logger = logging.getLogger(name)
        logger.handlers[:] = handlers
        logger.setLevel(level)
        logger.propagate = propagate
