"""The leaderboard page's body, built once per board and kept between requests.

A board of 10,000 runs is megabytes of HTML, so rendering it for every reader would spend the
server process on what the last reader already got. :class:`BoardPages` keeps each page's body
for as long as what it shows stays the same: the board table (a new object after every
recorded run or audited change: :mod:`simeval.serve.service.board_cache`), its tiers, the
signed-in team whose rows are highlighted, the exclusions, the reopenings, the phase's own
fields, and the two moments that change the page (the phase opening, the scores revealed).
The one thing that moves with every request is the countdown, which carries the server's
clock: it is rendered again and put in place of the kept one (a page whose countdown is not
found as rendered is built afresh, never served stale).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from datetime import datetime

from simeval.serve.db.models import Phase, utc
from simeval.serve.views import pages

# bodies kept (boards x parts x signed-in teams; 2.2 MB each at 10,000 runs): the first
# kept goes first
MAX_PAGES = 32


class BoardPages:
    """Kept leaderboard bodies, one per (phase, part, team shown), each with its key."""

    def __init__(self, size: int = MAX_PAGES) -> None:
        self.size = size
        self.builds = 0  # bodies rendered (what the cache saves is the difference to reads)
        # where -> (the objects shown, the key, the body, the ``now`` it was rendered at)
        self._kept: dict[Hashable, tuple[tuple[object, ...], Hashable, str, datetime]] = {}
        self._lock = threading.Lock()

    def body(
        self,
        where: Hashable,
        shown: tuple[object, ...],
        key: Hashable,
        phase: Phase,
        now: datetime,
        build: Callable[[datetime], str],
    ) -> str:
        """The body of the page ``where`` (its phase, part, team) at ``now``: the kept one
        when it was built from the same ``shown`` objects (the table, its tiers: by identity,
        a table is never compared cell by cell) and an equal ``key``, its countdown brought
        to ``now``; else ``build(now)``, kept."""
        with self._lock:
            kept = self._kept.get(where)
        if kept is not None and _same(kept[0], shown) and kept[1] == key:
            deadline = utc(phase.deadline)
            then = pages.countdown(deadline, kept[3], "strong")
            if then in kept[2]:
                return kept[2].replace(then, pages.countdown(deadline, now, "strong"), 1)
        body = build(now)
        with self._lock:
            self.builds += 1
            self._kept.pop(where, None)
            if len(self._kept) >= self.size:
                self._kept.pop(next(iter(self._kept)))
            self._kept[where] = (shown, key, body, now)
        return body


def phase_key(phase: Phase) -> tuple[object, ...]:
    """What the page shows of the phase itself (an organiser may change it)."""
    return (phase.name, phase.opens, phase.deadline, phase.runs, phase.per_day, phase.combine)


def _same(kept: tuple[object, ...], shown: tuple[object, ...]) -> bool:
    return len(kept) == len(shown) and all(a is b for a, b in zip(kept, shown, strict=True))
