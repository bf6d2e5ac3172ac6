"""Partitioned jobs on Dask (simeval.engine) give the single-process results: co-occurrence counts
exactly (on RusLit), bootstrap replicates exactly, the linking top 5 and its TREC run byte for
byte — on a two-process LocalCluster, and again when a worker is killed in the middle of a job
(Dask runs its lost tasks again)."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from scipy import sparse

distributed = pytest.importorskip("distributed")

from simeval import engine  # noqa: E402
from simeval.api import evaluate  # noqa: E402
from simeval.data.trec import write_run  # noqa: E402
from simeval.kinds.rows import ItemMetrics  # noqa: E402
from simeval.measures.search import top_k  # noqa: E402
from simeval.metrics import stats  # noqa: E402
from simeval.text.corpus import iter_documents  # noqa: E402
from simeval.train import count  # noqa: E402


def _models_loaded() -> int:
    from simeval.measures import encoder

    return len(encoder._LOADED)


@pytest.fixture(scope="module")
def cluster():
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as c,
        distributed.Client(c) as client,
    ):
        yield c, engine.Engine("processes", client)


@pytest.fixture(scope="module")
def ruslit(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """RusLit's text, a line per paragraph, lowercased and split at white space."""
    out = tmp_path_factory.mktemp("ruslit") / "ruslit.txt"
    with open(out, "w", encoding="utf-8") as f:
        for doc in iter_documents(data_dir / "corpora" / "ruslit.tar.xz"):
            for line in doc.text.splitlines():
                if line.split():
                    f.write(" ".join(line.lower().split()) + "\n")
    return out


def _counts(path: Path, words: list[str], partition: int) -> sparse.csr_matrix:
    saved = count.PARTITION_BYTES
    count.PARTITION_BYTES = partition
    try:
        return count.cooccurrence(path, words, words, 5)
    finally:
        count.PARTITION_BYTES = saved


@pytest.mark.slow
def test_counts_on_ruslit_equal_the_single_process_counts(cluster, ruslit: Path) -> None:
    words = count.build_vocabulary(count.word_counts(ruslit), 20)
    single = count.cooccurrence(ruslit, words, words, 5, workers=1)
    assert single.nnz > 1_000_000 and len(words) > 10_000
    with engine.using(cluster[1]):
        spread = _counts(ruslit, words, 4 << 20)  # ~17 partitions, tree-reduced
    assert spread.shape == single.shape
    assert (spread != single).nnz == 0
    assert spread.sum() == single.sum()


@pytest.mark.slow
def test_a_worker_killed_mid_job_changes_nothing(cluster, ruslit: Path) -> None:
    """One of the two worker processes is killed while the counting tasks run; its nanny
    starts a new one, the scheduler runs the lost tasks again, and the counts are the same."""
    running = cluster[1]
    words = count.build_vocabulary(count.word_counts(ruslit), 50)
    single = count.cooccurrence(ruslit, words, words, 5, workers=1)
    pids = running.client.run(os.getpid)
    got: dict = {}

    def job() -> None:
        with engine.using(running):
            got["counts"] = _counts(ruslit, words, 1 << 20)

    thread = threading.Thread(target=job)
    thread.start()
    deadline = time.time() + 60
    while time.time() < deadline:  # wait until the job is under way
        if running.client.processing() and any(running.client.processing().values()):
            break
        time.sleep(0.05)
    time.sleep(0.5)
    victim = sorted(pids.values())[0]
    assert thread.is_alive()  # killed mid-job, not after it
    os.kill(victim, signal.SIGKILL)
    thread.join(timeout=300)
    assert not thread.is_alive()
    assert (got["counts"] != single).nnz == 0
    running.client.wait_for_workers(2, timeout=60)
    assert victim not in running.client.run(os.getpid).values()  # it really died


@pytest.fixture(scope="module")
def results(store):
    return evaluate("orthographic:kind=dice", "russe", "sts12", store=store)


@pytest.mark.slow
def test_bootstrap_replicates_equal_the_single_process_ones(cluster, results) -> None:
    for r in results:
        m = ItemMetrics(r.task, r.items)
        stats._REPLICATES.values.clear()
        single = stats.bootstrap(m, m.n, stats.Resampling(300, 4).of(m))
        stats._REPLICATES.values.clear()
        spread = stats.bootstrap(m, m.n, stats.Resampling(300, 4).of(m).on(cluster[1]))
        assert list(spread) == list(single)
        for k in single:
            assert np.array_equal(spread[k], single[k], equal_nan=True), (r.benchmark, k)


