"""One default for a pair without a score (issue 47, item 6): ``score`` refused what
``evaluate`` scored 0; now both score it 0 (RUSSE's rule, what published figures use), say so
(a :class:`~simeval.errors.DefaultPolicyWarning` in Python, the record's warning on the command
line) and refuse with ``missing="error"`` (``--missing error``), one option away."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from scipy.stats import spearmanr
from typer.testing import CliRunner

import simeval
from simeval.cli import app
from simeval.errors import DefaultPolicyWarning, InputError

GOLD = [("cat", "dog", 7.5), ("cat", "car", 1.0), ("dog", "yak", 4.0), ("zebra", "cat", 2.0)]
GIVEN = {("cat", "dog"): 0.9, ("cat", "car"): 0.1, ("dog", "yak"): 0.6}  # zebra,cat unscored


def _zeroed() -> float:
    return spearmanr([g for *_, g in GOLD], [GIVEN.get((a, b), 0.0) for a, b, _ in GOLD])[0]


def test_score_and_evaluate_score_an_unscored_pair_zero_alike() -> None:
    target = simeval.benchmark_from_pairs(GOLD)
    with pytest.warns(DefaultPolicyWarning, match="left 1 of 4 items without a score"):
        (scored,) = simeval.score(target, GIVEN)
    with pytest.warns(DefaultPolicyWarning, match="left 1 of 4 items without a score"):
        (run,) = simeval.evaluate(lambda a, b: GIVEN.get((a, b), math.nan), target, name="f")
    assert scored.metrics["spearman"] == pytest.approx(_zeroed(), abs=1e-12)
    assert run.metrics["spearman"] == scored.metrics["spearman"]
    assert scored.settings["missing"] == run.settings["missing"] == "zero"


def test_the_refusal_is_one_option_away_in_python_words() -> None:
    target = simeval.benchmark_from_pairs(GOLD)
    with pytest.raises(InputError, match=r'use missing="zero"\|"skip" to score anyway'):
        simeval.score(target, GIVEN, missing="error")


def test_the_command_line_scores_it_zero_and_names_its_flag(tmp_path: Path) -> None:
    (tmp_path / "gold.tsv").write_text("".join(f"{a}\t{b}\t{s}\n" for a, b, s in GOLD))
    (tmp_path / "run.tsv").write_text("".join(f"{a}\t{b}\t{s}\n" for (a, b), s in GIVEN.items()))
    args = ["score", "pairs", "--gold", str(tmp_path / "gold.tsv"), "--pred",
            str(tmp_path / "run.tsv"), "--json"]  # fmt: skip
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    assert "scored 0 (missing: zero; --missing skip|error to change it)" in " ".join(
        done.stderr.split()
    )  # warnings wrap to the terminal
    assert f'"spearman": {_zeroed()!r}' in done.stdout or str(round(_zeroed(), 6)) in done.stdout
    refused = CliRunner().invoke(app, [*args, "--missing", "error"])
    assert refused.exit_code == 2 and "use --missing zero|skip to score anyway" in refused.stderr
