"""A record's breakdown holds its parts' metrics; an undefined one (NaN: an analogy section
with no answered question) is written null, as the record's own metrics are, so the record
reads back (the reader refuses a NaN)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from simeval.results.record import Result
from simeval.results.store import load_results, save_results


def test_an_undefined_breakdown_value_is_written_null_and_reads_back(tmp_path: Path) -> None:
    r = Result(
        benchmark="b",
        task="analogy",
        main_metric="accuracy",
        metrics={"accuracy": 0.5},
        breakdown={"family": {"accuracy": math.nan, "answered": 0.0}},
    )
    assert json.loads(r.to_json())["breakdown"]["family"]["accuracy"] is None
    save_results(tmp_path, [r])
    (record,) = load_results(tmp_path)
    assert record["breakdown"]["family"] == {"accuracy": None, "answered": 0.0}
