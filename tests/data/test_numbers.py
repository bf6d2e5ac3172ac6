"""Issue 44, "one funnel for every input": one number rule (the pair, STS and TREC readers':
ASCII decimal digits, no ``_``, finite) at every door that reads a number — a spec option,
a vector file's row, a number given from Python. Python's ``float()`` and ``int()`` read
``1_0`` as 10 and ``'１'`` (fullwidth) as 1; the doors must not."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from simeval.data.textio import as_number, as_numbers, parse_float, parse_int
from simeval.errors import InputError
from simeval.measures import create_measure

# each one is read by Python's float() (or int()), and refused by the readers' grammar
FLOAT_LOOKS = ["1_0", "1_000.5", "１", "١٢", "٣.٥", "1e1_0", "\u0661"]


@pytest.mark.parametrize("text", FLOAT_LOOKS)
def test_python_reads_them_the_readers_do_not(text: str) -> None:
    assert math.isfinite(float(text))  # the premise: float() accepts it
    with pytest.raises(InputError, match="expected a decimal number"):
        parse_float(text, None, None, "score")
    with pytest.raises(InputError, match="expected a decimal number"):
        as_number(text, "score")


@pytest.mark.parametrize("text", ["1_0", "１", "١", "1e3", "0x10", " "])
def test_parse_int_takes_ascii_digits_only(text: str) -> None:
    with pytest.raises(InputError, match="expected an integer"):
        parse_int(text, None, None, "n")
    assert parse_int("-12", None, None, "n") == -12


@pytest.mark.parametrize(
    ("value", "missing", "expected"),
    [(3, False, 3.0), (np.float32(0.5), False, 0.5), ("-.5e1", False, -5.0), (None, True, None)],
)
def test_as_number_takes_finite_numbers(value: object, missing: bool, expected: object) -> None:
    got = as_number(value, "x", missing=missing)
    assert math.isnan(got) if expected is None else got == expected


@pytest.mark.parametrize(
    "value", [float("inf"), float("nan"), True, np.bool_(True), 1j, b"1", [1.0], None, 10**400]
)
def test_as_number_refuses_the_rest(value: object) -> None:
    with pytest.raises(InputError, match=r"^x: "):
        as_number(value, "x")


def test_as_numbers_names_the_position_on_both_paths() -> None:
    with pytest.raises(InputError, match="prediction 2: expected a finite number"):
        as_numbers(np.array([0.1, 0.2, np.inf]), "prediction")
    with pytest.raises(InputError, match="prediction 1: expected a decimal number"):
        as_numbers(["0.5", "1_0"], "prediction")
    assert np.isnan(as_numbers(np.array([np.nan, 1.0]), "p", missing=True)[0])


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("hapax:csls=1_0", "csls='1_0', expected int"),
        ("hapax:csls=１", "csls='１', expected int"),
        ("hapax:max_df=0_5", "max_df='0_5', expected float"),
        ("hapax:max_df=٠.٥", "max_df='٠.٥', expected float"),
    ],
)
def test_spec_options_read_numbers_as_the_readers_do(spec: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        create_measure(spec)
    assert message in str(caught.value)


@pytest.mark.parametrize("bad", ["1_0", "１", "١"])
@pytest.mark.parametrize("fmt", ["word2vec", "glove"])
def test_vector_rows_read_numbers_as_the_readers_do(tmp_path: Path, bad: str, fmt: str) -> None:
    rows = ["cat 1 0 0", f"dog 0.6 {bad} 0", "car 0 0 1"]
    path = tmp_path / "v.vec"
    path.write_text("\n".join(["3 3", *rows] if fmt == "word2vec" else rows) + "\n", "utf-8")
    line = 3 if fmt == "word2vec" else 2
    measure = create_measure(f"vectors:path={path},format={fmt}")
    with pytest.raises(InputError, match=rf"v\.vec:{line}: expected numbers after the word"):
        measure.score_words([("cat", "dog")])