@pytest.mark.slow
def test_linking_top5_and_its_run_are_the_same(cluster, tmp_path: Path) -> None:
    """Sparse and dense rows whose scores tie often (few distinct values): the top 5, ties
    included, and the TREC run written from it, byte for byte."""
    rng = np.random.default_rng(3)
    q = sparse.random(700, 400, density=0.02, random_state=1, format="csr")
    d = sparse.random(900, 400, density=0.02, random_state=2, format="csr")
    q.data, d.data = np.round(q.data * 3), np.round(d.data * 3)  # small integers: ties
    dense_q, dense_d = rng.integers(0, 3, (300, 16)) * 1.0, rng.integers(0, 3, (800, 16)) * 1.0
    ties = rng.permutation(900)
    cases = [
        ((q, d, 5), {"ties": ties, "memory": 40_000}),
        ((dense_q, dense_d, 5), {"memory": 30_000}),
    ]
    for args, kw in cases:  # small memory: tens of query blocks, so tens of tasks
        single = top_k(*args, **kw)
        with engine.using(cluster[1]):
            spread = top_k(*args, **kw)
        assert np.array_equal(spread.index, single.index)
        assert np.array_equal(spread.score, single.score)
    runs = []
    for running in (None, cluster[1]):
        with engine.using(running):
            top = top_k(q, d, 5, ties=ties, memory=40_000)
        path = tmp_path / f"run-{running is None}.txt"
        qids = np.repeat([f"q{i}" for i in range(700)], 5)
        docs = np.array([f"d{i}" for i in range(900)])[top.index.ravel()]
        write_run(path, qids, docs, top.score.ravel(), bucc=True)
        runs.append(path.read_bytes())
    assert runs[0] == runs[1] and len(runs[0]) > 10_000


@pytest.mark.slow
def test_encoding_on_workers_equals_one_process_and_fills_the_cache(
    cluster, store, monkeypatch, tmp_path: Path
) -> None:
    """STS-2012 MSRvid's sentences (1,500) encoded in batches on the workers, each worker
    loading the model once: the embeddings equal one process's to float tolerance, the
    figures agree, and the cache they fill makes a later run encode nothing."""
    pytest.importorskip("sentence_transformers")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("SIMEVAL_CACHE_DIR", str(tmp_path / "one"))
    (one,) = evaluate("encoder", "sts12-msrvid", store=store)
    monkeypatch.setenv("SIMEVAL_CACHE_DIR", str(tmp_path / "dask"))
    with engine.using(cluster[1]):
        (spread,) = evaluate("encoder", "sts12-msrvid", store=store)
    assert spread.system["texts_encoded"] == one.system["texts_encoded"] > 1000
    assert spread.score == pytest.approx(one.score, abs=1e-6)
    assert np.allclose(spread.items["score"], one.items["score"], atol=1e-5)
    loaded = cluster[1].client.run(_models_loaded)
    assert sorted(loaded.values()) == [1, 1]  # one model in each worker, not one per task
    (again,) = evaluate("encoder", "sts12-msrvid", store=store)  # same cache, no scheduler
    assert again.system["texts_encoded"] == 0 and again.score == pytest.approx(spread.score)


def test_scheduler_specs_and_what_a_wrong_one_says(monkeypatch) -> None:
    """Specs are checked before anything starts; an address is only dialled when a job asks,
    so a command with nothing to partition runs; no worker and no Dask are clear errors."""
    from typer.testing import CliRunner

    from simeval.cli import app
    from simeval.errors import InputError

    for good in ("sync", "processes", "tcp://127.0.0.1:8786", "tcp://[::1]:8786"):
        assert engine.parse_spec(good) == good
    for bad in ("tcp://host", "tcp://host:port", "thread", "tcp://a:1/x"):
        with pytest.raises(InputError, match="expected sync, processes or tcp://HOST:PORT"):
            engine.parse_spec(bad)
    done = CliRunner().invoke(app, ["--scheduler", "tcp://127.0.0.1:1", "benchmarks"])
    assert done.exit_code == 0 and "russe" in done.stdout
    with distributed.LocalCluster(
        n_workers=0, processes=False, protocol="tcp", dashboard_address=":0"
    ) as c:
        monkeypatch.setattr(engine.dask, "WAIT_FOR_WORKERS", 1)
        with engine.scheduler(c.scheduler_address), pytest.raises(InputError, match="no worker"):
            engine.active()
    monkeypatch.setitem(sys.modules, "distributed", None)
    with engine.scheduler("sync"), pytest.raises(InputError, match=r"simeval\[dask\]"):
        engine.active()


def test_two_object_encoders_of_one_class_keep_their_own_models(store) -> None:
    """Two models of the same Python class, no fingerprint, run one after the other on Dask
    (sync, batches of 8 words, so the batches go through it): each scores with its own
    embeddings, as without a scheduler."""

    class Hashed:
        def __init__(self, seed: int) -> None:
            self.seed = seed

        def encode(self, texts: list[str]) -> np.ndarray:
            return np.array(
                [np.random.default_rng([self.seed, *map(ord, t)]).random(8) for t in texts]
            )

    alone = [evaluate(Hashed(s), "mc30", store=store, batch=8)[0].score for s in (1, 2)]
    with engine.scheduler("sync"):
        spread = [evaluate(Hashed(s), "mc30", store=store, batch=8)[0].score for s in (1, 2)]
    assert alone[0] != alone[1]
    assert spread == pytest.approx(alone, abs=1e-12)
