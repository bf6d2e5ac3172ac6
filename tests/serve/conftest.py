"""Fixtures of the server's tests (the kit itself is ``tests/serve_kit.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from serve_kit import OPENS, Clock, make_server


@pytest.fixture
def srv(tmp_path: Path, serve_db: str) -> Iterator[tuple[Any, Clock]]:
    """A server of :data:`serve_kit.CAMPAIGN` a day after it opened, and its clock: on SQLite,
    and on PostgreSQL where one is given."""
    clock = Clock(OPENS + timedelta(days=1))
    server = make_server(serve_db, tmp_path / "srv", clock)
    yield server, clock
    server.db.dispose()
