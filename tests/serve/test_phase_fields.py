"""A phase's fields are declared once (:class:`PhaseSpec`): the file's keys, the row and the
console's summary come from that declaration, so a phase read from a file, stored as a row
and read back is the same phase, and the summary shows every field."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

from simeval.serve.service.campaigns import (
    OPTIONAL_KEYS,
    PHASE_KEYS,
    phase_row,
    phase_spec,
    read_phase,
)
from simeval.serve.service.console import PhaseSummary

TABLE = {  # every key, none at its default
    "name": "dev",
    "targets": ["mc30", "rg65"],
    "opens": datetime(2030, 1, 2, 3, 4, tzinfo=UTC),
    "deadline": datetime(2030, 2, 3, 4, 5, tzinfo=UTC),
    "runs": 3,
    "max_bytes": 4096,
    "hidden": True,
    "per_day": 2,
    "combine": "mean-rank",
    "public_share": 0.25,
    "final_runs": 1,
}


def test_the_file_keys_are_the_declared_ones() -> None:
    assert set(TABLE) == PHASE_KEYS
    assert {"hidden", "per_day", "combine", "public_share", "final_runs"} == OPTIONAL_KEYS


def test_a_phase_stored_and_read_back_is_the_same_phase() -> None:
    spec = read_phase(TABLE, "phase 1", None)
    assert {k: getattr(spec, k) for k in TABLE} == TABLE
    row = phase_row(spec, campaign_id=1)
    assert row.split_seed  # a split phase gets its secret seed
    assert row.opens.tzinfo is None  # stored naive, in UTC
    assert phase_spec(row) == spec  # hidden_default: False both, the file gave hidden


def test_the_console_summary_shows_every_declared_field() -> None:
    spec = read_phase(TABLE, "phase 1", None)
    summary = PhaseSummary(spec, None, 5, 1, {})
    for f in dataclasses.fields(spec):
        assert getattr(summary, f.name) == getattr(spec, f.name)
    assert summary.scored == 5
    assert summary.state(datetime(2030, 1, 10, tzinfo=UTC)) == "open"
