"""Score submission files exactly as the official scorers do: read and validate the file,
align it with the gold, compute the kind's metrics from the rows (``simeval score``, the
server's uploads)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simeval.api.options import COMPLETE, MAX_RETRIEVED, MISSING, checked
from simeval.api.targets import Target, as_target
from simeval.errors import InputError

if TYPE_CHECKING:
    from simeval.data.store import DataStore
    from simeval.registry import Registry
    from simeval.results.record import Result


@checked(MISSING, COMPLETE, MAX_RETRIEVED)
def score(
    target: str | Target,
    path: str | Path | Sequence[str | Path] | Any,
    *,
    store: DataStore | None = None,
    registry: Registry | str | Path | None = None,
    system: dict[str, Any] | None = None,
    read: dict[str, Any] | None = None,
    **options: Any,
) -> list[Result]:
    """Score the submission at ``path``, or predictions in memory, against ``target``.

    Args:
        target: a benchmark or suite, by name (catalog, ``registry`` file, path) or loaded.
        path: a file; a folder holding each member's file for a suite of several files; a
            list of files, one per member of a suite in the suite's order (``score sts``); or
            predictions in memory (:mod:`simeval.api.predictions`): numbers lined up with the
            gold's rows, ``{(word1, word2): score}``, a DataFrame, or ``{query: {doc: score}}``.
        read: goes to the reader (``column``); ``options`` to the task (``missing``,
            ``complete``, ``max_retrieved``), each checked by its declaration
            (:mod:`simeval.api.options`).
        system: the record's system; by default the submission: ``kind``, ``path`` and, for
            one file, its ``sha256`` (for a list, ``files``: each path's sha256).

    Returns:
        A Result per benchmark, then one per suite with its aggregate.

    Examples:
        >>> import simeval
        >>> gold = [("car", "automobile", 3.92), ("gem", "jewel", 3.84), ("noon", "string", 0.08)]
        >>> target = simeval.benchmark_from_pairs(gold)
        >>> [r.metrics["spearman"] for r in simeval.score(target, [0.9, 0.7, 0.1])]
        [1.0]
    """
    from simeval.api.predictions import as_submission, is_in_memory
    from simeval.data.textio import sha256_file

    loaded = as_target(target, store, registry)
    if is_in_memory(path):
        submission = as_submission(loaded, path)
        return loaded.evaluate(submission, system=system or {"kind": "predictions"}, **options)
    if isinstance(path, str | Path):
        files = None
        submission = loaded.read_submission(Path(path), **(read or {}))
    else:
        files = [Path(p) for p in path]
        submission = _read_members(loaded, files, read or {})
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
    return loaded.evaluate(submission, system=system, **options)


def _read_members(target: Target, files: list[Path], reader: dict[str, Any]) -> Any:
    """A submission given as one file per member (one file for a benchmark)."""
    if getattr(target, "layout", "") == "one-file":
        raise InputError(None, None, f"{target.name} takes one submission file for every member")
    members = list(target.members) or [target]
    if len(files) != len(members):
        raise InputError(
            None,
            None,
            f"{target.name} takes {len(members)} submission file(s), one per "
            f"{'member' if target.members else 'benchmark'}; got {len(files)}",
        )
    if not target.members:
        return target.read_submission(files[0], **reader)
    return {m.name: m.read_submission(f, **reader) for m, f in zip(members, files, strict=True)}
