"""What the tests of public and private leaderboards share: a campaign whose phase ``dev``
scores a public 30% of yp130's pairs live (``open``: a phase without a split), a server of
it, and the split's rule written again, independently of the server's code."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np

from serve_kit import OPENS, Clock, campaign_toml, make_server, phase_toml

SPLIT = campaign_toml(
    "priv25",
    phase_toml("dev", ["yp130"], runs=3) + "public_share = 0.3\nfinal_runs = 2\n",
    phase_toml("open", ["mc30"], runs=2),
    title="Split 2025",
)
YP130 = "wordsets_en/EN-YP-130.txt"


def split_server(tmp_path: Path, serve_db: str) -> Iterator[tuple[Any, Clock]]:
    """A server of :data:`SPLIT` a day after it opened, and its clock (a fixture's body)."""
    clock = Clock(OPENS + timedelta(days=1))
    server = make_server(serve_db, tmp_path / "srv", clock, campaign=SPLIT)
    yield server, clock
    server.db.dispose()


def drawn_public(seed: str, pairs: list[tuple[str, str, float]], share: float) -> np.ndarray:
    """The documented rule, written again: the two words case-folded with whitespace
    collapsed, in code-point order, joined by a tab; public when HMAC-SHA256(seed, key)'s
    first 8 bytes, big-endian, are below share × 2**64."""
    out = []
    for a, b, _ in pairs:
        a, b = sorted(" ".join(w.split()).casefold() for w in (a, b))
        digest = hmac.new(seed.encode(), f"{a}\t{b}".encode(), hashlib.sha256).digest()
        out.append(int.from_bytes(digest[:8], "big") < share * 2**64)
    return np.array(out)


def seed_of(server: Any, phase: str = "dev") -> str:
    from sqlalchemy import select

    from simeval.serve.db.models import Phase

    with server.db.reading() as s:
        return s.scalar(select(Phase.split_seed).where(Phase.name == phase))
