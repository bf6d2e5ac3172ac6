"""Public and private leaderboards (Kaggle's split): a phase with a ``public_share`` scores
that share of its test items live and keeps the rest private until the deadline.

The rule that draws the split, stated so anyone holding the seed can redraw it:

- each item has a key (:func:`unit_keys`): a word pair's two words as
  :func:`simeval.serve.service.items.item_key` compares them (case-folded, whitespace
  collapsed, in code-point order), joined by a tab; an STS line's benchmark and line number
  (``sts12-msrvid<TAB>17``); a linking query's benchmark and query id;
- the item is public when the first 8 bytes of HMAC-SHA256(seed, key) (both UTF-8), read as
  a big-endian unsigned number, are below ``share`` × 2⁶⁴.

So the split needs no stored list, is the same for a pair wherever it occurs (the same pair in
two RUSSE parts falls on one side), and stays the same when the gold is replaced by one with
the same items. The seed is drawn with :mod:`secrets` when the phase is made; teams never see
it (nor which items are public); organisers see it in the console and the export once
the deadline has passed.

A run's public (or private) score is its metrics computed from its stored per-item rows
restricted to those items, by the last step of the path ``simeval score`` and the uploads take
(:func:`simeval.kinds.scoring.score_rows`, the metric set of its task kind over aligned rows):
nothing is read or aligned again and no metric is written twice. Until the deadline (and
publication, for a hidden phase) teams see public scores only.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from simeval.results.store import RESULTS_FILE
from simeval.serve.db.models import Phase, utc
from simeval.serve.service.items import item_key
from simeval.serve.service.refused import Refused

PUBLIC = "public"
PRIVATE = "private"
SEED_BYTES = 16  # 32 hex digits


def new_seed() -> str:
    """A fresh secret seed of a phase's split."""
    return secrets.token_hex(SEED_BYTES)


def is_split(phase: Phase) -> bool:
    """Whether ``phase`` scores a public share live and keeps the rest private."""
    return phase.public_share is not None and phase.split_seed is not None


def revealed(phase: Phase, now: datetime) -> bool:
    """Whether the private scores of ``phase`` may be shown: its deadline passed (and, for a
    hidden phase, its scores were published)."""
    if now <= utc(phase.deadline):
        return False
    return not phase.hidden or phase.published is not None


def share_text(share: float) -> str:
    """A share as the phase's page states it (``30%``)."""
    return f"{share * 100:.4g}%"


def is_public(seed: str, key: str, share: float) -> bool:
    """Whether the item of ``key`` is public (module docstring)."""
    digest = hmac.new(seed.encode(), key.encode("utf-8"), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") < share * 2**64


def unit_keys(items: Mapping[str, np.ndarray], benchmark: str) -> list[str]:
    """The key of every per-item row (module docstring); a suite's rows name their member
    in a ``benchmark`` column."""
    n = len(next(iter(items.values())))
    if "word1" in items and "word2" in items:
        return ["\t".join(item_key(p)) for p in zip(items["word1"], items["word2"], strict=True)]
    member = items["benchmark"] if "benchmark" in items else [benchmark] * n
    for column in ("item", "qid"):
        if column in items:
            return [f"{b}\t{i}" for b, i in zip(member, items[column], strict=True)]
    raise ValueError(f"{benchmark}: its items have no key to split them by")


def public_mask(items: Mapping[str, np.ndarray], benchmark: str, seed: str, share: float) -> Any:
    """True for each public row of ``items``."""
    return np.array([is_public(seed, k, share) for k in unit_keys(items, benchmark)], dtype=bool)


def part_record(
    record: dict[str, Any], folder: Path, seed: str, share: float, part: str
) -> dict[str, Any]:
    """``record`` with its metrics over the ``part`` (:data:`PUBLIC` or :data:`PRIVATE`)
    items alone, computed from its rows in ``folder``; what else it holds of the full set
    (the breakdown, its items file) left out. A record without rows has no score."""
    from simeval.kinds.scoring import score_rows
    from simeval.results.store import load_items

    items = load_items(folder, record)
    metrics: dict[str, float | None] = dict.fromkeys(record.get("metrics", {}))
    if items is not None:
        mask = public_mask(items, str(record["benchmark"]), seed, share)
        keep = mask if part == PUBLIC else ~mask
        rows = {k: np.asarray(v)[keep] for k, v in items.items()}
        found = score_rows(str(record["task"]), rows)
        metrics = {k: (None if v != v else float(v)) for k, v in found.items()}
    shown = {k: v for k, v in record.items() if k not in ("breakdown", "items_file")}
    return {**shown, "metrics": metrics, "part": part}


class PartCache:
    """Part records by (store file, its modification time, seed, share, part): computed once
    per scored file (a re-scored file has a new time), for the board and the team's pages."""

    def __init__(self, size: int = 100_000) -> None:
        self._found: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
        self._lock = threading.Lock()
        self.size = size

    def records(
        self, records: Sequence[dict[str, Any]], folder: Path, phase: Phase, part: str
    ) -> list[dict[str, Any]]:
        """The ``part`` records of one scored file's ``records`` (items in ``folder``)."""
        assert phase.split_seed is not None and phase.public_share is not None
        try:
            stamp = (folder / RESULTS_FILE).stat().st_mtime_ns
        except OSError:
            stamp = None
        key = (str(folder), stamp, phase.split_seed, phase.public_share, part)
        with self._lock:
            found = self._found.get(key)
        if found is None:
            found = [
                part_record(r, folder, phase.split_seed, phase.public_share, part) for r in records
            ]
            with self._lock:
                if len(self._found) >= self.size:
                    self._found.clear()
                self._found[key] = found
        return found


parts = PartCache()  # one per process: the records of a stored file never change


def board_part(phase: Phase, now: datetime, asked: str | None) -> str | None:
    """Which board of ``phase`` to build: None for a phase without a split; else ``asked``
    (:data:`PUBLIC` or :data:`PRIVATE`) or, by default, the private board once
    :func:`revealed` and the public one before. The private board is refused before."""
    if not is_split(phase):
        return None
    if asked not in (None, PUBLIC, PRIVATE):
        raise Refused(422, f"board: {PUBLIC} or {PRIVATE}, not {asked!r}")
    shown = revealed(phase, now)
    if asked == PRIVATE and not shown:
        raise Refused(403, f"the private leaderboard of {phase.name} is shown after its deadline")
    return asked or (PRIVATE if shown else PUBLIC)
