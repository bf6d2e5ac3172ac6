"""Measure parameters at the edge (issue 30, hole 8): a size that is not positive, a count
below 0, a fraction outside (0, 1], NaN or inf, an unknown choice is refused when the spec is
read, naming the parameter and what was expected — never a traceback later."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from simeval.cli import app
from simeval.errors import InputError
from simeval.measures import create_measure


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("encoder:batch=0", "batch='0', expected an integer ≥ 1"),
        ("encoder:batch=-5", "batch='-5', expected an integer ≥ 1"),
        # a batch beyond any memory was accepted, and the model loaded (fuzz: measure-spec)
        ("encoder:batch=99999999999999999999", "expected an integer ≥ 1 and ≤ 1048576"),
        ("orthographic:n=0", "n='0', expected an integer ≥ 1"),
        ("combine:depth=0", "depth='0', expected an integer ≥ 1"),
        ("dictionary:translations=0", "translations='0', expected an integer ≥ 1"),
        ("dictionary:max_df=nan", "max_df='nan', expected a finite number > 0 and ≤ 1"),
        ("hapax:max_df=0", "max_df='0', expected a finite number > 0 and ≤ 1"),
        ("hapax:max_df=inf", "max_df='inf', expected a finite number > 0 and ≤ 1"),
        ("hapax:csls=-1", "csls='-1', expected an integer ≥ 0"),
        ("procrustes:dim=0", "dim='0', expected an integer ≥ 1"),
        ("procrustes:workers=0", "workers='0', expected an integer ≥ 1"),
        ("encoder:backend=tpu", "backend='tpu', expected one of torch, onnx"),
    ],
)
def test_bad_parameters_name_the_parameter(spec: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        create_measure(spec)
    assert message in str(caught.value)


def test_encoder_batch_zero_on_the_command_line_is_one_line_and_exit_2() -> None:
    done = CliRunner().invoke(app, ["evaluate", "encoder:batch=0", "-b", "sts12-msrpar"])
    assert done.exit_code == 2, done.output
    assert "batch='0', expected an integer ≥ 1" in done.stderr
    assert "Traceback" not in done.output


@pytest.mark.parametrize(
    ("spec", "reason"),
    [
        ("orthographic:kind=" + "x" * 20_000, "expected one of levenshtein, prefix, dice"),
        ("ortho graphic:kind=" + "x" * 20_000, "expected name[:key=value,...]"),
        ("orthographic:" + "x" * 20_000 + "=1", "unknown parameter(s)"),
    ],
    ids=["long-value", "long-spec", "long-key"],
)
def test_a_long_spec_keeps_the_reason_in_view(spec: str, reason: str) -> None:
    """The spec was quoted whole, and the message cut at 3,000 characters before its reason
    (fuzz: measure-spec): now the spec is cut, the reason kept."""
    with pytest.raises(InputError) as caught:
        create_measure(spec)
    assert reason in str(caught.value) and len(str(caught.value)) < 600, str(caught.value)[-200:]
