"""docs/guide/russian.md, "The RUSSE combination": its three command blocks run end to end on
a reduced setting — AE's combination is trained as the page says and stands in for RT's and
AE2's too (the three take about a quarter of an hour on this machine). Checked: every command
runs as written, every test pair is scored, and the page's AE figures, which the reduced run
computes exactly as the full one, are the ones printed; the AE figure is recomputed here from
the saved per-pair rows with scikit-learn's average precision."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import average_precision_score
from typer.testing import CliRunner

import readme_text
from simeval.cli import app
from simeval.results.store import load_items

pytest.importorskip("navec")

SECTION = "## The RUSSE combination"
PAIRS = {"russe-hj": 333, "russe-rt": 9548, "russe-ae": 1952, "russe-ae2": 3002}


def _section() -> str:
    page = readme_text.doc("guide/russian.md")
    start = page.index(SECTION)
    end = page.find("\n## ", start + 1)
    return page[start : end if end >= 0 else len(page)]


def _run(line: str, work: Path, data_dir: Path) -> None:
    line = line.replace("../shared/data", str(data_dir))
    line = re.sub(r"\b(models|results)/", lambda m: f"{work}/{m.group(1)}/", line)
    args = shlex.split(line)
    if args[:3] == ["simeval", "train", "combine"] and "russe-ae-train" not in args:
        out = Path(args[args.index("--out") + 1])
        out.symlink_to(out.with_name("russe-ae"))  # the reduction
        return
    done = CliRunner().invoke(app, args[1:], env={"COLUMNS": "200"})
    assert done.exit_code == 0, (line, done.output)


def _records(work: Path, name: str) -> dict[tuple[str, str], dict]:
    """(benchmark, spec as the page writes it) → record, of results/NAME."""
    lines = (work / "results" / name / "results.jsonl").read_text().splitlines()
    rows = [json.loads(x) for x in lines]
    return {(r["benchmark"], r["system"]["spec"].replace(f"{work}/", "")): r for r in rows}


@pytest.mark.slow
def test_the_combination_runs_end_to_end(tmp_path: Path, data_dir: Path) -> None:
    train, evaluate, ablation = readme_text.blocks(_section(), "bash")
    lines = [x.strip() for x in train.strip().splitlines()]
    lines.sort(key=lambda x: " train combine " in x and "russe-ae-train" not in x)
    for line in [*lines, *evaluate.strip().splitlines(), *ablation.strip().splitlines()]:
        _run(line.strip(), tmp_path, data_dir)
    combined = _records(tmp_path, "russe-combined")
    assert {b for b, _ in combined} == set(PAIRS)
    for (bench, _), r in combined.items():
        assert r["coverage"]["scored"] == r["coverage"]["gold"] == PAIRS[bench]
    ae = combined[("russe-ae", "learned:model=models/russe-ae")]
    tables = readme_text.tables(_section())
    shown = {row[0]: row for row in tables[0][2:]}
    assert f"{ae['metrics']['ap_trapezoid']:.4f}" == shown["russe-ae"][3].strip("*")
    assert f"{ae['metrics']['ap']:.4f}" == shown["russe-ae"][4]
    items = load_items(tmp_path / "results/russe-combined", ae)
    step = average_precision_score(np.asarray(items["gold"]) > 0.5, items["score"])
    assert ae["metrics"]["ap"] == pytest.approx(step, abs=1e-9)
    tiers = _records(tmp_path, "russe-ablation")
    spec = "graph:path=models/ru-graph,fallback=learned,learned=models/russe-ae"
    row = {r[0]: r for r in tables[1][2:]}["+ graph tiers over the combination"]
    assert f"{tiers[('russe-ae', spec)]['metrics']['ap_trapezoid']:.4f}" == row[3]
    record = json.loads((tmp_path / "models/russe-ae/combine.json").read_text(encoding="utf-8"))
    assert record["data"]["russe-ae-train"]["excluded"] == 153  # test pairs, both directions
