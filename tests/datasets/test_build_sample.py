"""STS-style sampling across string-similarity bands: quotas and bands worked out by hand."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from simeval.cli import app
from simeval.datasets.sts_sample import band_of, quotas, sample


def test_bands_are_equal_width_and_1_falls_in_the_last() -> None:
    assert band_of(np.array([0.0, 0.19, 0.2, 0.5, 0.99, 1.0]), 5).tolist() == [0, 0, 1, 2, 4, 4]


def test_quotas_split_evenly_and_pass_shortfalls_on() -> None:
    assert quotas([100, 100, 100], 10) == [4, 3, 3]  # 10 = 3 + 3 + 3, the first band one more
    # band 0 has 1 of its 4: the 3 left go to bands 1 and 2 (2 and 1), then band 1 is full
    assert quotas([1, 5, 100], 12) == [1, 5, 6]
    assert quotas([2, 0, 1], 10) == [2, 0, 1]  # the pool runs out


def _pair(shared: int, only: int) -> tuple[str, str]:
    """Two sentences with ``shared`` common tokens and ``only`` of their own each: the token
    cosine is shared / (shared + only)."""
    common = [f"w{i}" for i in range(shared)]
    a = common + [f"a{i}" for i in range(only)]
    b = common + [f"b{i}" for i in range(only)]
    return " ".join(a), " ".join(b)


def test_a_sample_takes_its_quota_from_each_band(tmp_path: Path) -> None:
    # band by overlap (5 bands): 0/4 -> band 0, 1/4 -> band 1, 2/4 -> band 2, 4/4 -> band 4
    pool = [_pair(0, 4 + k) for k in range(6)]  # 6 pairs of band 0
    pool += [_pair(1, 3 + 0 * k) for k in range(1)]  # band 1: 1 pair (cos 0.25)
    pool += [_pair(2, 2 + k) for k in range(3)]  # band 1/2: 2/4=0.5, 2/5=0.4, 2/6=0.33
    pool += [_pair(4, 0)] * 3  # band 4, one distinct pair
    drawn = sample(pool, 6, bands=5, by="overlap", seed=0)
    # available: band 0: 6; band 1: 0.25 and 0.33 -> 2; band 2: 0.5, 0.4 -> 2; band 3: 0;
    # band 4: 1. Quotas of 6 over 5 bands: 2,1,1,1,1; band 3 is short by 1 -> band 0 gets it
    assert drawn.available == [6, 2, 2, 0, 1]
    assert drawn.taken == [3, 1, 1, 0, 1]
    assert sorted(drawn.band.tolist()) == [0, 0, 0, 1, 2, 4]
    assert len(set(drawn.pairs)) == 6
    again = sample(pool, 6, bands=5, by="overlap", seed=0)
    assert again.pairs == drawn.pairs  # seeded
    inp = tmp_path / "STS.input.pool.txt"
    inp.write_text("".join(f"{a}\t{b}\n" for a, b in pool), encoding="utf-8")
    out = tmp_path / "sample"
    args = ["build", "sts-sample", str(out), "--pool", str(inp), "--size", "6", "--seed", "0"]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    lines = (out / "STS.input.sample.txt").read_text().splitlines()
    assert [tuple(x.split("\t")) for x in lines] == drawn.pairs
    sheet = (out / "annotation.csv").read_text().splitlines()
    assert sheet[0] == "id,sentence1,sentence2,rating" and len(sheet) == 7
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["inputs"][str(inp)] == hashlib.sha256(inp.read_bytes()).hexdigest()
    assert manifest["counts"]["per_band"] == {
        "available": [6, 2, 2, 0, 1],
        "taken": [3, 1, 1, 0, 1],
    }
    log = (out / "log.tsv").read_text().splitlines()
    assert sum("short" in x for x in log) == 1  # band 4 ([0.60, 0.80)) gave none of its 1


def test_a_pool_pair_with_an_empty_sentence_is_refused(tmp_path: Path) -> None:
    """On main the pair ``'' / 'a dog'`` was sampled and written for annotation at exit 0."""
    pool = tmp_path / "pool.txt"
    pool.write_text("a cat\ta dog\n\ta dog\na man\t  \n", encoding="utf-8")
    result = CliRunner().invoke(
        app, ["build", "sts-sample", str(tmp_path / "o"), "--pool", str(pool)]
    )
    assert result.exit_code == 2, result.output
    assert "pool.txt" in result.stderr and "line 2: sentence 1 is empty" in result.stderr
    assert "line 3: sentence 2 is empty" in result.stderr
    assert not (tmp_path / "o").exists()


def test_a_pool_smaller_than_the_size_warns(tmp_path: Path) -> None:
    """Asked for 10 pairs from a pool of 2 distinct ones: on main 2 were written with no word
    of the shortfall; now a warning says so (the sample is still written, as documented)."""
    pool = tmp_path / "pool.txt"
    pool.write_text("a cat\ta dog\nthe sun\ta moon\na cat\ta dog\n", encoding="utf-8")
    argv = ["build", "sts-sample", str(tmp_path / "o"), "--pool", str(pool), "--size", "10"]
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 0, result.output
    assert "warning: --size 10" in result.stderr and "only 2 distinct pairs" in result.stderr
    assert len((tmp_path / "o" / "STS.input.sample.txt").read_text().splitlines()) == 2
