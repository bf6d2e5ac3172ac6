"""docs/guide/russian.md: its commands run as shown, and its table's navec figures and pair
counts are what they print; each figure is recomputed here from the saved per-pair rows with
scipy (Spearman) and by hand (the 2015 scorer's trapezoid AP is checked in tests/kinds)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import spearmanr
from typer.testing import CliRunner

import readme_text
from simeval.cli import app
from simeval.results.store import load_items

pytest.importorskip("navec")


@pytest.mark.slow
def test_the_navec_table_comes_from_its_commands(tmp_path: Path) -> None:
    page = readme_text.section("## Russian word similarity with navec")
    block = readme_text.blocks(page, "bash")[0]  # the navec block; the combination has its own test
    for line in block.strip().splitlines():
        args = shlex.split(line.replace("results/navec", str(tmp_path / "navec")))
        done = CliRunner().invoke(app, args[1:], env={"COLUMNS": "200"})
        assert done.exit_code == 0, (line, done.output)
    records = [json.loads(x) for x in (tmp_path / "navec/results.jsonl").read_text().splitlines()]
    by = {(r["system"]["spec"], r["benchmark"]): r for r in records}
    table = readme_text.tables(page)[0]
    for row in table[2:]:
        bench, metric, alone, backoff, scored = row[:5]
        counts = scored.replace(",", "").split()
        for spec, shown, count in (("navec:oov=zero", alone, counts[0]),
                                   ("navec", backoff, counts[2])):  # fmt: skip
            record = by[(spec, bench)]
            assert f"{record['metrics'][metric]:.4f}" == shown, (spec, bench)
            assert record["coverage"]["scored"] == int(count)
            assert record["coverage"]["gold"] == int(counts[-1])
            if metric == "spearman":
                items = load_items(tmp_path / "navec", record)
                counted = np.asarray(items["counted"], dtype=bool)
                rho = spearmanr(items["gold"][counted], items["score"][counted])[0]
                assert record["metrics"]["spearman"] == pytest.approx(rho, abs=1e-12)
