"""Scoring one received upload: its result records, with their per-item rows written beside
the upload, or the validation error as ``simeval score`` prints it, naming the client's file.
In a hidden phase the file is first checked against the input alone, then scored with blank
STS lines allowed anywhere, and an error only the gold finds still takes a run
(:mod:`.hidden`).

Scoring is Python that holds the interpreter lock, so one server process scores about as
fast as one ``simeval score`` however many uploads wait (``benchmarks/serve_load.py``).
:class:`Scorers` runs it in the server's process (``processes=0``, the default) or in a pool
of that many processes started afresh (spawn: nothing of the server's threads is copied),
each keeping the targets it loaded. A job carries only paths and names, the answer only JSON
records or an error, so both cross the process boundary as they are. A scoring process that
dies costs no upload: its jobs are scored again in a new pool (:class:`Scorers`).
"""

from __future__ import annotations

import logging
import os
import shutil
import threading
import weakref
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from simeval.errors import InputError
from simeval.kinds import handout
from simeval.serve.db.storage import UPLOAD
from simeval.serve.service.campaigns import Gold, Targets, json_safe
from simeval.serve.service.processes import spawn_pool

log = logging.getLogger("simeval.serve")
ATTEMPTS = 2  # a job whose pool broke is scored once more, in a new pool
ITEMS_LEVEL = 1  # gzip level of per-item rows: 1/5 of level 6's time for 1.2x the bytes (RUSSE)
_TARGETS = Targets()  # the targets loaded by this process when it is a scoring process


@dataclass(frozen=True)
class Job:
    """One upload to score: its folder (``upload`` inside), what the client called it."""

    registry: tuple[str, ...]
    target: str
    folder: str
    sha256: str
    name: str
    max_bytes: int
    hidden: bool = False  # the phase's scores are hidden: :mod:`.hidden`'s rule
    gold: Gold = ()  # the target's golds an organiser replaced (:mod:`.gold`)
    secret: str | None = None  # the campaign's input secret: uploads follow its order and ids


@dataclass(frozen=True)
class Answer:
    """What scoring found: ``results`` None when the file is refused (it takes no run, and
    ``error`` says why); in a hidden phase ``results`` may be empty with the ``error`` the
    gold raised (the run counts; the error waits for publication); ``warnings``: in a hidden
    phase, those of the file and the input alone (:func:`.hidden.public_check`)."""

    results: list[dict[str, Any]] | None
    error: InputError | None = None
    warnings: tuple[str, ...] = ()


# the command line's way out of a refusal, which a participant of a campaign does not have
CLI_HINTS = {
    f"; use {how} to score anyway": "; give every gold pair a score"
    for how in ("--missing zero|skip", 'missing="zero"|"skip"')  # option_hint's two spellings
}


def remap_error(
    exc: InputError, stored: Path, name: str, restored: Sequence[handout.Restored] = ()
) -> InputError:
    """``exc`` naming the client's file instead of the server's copy (and, for a copy put
    back in the gold's order, ``restored``, the line and ids of the client's file), without
    advice that only ``simeval score`` can follow (:data:`CLI_HINTS`)."""
    path, line, message = exc.path, exc.line, exc.message
    for r in restored:
        path, line, message = r.error(path, line, message)
    where = str(stored)
    if path is not None and path.startswith(where):
        path = name + path[len(where) :]
    message = message.replace(where, name)
    for cli, served in CLI_HINTS.items():
        message = message.replace(cli, served)
    return InputError(path, line, message)


def restore(
    job: Job, target: Any, path: Path, scratch: Path
) -> tuple[Path, list[handout.Restored]]:
    """The upload at ``path`` (a file, or the folder of a suite's files) put back in the
    gold's order and ids (:meth:`simeval.kinds.base.TaskKind.restore`) when the campaign
    drew its inputs: the path to score, and what each file became."""
    from simeval.serve.service.archive import is_multi_file
    from simeval.serve.service.hidden import file_kind

    if job.secret is None:
        return path, []
    if not is_multi_file(target):
        r = file_kind(target).restore(target, path, job.secret, scratch, job.hidden)
        return r.path, [r]
    done = []
    for m in target.members:  # the unpacked copy is the server's: rewritten in place
        f = m.submission_file(path)
        r = m.task_kind.restore(m, f, job.secret, scratch / m.name, job.hidden)
        if r.path != f:
            shutil.copyfile(r.path, f)
            r = replace(r, path=f, origin=f)
        done.append(r)
    return path, done


