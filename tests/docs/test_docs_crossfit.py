"""docs/guide/strong-baselines.md, the cross-fitted combination: its block is run on a reduced
setting (STS-2012 train's SMT-europarl pairs only, one epoch; the 2 folds shown), so that the
pipeline of the full command (fine-tune, cross-fit, evaluate, results) is checked end to end;
the table's figures come from the block as shown, which takes most of an hour on two shared
cores. Checked against the raw file: the folds' sizes and distinct pairs; against the encoder
folder: the settings each fold's encoder was given; against a combination fitted without
cross-fitting on the same encoder: that its fit on the training pairs looked better, which is
why cross-fitting is needed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_readme_strong import _commands  # the same block grammar as the page's first block
from typer.testing import CliRunner

import readme_text
from simeval.cli import app

SECTION = "## Strong baselines"
SPEC = "learned:model=models/sts12-crossfit"
REDUCED = [  # (as the page shows it, as this test runs it)
    (
        'STS12="--on sts12-train-msrpar --on sts12-train-msrvid --on sts12-train-smteuroparl"',
        'STS12="--on sts12-train-smteuroparl"',
    ),
    ("--seed 0 --out models/sts12-minilm", "--seed 0 --epochs 1 --out models/sts12-minilm"),
]


def _run(args: list[str]) -> str:
    done = CliRunner().invoke(app, args, env={"COLUMNS": "250"})
    assert done.exit_code == 0, (args, done.output)
    return done.stdout


@pytest.mark.slow
def test_the_cross_fitted_combination_runs_end_to_end(data_dir: Path, monkeypatch, tmp_path):
    pytest.importorskip("sentence_transformers")
    monkeypatch.chdir(tmp_path)
    text = readme_text.section(SECTION)
    block = next(b for b in readme_text.blocks(text, "bash") if "--cross-fit" in b)
    for shown, small in REDUCED:
        assert shown in block, shown
        block = block.replace(shown, small)
    printed = "".join(_run(args) for args in _commands(block, data_dir))

    lines = (data_dir / "sts2012" / "train" / "STS.input.SMTeuroparl.txt").read_text(
        encoding="utf-8"
    )
    pairs = [line.split("\t")[:2] for line in lines.splitlines()]
    distinct = {frozenset(t.strip().lower() for t in p) for p in pairs}
    encoder = json.loads(Path("models/sts12-minilm/simeval-train.json").read_text())
    record = json.loads(Path("models/sts12-crossfit/combine.json").read_text())
    folds = record["cross_fit"]
    assert folds["folds"] == 2 and record["pairs"] == len(pairs) == 734
    assert [f["held_out"] + f["trained_on"] for f in folds["fold_sizes"]] == [734, 734]
    assert sum(f["distinct_held_out"] for f in folds["fold_sizes"]) == len(distinct)
    assert abs(folds["fold_sizes"][0]["distinct_held_out"] - len(distinct) / 2) <= 0.5
    assert folds["refitted"] == {"encoder:model=models/sts12-minilm": encoder["config"]}
    assert encoder["config"]["epochs"] == 1
    assert not list(Path("models").glob(".cross-fit-*"))  # fold encoders removed

    # the page's table: the block's measure as a column, each row printed by the block
    table = next(t for t in readme_text.tables(text) if f"`{SPEC}`" in t[0] or SPEC in t[0])
    legend = dict(re.findall(r"^\[(\d+)\] (\S+)$", printed, flags=re.M))
    assert SPEC in legend.values()
    for row in table[2:]:
        assert re.search(rf"{row[0]}\s*│\s*{row[1]}\s*│\s*-?\d\.\d{{4}}", printed), row

    # without cross-fitting, the encoder's scores of pairs it was trained on look better
    plain = ["train", "combine", "--on", "sts12-train-smteuroparl", "--out", "models/plain"]
    _run([*plain, "--measure", "encoder:model=models/sts12-minilm"])
    fitted = json.loads(Path("models/plain/combine.json").read_text())["cross_validated"]
    assert fitted["value"] > record["cross_validated"]["value"]
