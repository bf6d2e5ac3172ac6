"""A submission scored against a loaded benchmark or suite: read and validate its file (or
each member's file), describe it as the record's system, and evaluate it with the kind's
metrics. The one path of ``simeval score`` (:func:`simeval.api.score` wraps it, after loading
the target by name and taking predictions in memory) and of the server's uploads
(:mod:`simeval.serve.service.scoring`), so that a file is judged the same by both.

The path ends in :func:`score_rows`: evaluating aligns the submission with the gold into one
row per gold item, then computes the kind's metric set from those rows. A result keeps the
rows (:mod:`simeval.results.items`, numbers written so they read back exactly), so the
server's public and private scores of a split phase (:mod:`simeval.serve.service.split`)
are :func:`score_rows` over the stored rows of one part: the last step of the same path,
over the rows that aligning the file gave, neither read nor aligned again."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from simeval.errors import InputError
from simeval.kinds.rows import task_metrics


def score_submission(
    target: Any,
    path: str | Path | Sequence[str | Path],
    *,
    system: dict[str, Any] | None = None,
    read: dict[str, Any] | None = None,
    **options: Any,
) -> list[Any]:
    """The results of the submission at ``path`` scored against ``target`` (a loaded
    benchmark or suite): a file; a folder holding each member's file (a suite of several
    files); or a list of files, one per member in the suite's order. ``read`` goes to the
    reader (``column``), ``options`` to the task. ``system`` is the record's system; by
    default the submission: ``kind``, ``path`` and, for one file, its ``sha256`` (for a
    list, ``files``: each path's sha256), with the reader's options."""
    from simeval.data.textio import sha256_file

    if isinstance(path, str | Path):
        files = None
        submission = target.read_submission(Path(path), **(read or {}))
    else:
        files = [Path(p) for p in path]
        submission = _read_members(target, files, read or {}, _counted(path))
    if system is None:
        if files is None:
            system = {"kind": "submission", "path": str(path)}
            if Path(path).is_file():
                system["sha256"] = sha256_file(Path(path))
        elif len(files) == 1:
            system = {"kind": "submission", "path": str(files[0])}
            system["sha256"] = sha256_file(files[0])
        else:
            system = {"kind": "submission", "path": ", ".join(map(str, files))}
            system["files"] = {str(f): sha256_file(f) for f in files}
        system.update({k: v for k, v in (read or {}).items() if v is not None})
    return target.evaluate(submission, system=system, **options)


def score_rows(task: str, rows: Mapping[str, np.ndarray]) -> dict[str, float]:
    """The metric set of the kind ``task`` names over the per-item ``rows`` (their counted
    ones) of a submission aligned with the gold: what :meth:`Benchmark.evaluate
    <simeval.kinds.base.Benchmark.evaluate>` and a suite's aggregate record, and what a split
    phase's part scores are computed from (module docstring)."""
    return task_metrics(task, rows)


def _counted(paths: Sequence[str | Path]) -> str:
    """What a list of paths is, for a refusal: ``2 files``, or, when some of them are strings
    that name no file, ``999 strings`` (text that is not a number, so not predictions in
    memory: :func:`simeval.api.predictions.is_in_memory`)."""
    text = [p for p in paths if isinstance(p, str) and not Path(p).exists()]
    if text:
        return f"{len(paths)} strings (not numbers, so read as file paths)"
    return f"{len(paths)} files"


def _read_members(target: Any, files: list[Path], reader: dict[str, Any], given: str = "") -> Any:
    """A submission given as one file per member (one file for a benchmark); ``given``:
    what was given, as the refusal names it (:func:`_counted`)."""
    if getattr(target, "layout", "") == "one-file":
        raise InputError(None, None, f"{target.name} takes one submission file for every member")
    members = list(target.members) or [target]
    if len(files) != len(members):
        raise InputError(
            None,
            None,
            f"{target.name} takes {len(members)} submission file(s), one per "
            f"{'member' if target.members else 'benchmark'}; got {given or len(files)}",
        )
    if not target.members:
        return target.read_submission(files[0], **reader)
    return {m.name: m.read_submission(f, **reader) for m, f in zip(members, files, strict=True)}
