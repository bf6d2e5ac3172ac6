"""The README's "Run on a cluster" block, run as written (a real `dask scheduler` and `dask worker`
on loopback, on a free port instead of 8786): the report made through the scheduler is the
page made without it."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

import readme_text

pytest.importorskip("distributed")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
def test_the_cluster_block_runs_and_gives_the_same_page(data_dir: Path, tmp_path: Path) -> None:
    block = readme_text.blocks(readme_text.section("## Run on a cluster"), "bash")[0]
    commands = [line for line in block.splitlines() if line and not line.startswith("#")]
    assert [c.split()[:2] for c in commands] == [
        ["dask", "scheduler"],
        ["dask", "worker"],
        ["simeval", "evaluate"],
        ["simeval", "--scheduler"],
        ["simeval", "report"],
    ]
    port = _free_port()
    # after the block: which kinds of task the scheduler ran (the report's bootstraps on it)
    ask = (
        f"import distributed; c = distributed.Client('tcp://127.0.0.1:{port}'); "
        "print('tasks:', *sorted(c.run_on_scheduler(lambda dask_scheduler: "
        "list(dask_scheduler.task_prefixes))))"
    )
    script = (
        "set -e\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n"
        + block.replace("8786", str(port))
        + f'\npython -c "{ask}"\n'
    )
    env = dict(
        os.environ,
        PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}",
        SIMEVAL_DATA_DIR=str(data_dir),
    )
    done = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    ran = next(x for x in done.stdout.splitlines() if x.startswith("tasks:")).split()[1:]
    assert "weighted_rows" in ran, ran  # stats._weighted_rows (Dask drops the underscore)
    pages = [
        re.sub(r"\d{4}-\d\d-\d\dT[\d:+]+", "", (tmp_path / "results/cluster" / n).read_text())
        for n in ("dask.html", "local.html")
    ]
    assert pages[0] == pages[1]
    assert pages[0].count("<h2 id=") == 11  # russe, its 4 sets, sts12, its 5 sets
