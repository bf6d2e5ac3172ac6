"""Resampling options of ``compare`` and ``report`` at the edge (fuzz: cli-options): a seed numpy
cannot take, a replicate count no memory holds, a significance level outside (0, 1) are refused
as usage errors naming the option, never a traceback or a verdict at ``p ≥ nan``."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
import typer
from typer.testing import CliRunner

from simeval.cli import app

runner = CliRunner()
GOLD = "word1\tword2\tsim\ncat\tdog\t1\ncar\tcart\t3\nsun\tsum\t2\nmoon\tmood\t5\nking\tkind\t4\n"


@pytest.fixture
def results(tmp_path: Path) -> Path:
    """A results folder holding systems A and B on one five-pair gold file."""
    gold = tmp_path / "gold.tsv"
    gold.write_text(GOLD)
    for name, scores in (("A", "0.1 0.5 0.3 0.9 0.2"), ("B", "0.3 0.1 0.2 0.9 0.7")):
        rows = [line.rsplit("\t", 1)[0] for line in GOLD.splitlines()[1:]]
        pred = tmp_path / f"{name}.tsv"
        pred.write_text("".join(f"{r}\t{s}\n" for r, s in zip(rows, scores.split(), strict=True)))
        args = ["score", "pairs", "--gold", str(gold), "--pred", str(pred), "--name", name]
        done = runner.invoke(app, [*args, "--results", str(tmp_path / "res")])
        assert done.exit_code == 0, done.output
    return tmp_path / "res"


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--seed", "-1"),  # numpy's ValueError traceback
        ("-B", "1000000000000"),  # numpy's MemoryError traceback
        ("--alpha", "0"),  # a verdict at p ≥ 0
        ("--alpha", "nan"),
        ("--alpha", "1.5"),
    ],
)
def test_compare_refuses_a_resampling_option_out_of_range(
    results: Path, option: str, value: str
) -> None:
    args = ["compare", "A", "B", "-b", str(results.parent / "gold.tsv"), "--results", str(results)]
    done = runner.invoke(app, [*args, option, value])
    assert done.exit_code == 2, done.output
    assert f"Invalid value for '{option}'" in done.output or "'-B'" in done.output, done.output
    assert done.exception is None or isinstance(done.exception, SystemExit)


def _seed_options() -> list[tuple[str, click.Parameter]]:
    """Every ``--seed`` of every command (``train``, ``build …``, ``compare``, ``report``…)."""
    found: list[tuple[str, click.Parameter]] = []

    def walk(command: click.Command, path: str) -> None:
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, f"{path} {name}".strip())
        found.extend((path, p) for p in command.params if "--seed" in p.opts)

    walk(typer.main.get_command(app), "")
    return found


def test_every_seed_option_takes_0_to_2_32_minus_1() -> None:
    """numpy's generators take no negative seed and scikit-learn's no seed of 2^32 or more:
    every ``--seed`` declares the one range numpy's legacy seeding takes (a range Typer checks,
    so the refusal is a usage error naming the option, never a traceback)."""
    options = _seed_options()
    commands = {path for path, _ in options}
    assert {"train", "build linking", "build sts-sample", "build negatives", "compare"} <= commands
    for path, option in options:
        assert (getattr(option, "min", None), getattr(option, "max", None)) == (0, 2**32 - 1), path


@pytest.mark.parametrize("seed", ["-1", str(2**32)])
def test_train_combine_refuses_a_seed_out_of_range(tmp_path: Path, seed: str) -> None:
    """``--seed -1`` ended in scikit-learn's ValueError traceback after the features."""
    out = tmp_path / "combo"
    args = ["train", "combine", "--out", str(out), "--on", "mc30", "--measure", "overlap"]
    done = runner.invoke(app, [*args, "--seed", seed])
    assert done.exit_code == 2, done.output
    assert "Invalid value for '--seed'" in done.output, done.output
    assert done.exception is None or isinstance(done.exception, SystemExit)
    assert not out.exists()