def cleared(folder: Path) -> None:
    """``folder`` holding its upload alone again: what a scoring process that died there
    may have written (records, items, an unpacked or restored copy) removed."""
    for path in folder.iterdir():
        if path.name == UPLOAD:
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def score_upload(job: Job, targets: Targets | None = None) -> Answer:
    """The result records (items written beside the upload), or the error."""
    from simeval.kinds.scoring import score_submission
    from simeval.results.store import ITEMS_FOLDER, RESULTS_FILE, load_results, save_records
    from simeval.serve.service.archive import is_multi_file, member_files, unpack
    from simeval.serve.service.hidden import READ, public_check

    target = (targets or _TARGETS).get(list(job.registry), job.target, job.gold)
    folder = Path(job.folder)
    upload = folder / UPLOAD
    scratch = folder / "handout"
    system = {"kind": "submission", "file": job.name, "sha256": job.sha256}
    path = upload
    notes: tuple[str, ...] = ()
    error: InputError | None = None
    restored: list[handout.Restored] = []
    try:
        if is_multi_file(target):  # a zip of the members' files, unpacked beside it
            path = folder / "unpacked"
            unpack(upload, path, member_files(target), job.max_bytes, job.name)
        if job.hidden:
            found = public_check(target, path)
            notes = tuple(dict.fromkeys(_shown(str(w), path, job.name) for w in found))
        scored, restored = restore(job, target, path, scratch)
        try:
            read = READ if job.hidden else None
            results = score_submission(target, scored, system=system, read=read)
        except InputError as exc:
            if not job.hidden:
                raise
            error = remap_error(exc, path, job.name, restored)  # the run counts: no records
            results = []
    except InputError as exc:
        return Answer(None, remap_error(exc, path, job.name, restored))
    finally:
        if path != upload:
            shutil.rmtree(path, ignore_errors=True)
        shutil.rmtree(scratch, ignore_errors=True)
    records = []
    for r in results:
        record = r.to_dict()
        record["warnings"] = [_told(w, upload, job.name, restored) for w in r.warnings]
        record.pop("machine", None)  # the server's host name is not the participants' affair
        records.append(json_safe(record))
    # the results store writes them beside the upload, as ``simeval score --save`` would
    (folder / ITEMS_FOLDER).mkdir(mode=0o700, exist_ok=True)  # the team's work: the server's
    save_records(folder, records, [r.items for r in results], ITEMS_LEVEL)
    records = load_results(folder)  # the store's records: what the board and views read
    for path in [*folder.glob(f"{RESULTS_FILE}*"), *(folder / ITEMS_FOLDER).glob("*")]:
        os.chmod(path, 0o600)
    return Answer(records, error, notes)


def _told(text: str, stored: Path, name: str, restored: Sequence[handout.Restored]) -> str:
    """A record's warning as the client's file and ids have it."""
    for r in restored:
        text = r.message(text)
    return _shown(text, stored, name)


def _shown(text: str, stored: Path, name: str) -> str:
    """A warning naming the client's file instead of the server's copy."""
    return text.replace(str(stored), name)


class Scorers:
    """Scores jobs here (``processes=0``) or in a pool of ``processes`` scoring processes.

    A scoring process that dies (killed, out of memory) breaks its pool: every job in it
    fails at once. The pool is then replaced, once for all of them (under a lock), and each
    of those jobs is scored again in the new pool, its folder cleared of what the dead
    process may have half-written; a job whose second pool breaks too raises
    :class:`BrokenProcessPool` (the server answers 503 with ``Retry-After``)."""

    def __init__(self, processes: int, targets: Targets) -> None:
        self.processes = processes
        self.targets = targets
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self.restarts = 0  # pools replaced after one of their processes died
        self._ending = threading.Lock()  # held while a broken pool is shut down
        self._ended: weakref.WeakSet[ProcessPoolExecutor] = weakref.WeakSet()

    def __call__(self, job: Job) -> Answer:
        if self.processes <= 0:
            return score_upload(job, self.targets)
        for attempt in range(ATTEMPTS):
            pool = self._started()
            try:
                return pool.submit(score_upload, job).result()
            except BrokenProcessPool:
                self._replace(pool)
                cleared(Path(job.folder))
                if attempt + 1 == ATTEMPTS:
                    raise
                log.warning("a scoring process died; scoring %s again in a new pool", job.name)
        raise AssertionError("unreachable")  # pragma: no cover

    def _replace(self, pool: ProcessPoolExecutor) -> None:
        """Drop ``pool``, broken, unless another job already did (its next job starts one),
        and wait until its processes are gone: one still scoring (the pool ends them) would
        otherwise write into the folder of a job scored again."""
        with self._lock:
            if self._pool is pool:
                self._pool = None
                self.restarts += 1
        with self._ending:  # a pool's shutdown is not safe from two threads at once
            if pool not in self._ended:
                pool.shutdown(wait=True, cancel_futures=True)
                self._ended.add(pool)

    def _started(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = spawn_pool(self.processes)
            return self._pool

    def pids(self) -> list[int]:
        """The process ids of the current pool's scoring processes (none before the first
        upload, nor after the pool broke until the next)."""
        with self._lock:
            pool = self._pool
        return [p.pid for p in list((getattr(pool, "_processes", None) or {}).values())]

    def close(self) -> None:
        with self._lock:
            if self._pool is not None:
                self._pool.shutdown(wait=True, cancel_futures=True)
                self._pool = None
