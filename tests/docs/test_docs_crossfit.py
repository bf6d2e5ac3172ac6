"""docs/guide/strong-baselines.md, the cross-fitted combination: its block is run on a reduced
setting (STS-2012 train's SMT-europarl pairs only, one epoch; the 2 folds shown), so that the
pipeline of the full command (fine-tune, cross-fit, evaluate, results) is checked end to end;
the table's figures come from the block as shown, which takes most of an hour on two shared
cores. Of the three fine-tunings, one is real: the block's encoder, on the 734 pairs; the
combinations are fitted on :data:`COMBINE_PAIRS` of them (evenly spaced, as
``test_readme_strong`` thins), so each fold's encoder is fine-tuned on half of those (two
batches) where it was half the 734. Checked against the raw file: the pairs, the folds'
sizes and distinct pairs; against the encoder folder: the settings each fold's encoder was
given; against a combination fitted without cross-fitting on the same encoder and pairs: that
its fit on the training pairs looked better, which is why cross-fitting is needed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from test_readme_strong import (  # the same block grammar and thinning as the page's first block
    _commands,
    _thinned,
)
from typer.testing import CliRunner

import readme_text
from simeval.cli import app

SECTION = "## Strong baselines"
SPEC = "learned:model=models/sts12-crossfit"
COMBINE_PAIRS = 64  # the training pairs each combination is fitted on here (of 734)
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


def _run_thinning_combine(args: list[str], full_sets: list) -> str:
    """``args`` run; a `train combine` fitted on :data:`COMBINE_PAIRS` of its pairs (its full
    training set appended to ``full_sets``)."""
    if args[:2] != ["train", "combine"]:
        return _run(args)
    with pytest.MonkeyPatch.context() as patch:
        appended = _thinned(patch, COMBINE_PAIRS)
        printed = _run(args)
    full_sets.extend(appended)
    return printed


@pytest.mark.slow
def test_the_cross_fitted_combination_runs_end_to_end(data_dir: Path, monkeypatch, tmp_path):
    pytest.importorskip("sentence_transformers")
    monkeypatch.chdir(tmp_path)
    text = readme_text.section(SECTION)
    block = next(b for b in readme_text.blocks(text, "bash") if "--cross-fit" in b)
    for shown, small in REDUCED:
        assert shown in block, shown
        block = block.replace(shown, small)
    full_sets: list = []
    printed = "".join(_run_thinning_combine(a, full_sets) for a in _commands(block, data_dir))

    lines = (data_dir / "sts2012" / "train" / "STS.input.SMTeuroparl.txt").read_text(
        encoding="utf-8"
    )
    pairs = [line.split("\t")[:2] for line in lines.splitlines()]
    encoder = json.loads(Path("models/sts12-minilm/simeval-train.json").read_text())
    assert encoder["data"]["sts12-train-smteuroparl"]["pairs"] == len(pairs) == 734
    (full,) = full_sets  # the cross-fitted combination's: every pair, in the file's order
    assert [[x, y] for x, y in zip(full.a, full.b, strict=True)] == pairs
    kept = [pairs[i] for i in np.linspace(0, len(pairs) - 1, COMBINE_PAIRS).round().astype(int)]
    distinct = {frozenset(t.strip().lower() for t in p) for p in kept}
    record = json.loads(Path("models/sts12-crossfit/combine.json").read_text())
    folds = record["cross_fit"]
    assert folds["folds"] == 2 and record["pairs"] == COMBINE_PAIRS
    assert [f["held_out"] + f["trained_on"] for f in folds["fold_sizes"]] == [COMBINE_PAIRS] * 2
    assert sum(f["distinct_held_out"] for f in folds["fold_sizes"]) == len(distinct)
    assert abs(folds["fold_sizes"][0]["distinct_held_out"] - len(distinct) / 2) <= 0.5
    assert folds["refitted"] == {"encoder:model=models/sts12-minilm": encoder["config"]}
    assert encoder["config"]["epochs"] == 1
    assert not list(Path("models").glob(".cross-fit-*"))  # fold encoders removed

    # the page's table: the block's measure as a column, each row printed by the block
    table = next(t for t in readme_text.tables(text) if f"`{SPEC}`" in t[0] or SPEC in t[0])
    # the system is named in the table's head when it fits, else by [n] and a legend line
    legend = dict(re.findall(r"^\[(\d+)\] (\S+)$", printed, flags=re.M))
    heads = [line for line in printed.splitlines() if "┃" in line]
    assert SPEC in legend.values() or any(SPEC in line for line in heads), printed
    for row in table[2:]:
        assert re.search(rf"{row[0]}\s*│\s*{row[1]}\s*│\s*-?\d\.\d{{4}}", printed), row

    # without cross-fitting, the encoder's scores of pairs it was trained on look better
    plain = ["train", "combine", "--on", "sts12-train-smteuroparl", "--out", "models/plain"]
    _run_thinning_combine([*plain, "--measure", "encoder:model=models/sts12-minilm"], full_sets)
    fitted = json.loads(Path("models/plain/combine.json").read_text())["cross_validated"]
    assert fitted["value"] > record["cross_validated"]["value"]
