"""Scored submissions' results in the results store (:mod:`simeval.results.store`), the same
writer ``simeval score --save`` uses: each scored upload's folder holds ``results.jsonl`` and
``items/`` beside the bytes, and its row names that file (``submission.results_file``). An
export is the store's own output, so ``simeval results``, ``report`` and ``leaderboard`` read
it as they read any results folder.

Rows scored before the store kept them (schema 0003 and older) have their records in the
``results`` column only, items at ``items/<n>.tsv.gz`` beside the upload: :func:`adopt_results`
writes them into the store once, when a server or a command first opens the pair
(:func:`open_server`).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from sqlalchemy import select

from simeval.results.store import RESULTS_FILE, load_results, save_records
from simeval.serve.db import Database
from simeval.serve.db.models import SCORED, Submission
from simeval.serve.db.storage import Storage

log = logging.getLogger("simeval.serve")


def results_file(storage: Storage, submission_id: str) -> str:
    """The reference a row keeps: its store file, relative to the storage folder."""
    path = storage.folder(submission_id) / RESULTS_FILE
    return path.relative_to(storage.root).as_posix()


def stored_records(storage: Storage, sub: Submission) -> tuple[list[dict[str, Any]], Path]:
    """A scored row's records as the store holds them, and the folder their items are in."""
    if sub.results_file is None:  # pragma: no cover  (open_server adopted every row)
        return list(sub.results or []), storage.folder(sub.id)
    path = storage.root / sub.results_file
    return load_results(path.parent), path.parent


def adopt_results(db: Database, storage: Storage) -> int:
    """Write the records of scored rows that have no store file yet into the store (their
    items stay where they are: the records name them relative to the same folder), and
    point the rows at them. Idempotent; a file left by a start cut short is taken as is.
    How many rows were adopted."""
    with db.reading() as s:
        rows = s.execute(
            select(Submission.id, Submission.results).where(
                Submission.status == SCORED, Submission.results_file.is_(None)
            )
        ).all()
    for sub_id, records in rows:
        folder = storage.folder(sub_id)
        if not (folder / RESULTS_FILE).is_file():
            save_records(folder, records or [])
            os.chmod(folder / RESULTS_FILE, 0o600)  # the team's work: the server's alone
        with db.session() as s:
            s.get_one(Submission, sub_id).results_file = results_file(storage, sub_id)
    if rows:
        log.info("%d scored submission(s) moved into the results store", len(rows))
    return len(rows)


def open_server(url: str, root: str | Path, busy_timeout: float = 30) -> tuple[Database, Storage]:
    """The database at ``url`` and the storage folder ``root`` as a checked pair
    (:func:`simeval.serve.db.pairing.open_pair`), every scored row's results in the store."""
    from simeval.serve.db.pairing import open_pair

    db, storage = open_pair(url, root, busy_timeout)
    try:
        adopt_results(db, storage)
    except BaseException:
        db.dispose()
        raise
    return db, storage
