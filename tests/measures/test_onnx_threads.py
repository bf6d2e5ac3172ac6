"""One setting for the threads of both encoder backends (issue 48): ONNX Runtime's session
reads ``OMP_NUM_THREADS`` as torch does, and two test workers each keep to one thread."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    ("value", "threads"), [("3", 3), ("1", 1), ("0", 0), ("", 0), ("two", 0), ("-2", 0)]
)
def test_onnx_runtime_reads_omp_num_threads(value: str, threads: int, monkeypatch) -> None:
    from simeval.measures.onnx_model import omp_threads

    monkeypatch.setenv("OMP_NUM_THREADS", value)
    assert omp_threads() == threads


def test_omp_num_threads_unset_is_one_thread_per_core(monkeypatch) -> None:
    from simeval.measures.onnx_model import omp_threads

    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert omp_threads() == 0


def test_two_test_workers_give_torch_one_thread_each() -> None:
    """Under ``-n 2`` a command a test starts computes with one torch thread; alone, the
    variable is the user's own (unset here unless they set it)."""
    pytest.importorskip("torch")
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers < 2:
        pytest.skip("runs under pytest-xdist with two workers or more (CI's -n 2)")
    code = "import torch; print(torch.get_num_threads())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == os.environ.get("OMP_NUM_THREADS", "1") == "1"
