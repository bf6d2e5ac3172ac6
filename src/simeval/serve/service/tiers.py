"""Rank tiers on the server's leaderboard, computed as ``simeval leaderboard --tiers`` computes
them on a results folder (:func:`simeval.report.tiers.grid_tiers`, no second implementation):
each benchmark column of a phase's board gets every run's 95% rank interval from a paired
bootstrap over items, LMArena's rank upper bound and a significance tier.

- **From what**: each scored run's records as the results store holds them, with their
  per-item rows (:func:`.results.stored_records`), named ``<team> run <n>`` as on the board.
- **Which runs**: the runs the board ranks. Disqualified and withdrawn runs are not on it;
  the organisers' baselines are shown on the board (marked) but left out of the tiers, as they
  are left out of the teams' ranks: a team's interval counts teams only.
- **Parameters**: those of ``simeval leaderboard --tiers`` by default (:data:`REPLICATES`,
  :data:`SEED`, :data:`LEVEL`, :data:`ALPHA`), so the same results give the same tiers, here
  and offline.
- **Off the request path**: the bootstrap takes seconds to minutes on a large phase
  (``benchmarks/tiers_speed.py``). :class:`BoardTiers` computes it from one background
  thread and keeps it with the board table it was computed for (the board cache of
  :class:`.submit.Service` decides when a table is stale, so the tiers of a table are never
  stale); until they are ready the page shows the strict board. A server with scoring
  processes (``--scorers N``) computes them in one more process of its own, started afresh
  (spawn) like the scorers, so the bootstrap never holds the server's interpreter lock nor
  takes a scorer; without, in the thread itself.
- **Up to** :data:`MAX_RUNS` runs: the bootstrap ranks every run in every replicate (memory
  grows with the square of the runs) and the greedy tiers test pairs of runs, so a larger
  board (a load test's thousands) gets none; ``simeval leaderboard --tiers`` on the export
  computes them offline.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from simeval.report.leaderboard import Table

log = logging.getLogger("simeval.serve")

REPLICATES = 1000
MAX_RUNS = 200  # above this many runs on a board no tiers are computed (module docstring)
SEED = 0
LEVEL = 0.95
ALPHA = 0.05
Found = dict[str, Any]  # benchmark -> simeval.report.tiers.Tiers
Run = tuple[str, Sequence[dict[str, Any]], Path]  # system, its records, their items' folder


def board_benchmarks(table: Table) -> list[str]:
    """The benchmark columns of a board (between the system and the sum)."""
    return list(table.columns[2:-1])


def grid_of_runs(runs: Sequence[Run]) -> Any:
    """Runs ``(system, records, folder of their items)`` as a grid whose entries read their
    per-item rows (a later record of a system and benchmark wins, as in a results folder)."""
    from simeval.report.collect import Entry, grid_of

    return grid_of([Entry(system, r, folder) for system, records, folder in runs for r in records])


def tiers_of_grid(grid: Any, benchmarks: Sequence[str], how: Any = None) -> Found:
    """Each benchmark's tiers (:func:`simeval.report.tiers.grid_tiers`) over the grid's runs
    (``how``: a :class:`~simeval.metrics.stats.Resampling`; None: the module's parameters)."""
    from simeval.metrics.stats import Resampling
    from simeval.report.tiers import grid_tiers

    if len(grid.systems) > MAX_RUNS:
        return {}
    how = how or Resampling(REPLICATES, SEED, LEVEL, ALPHA)
    present = [b for b in benchmarks if any(grid.get(s, b) for s in grid.systems)]
    return {b: grid_tiers(grid, b, how) for b in present}


def compute(
    runs: Sequence[tuple[str, Sequence[dict[str, Any]], Path]], benchmarks: Sequence[str]
) -> Found:
    """:func:`tiers_of_grid` of :func:`grid_of_runs` (what a tiers process is sent: names,
    records and paths, all picklable)."""
    return tiers_of_grid(grid_of_runs(runs), benchmarks)


def tiered(table: Table, found: Found) -> Table:
    """The board with each benchmark's rank interval, upper bound and tier appended (named
    ``<benchmark> tier`` … when the board has more than one benchmark); a run not tiered (a
    baseline, a run without per-item rows) shows none. The method goes in :func:`method`,
    not in the table's note."""
    from dataclasses import replace

    from simeval.report.tiers import TIER_COLUMNS, with_tiers

    note, several = table.note, len(found) > 1
    for bench, tiers in found.items():
        size = len(table.columns)
        table = with_tiers(table, tiers)
        if several:
            names = [f"{bench} {c}" for c in TIER_COLUMNS]
            table = replace(table, columns=[*table.columns[:size], *names])
    return replace(table, note=note)


def tier_tables(table: Table, found: Found) -> list[Table]:
    """For a board of several benchmarks, one table per benchmark, as ``simeval leaderboard
    --tiers`` prints them: the tiered runs ranked on it, each with its score, rank interval,
    upper bound and tier (the board itself stays narrow: three columns per benchmark beside
    it would not fit a screen). Baselines are left out, as they are not tiered."""
    from dataclasses import replace

    from simeval.metrics.catalog import higher_is_better
    from simeval.report.leaderboard import top_table
    from simeval.report.tiers import with_tiers

    out = []
    for bench, tiers in found.items():
        j = table.columns.index(bench)
        rows = [(i, row) for i, row in enumerate(table.rows) if row[1] in tiers.standings]
        scores = {row[1]: {bench: row[j]} for i, row in rows
                  if row[j] is not None and (i, j) not in table.absent}  # fmt: skip
        flags = {(row[1], bench) for i, row in rows if (i, j) in table.constant}
        ranked = top_table(scores, bench, len(scores), tiers.metric, flags,
                           higher_is_better(tiers.metric))  # fmt: skip
        out.append(replace(with_tiers(ranked, tiers), title=f"{bench}: rank tiers", note=""))
    return out


def method(found: Found) -> str:
    """How the tiers were computed, in words (for the page and the export)."""
    if not found:
        return ""
    how = next(iter(found.values())).how
    tests = sorted({t for tiers in found.values() for t in tiers.tests}) or ["paired"]
    items = "; ".join(f"{b}: {t.n:,} items, {t.metric}" for b, t in found.items())
    return (
        f"Per benchmark, every run's rank interval is the {how.level:.0%} percentile interval "
        f"of its rank over B = {how.replicates} paired bootstrap replicates of the items "
        f"(every run's score recomputed on the same resampled items; seed {how.seed}). "
        "UB, the rank upper bound (LMArena): 1 + the runs whose whole interval lies above. "
        "Tier: the best run left and every run whose paired test against it "
        f"({', '.join(tests)}, on the benchmark's main metric) is not significant at "
        f"α = {how.alpha:g} after Holm's correction over the comparisons with that best; "
        f"then the best run left, and so on ({items}). Baselines are shown but not tiered, "
        "as they are not ranked. simeval leaderboard --tiers gives the same tiers on a "
        "results folder of the same runs (the teams', without the baselines)."
    )


def as_json(found: Found | None) -> dict[str, Any] | None:
    """The tiers for the JSON API: the method in words and, per benchmark, its parameters and
    every run's ``interval`` ([lo, hi]), ``upper_bound``, ``tier`` and ``p_value`` (Holm's,
    against its tier's best); a run not tiered has nulls. None while computing."""
    if found is None:
        return None
    benchmarks = {}
    for bench, t in found.items():
        runs = {
            s.system: {
                "interval": None if s.interval is None else list(s.interval),
                "upper_bound": s.upper_bound,
                "tier": s.tier,
                "p_value": s.p_value,
            }
            for s in t.standings.values()
        }
        benchmarks[bench] = {"metric": t.metric, "items": t.n, "replicates": t.how.replicates,
                             "seed": t.how.seed, "level": t.how.level, "alpha": t.how.alpha,
                             "tests": t.tests, "runs": runs}  # fmt: skip
    return {"method": method(found), "benchmarks": benchmarks}


class BoardTiers:
    """The tiers of each phase's current board table, computed in one background thread.

    :meth:`get` answers at once: the tiers of that table, or None while they are computed
    (a first call starts the work). A table the board cache replaced is forgotten with its
    tiers; a computation that fails is logged and has no tiers (``{}``): the page keeps the
    strict board."""

    def __init__(self, process: bool = False) -> None:
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="simeval-tiers")
        self._process = process  # compute in a process of its own (module docstring)
        self._worker: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        # phase id -> (the board table, its tiers' future)
        self._known: dict[int, tuple[Table, Future[Found]]] = {}
        self._pending: set[int] = set()  # phases whose refresh waits in the pool

    def soon(self, phase_id: int, refresh: Callable[[], None]) -> None:
        """Run ``refresh`` (build the phase's new board and ask for its tiers) in the
        background, once for any number of scores that arrive before it starts."""
        with self._lock:
            if phase_id in self._pending:
                return
            self._pending.add(phase_id)

        def run() -> None:
            with self._lock:
                self._pending.discard(phase_id)
            try:
                refresh()
            except Exception:
                log.exception("building the leaderboard for its tiers failed")

        with contextlib.suppress(RuntimeError):  # raised when the server is shutting down
            self._pool.submit(run)

    def settle(self, timeout: float = 60) -> None:
        """Wait until every refresh asked for so far (:meth:`soon`) has run: its board is
        built and kept (tests that change the database behind the server's back)."""
        with contextlib.suppress(RuntimeError):  # shut down: nothing runs any more
            self._pool.submit(lambda: None).result(timeout)  # one thread: after the others

    def get(self, phase_id: int, table: Table, compute: Callable[[], Found]) -> Found | None:
        """The tiers of ``table`` (phase ``phase_id``'s board) if ready, else None; ``compute``
        is run in the background when the table is new."""
        with self._lock:
            known = self._known.get(phase_id)
            if known is None or known[0] is not table:
                if known is not None:  # superseded: dropped unless already running, so a
                    known[1].cancel()  # burst of scores queues one computation, not one each
                known = (table, self._pool.submit(self._run, compute))
                self._known[phase_id] = known
        future = known[1]
        if not future.done() or future.cancelled():
            return None
        return {} if future.exception() is not None else future.result()  # failed: logged

    @staticmethod
    def _run(compute: Callable[[], Found]) -> Found:
        try:
            return compute()
        except Exception:
            log.exception("computing the leaderboard's tiers failed")
            raise

    def run(self, runs: Sequence[Run], benchmarks: Sequence[str]) -> Found:
        """:func:`compute` here or in the tiers process (called from the background thread;
        a process that died is started again at the next board)."""
        if not self._process:
            return compute(runs, benchmarks)
        with self._lock:
            if self._worker is None:
                from simeval.serve.service.processes import spawn_pool

                self._worker = spawn_pool(1)
            worker = self._worker
        try:
            return worker.submit(compute, runs, benchmarks).result()
        except BrokenProcessPool:
            with self._lock:
                if self._worker is worker:
                    self._worker = None
            raise

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        with self._lock:
            if self._worker is not None:
                self._worker.shutdown(wait=False, cancel_futures=True)
                self._worker = None
