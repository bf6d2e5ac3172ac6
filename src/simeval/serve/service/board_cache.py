"""The live leaderboards of a server's phases, kept between requests.

A phase's board is built from the records of its scored runs (:func:`.board_table.board`) and kept
until a run is recorded (:meth:`Boards.recorded`; one server per database records every
upload) or an organiser changes something (every change is audited: exclusions, baselines,
renames, re-scoring, publication, whichever process made it). Two things keep it cheap at
thousands of runs:

- each run's records are read from the database (and their JSON parsed) once, and kept with
  only the fields a board reads (:data:`BOARD_FIELDS`); a build after new runs reads only the
  new rows. An audited change drops what was kept: every row is read again;
- a board of :data:`LAG_FROM` runs or more is answered from its last build while the next one
  is built in a thread of its own, one build at a time, and the next starts no sooner than
  :data:`LAG_SECONDS` (or :data:`LAG_FACTOR` times as long as the last build took, if longer)
  after the last ended: under a stream of uploads a reader never waits for a build, building
  takes at most a quarter of the server process's time (the rest receives and records
  uploads and answers readers: one interpreter lock serves them all), and the board lags the
  newest scores by a few seconds at 10,000 RUSSE runs (``benchmarks/serve_throughput.py``).
  A smaller board is built before the answer, so a read after an upload shows its run.

``on_built`` (set by the app) is called with each new board (the phase, the table, the part)
in the thread that built it, so that the answer made of it (the API's JSON) is ready before a
reader asks.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select

from simeval.serve.db import Database
from simeval.serve.db.models import SCORED, AuditEntry, Campaign, Phase, Submission, Team

log = logging.getLogger("simeval.serve")
LAG_FROM = 1_000  # runs from which a board is answered from its last build while rebuilt
LAG_SECONDS = 1.0  # ... and rebuilt at most this often
LAG_FACTOR = 3.0  # ... or, after a long build, this many times its time later
BOARD_FIELDS = ("benchmark", "task", "main_metric", "metrics", "settings", "flags", "system")
CHUNK = 500  # submission ids a query reads at once


@dataclass
class Run:
    """One scored file of a run as the board reads it: its system, its records (named,
    trimmed to :data:`BOARD_FIELDS`) as entries of a grid, whether it is an organisers'
    baseline, the target it was sent to (what an exclusion of one target drops)."""

    system: str
    entries: list[Any]
    baseline: bool
    target: str | None = None


@dataclass
class Kept:
    """What is kept of one board: the runs read under ``audit``, the last board built and its
    key (the audit, the runs recorded since the server started, the part), a build under
    way."""

    audit: Any = None
    runs: dict[str, Run] = field(default_factory=dict)
    built: tuple[Any, Any] | None = None
    building: bool = False
    ready: float = 0.0  # (monotonic clock) a large board's next build starts no sooner


class Boards:
    """The kept boards of the server's phases (module docstring)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.lag_from, self.lag_seconds, self.lag_factor = LAG_FROM, LAG_SECONDS, LAG_FACTOR
        self.on_built: Callable[[Phase, Any, str | None], Any] | None = None
        self._kept: dict[tuple[int, str | None], Kept] = {}  # (phase id, part) -> its board
        self._recorded: dict[int, int] = {}  # phase id -> runs recorded since the start
        self._lock = threading.Lock()

    def recorded(self, phase_id: int) -> None:
        """A run of the phase was recorded: its boards are built again."""
        with self._lock:
            self._recorded[phase_id] = self._recorded.get(phase_id, 0) + 1

    def shown(self, phase_id: int) -> int:
        """The rows of the phase's whole board as last built (0 if never built): after an
        upload its board has at least as many, unless an organiser excluded runs since."""
        with self._lock:
            kept = self._kept.get((phase_id, None))
            return len(kept.built[1].rows) if kept and kept.built is not None else 0

    def clear(self) -> None:
        """Forget every kept board and run (what a server's first request meets)."""
        with self._lock:
            self._kept.clear()

    def table(
        self,
        c: Campaign,
        p: Phase,
        part: str | None = None,
        rows: Callable[[], list[tuple[str, int, list[Any], bool, str]]] | None = None,
    ) -> Any:
        """The phase's board: kept, built here, or (a large board, while a newer one is
        built) the last one built. A split phase's ``part`` (public or private: :mod:`.split_rule`)
        is built from ``rows``, its ``(team, run, records, baseline, target)``, read afresh each
        time."""
        with self.db.reading() as s:
            audit = (c.title, s.scalar(select(func.max(AuditEntry.id))))
        where = (p.id, part)
        with self._lock:
            kept = self._kept.setdefault(where, Kept())
            key = (audit, self._recorded.get(p.id, 0), part)
            if kept.built is not None and kept.built[0] == key:
                return kept.built[1]
            if kept.built is not None and len(kept.runs) >= self.lag_from:
                if not kept.building and time.monotonic() >= kept.ready:
                    kept.building = True
                    args = (c, p, key, rows)
                    threading.Thread(target=self._rebuild, args=args, daemon=True).start()
                return kept.built[1]
        return self._build(c, p, key, rows)

    def _rebuild(self, c: Campaign, p: Phase, key: Any, rows: Any) -> None:
        try:
            self._build(c, p, key, rows)
        except Exception:  # the next read tries again; meanwhile the last board is answered
            log.exception("building the leaderboard of %s failed", p.name)
        finally:
            with self._lock:
                self._kept[(p.id, key[2])].building = False

    def _build(self, c: Campaign, p: Phase, key: Any, rows: Any) -> Any:
        from simeval.report.collect import grid_of
        from simeval.serve.service.board_table import board
        from simeval.serve.service.campaigns import exclusion_on
        from simeval.serve.service.editing import exclusions

        audit, began, where = key[0], time.monotonic(), (p.id, key[2])
        if rows is None:
            order, runs = self._runs(p, where, audit)
        else:
            runs = {str(i): self._run(*row) for i, row in enumerate(rows())}
            order = list(runs)
        out = exclusions(self.db, p.id)  # a whole run's, or one target's file of it
        shown = [runs[sid] for sid in order if sid in runs
                 and exclusion_on(out, runs[sid].system, runs[sid].target) is None]  # fmt: skip
        table = board(grid_of([e for run in shown for e in run.entries]), prune=False,
                      title=f"{c.title}: {p.name}", order=p.targets, combine=p.combine,
                      baselines={run.system for run in shown if run.baseline},
                      every_target=True)  # fmt: skip
        with self._lock:
            kept = self._kept[where]
            if kept.built is not None and kept.built[0] == key:  # built twice at once (a page,
                return kept.built[1]  # the tiers' refresh): every reader gets the one kept
            kept.audit, kept.runs = audit, {sid: runs[sid] for sid in order if sid in runs}
            kept.built = (key, table)
            ended = time.monotonic()
            kept.ready = ended + max(self.lag_seconds, self.lag_factor * (ended - began))
        if self.on_built is not None:
            self.on_built(p, table, key[2])
        return table

    def _runs(self, p: Phase, where: Any, audit: Any) -> tuple[list[str], dict[str, Run]]:
        """The phase's scored submissions in the order they were received, and their runs:
        those kept under the same ``audit``, and the others read now."""
        with self._lock:
            kept = self._kept[where]
            runs = dict(kept.runs) if kept.audit == audit else {}
        with self.db.reading() as s:
            order = s.scalars(
                select(Submission.id)
                .where(Submission.phase_id == p.id, Submission.status == SCORED)
                .order_by(Submission.received, Submission.id)
            ).all()
        runs.update(self._read([sid for sid in order if sid not in runs]))
        return list(order), runs

    @staticmethod
    def _run(
        team: str, run: int, results: list[Any] | None, baseline: bool, target: str | None = None
    ) -> Run:
        """One run's file's records (sent to ``target``) as a board reads them."""
        from simeval.serve.service.board_table import entries_of, records_of, system_of

        slim = [{k: r[k] for k in BOARD_FIELDS if k in r} for r in results or []]
        entries = entries_of(records_of([(team, run, slim)]))
        return Run(system_of(team, run), entries, baseline, target)

    def _read(self, ids: list[str]) -> dict[str, Run]:
        """The runs of these scored submissions, read from the database."""
        found: dict[str, Run] = {}
        for start in range(0, len(ids), CHUNK):
            with self.db.reading() as s:
                rows = s.execute(
                    select(Submission.id, Team.name, Submission.run, Submission.results,
                           Team.baseline, Submission.target)
                    .join(Team, Submission.team_id == Team.id)
                    .where(Submission.id.in_(ids[start : start + CHUNK]))
                ).all()  # fmt: skip
            for sid, team, run, results, baseline, target in rows:
                found[sid] = self._run(team, run, results, baseline, target)
        return found
