"""Score submission files exactly as the official scorers do: read and validate the file,
align it with the gold, compute the kind's metrics from the rows (``simeval score``). Files
are scored by :func:`simeval.kinds.scoring.score_submission`, which the server's uploads call
too."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simeval.api.options import COMPLETE, DEFAULT_MISSING, MAX_RETRIEVED, MISSING, checked
from simeval.api.records import warn_of_zeroed
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
    name: str | None = None,
    **options: Any,
) -> list[Result]:
    """Score the submission at ``path``, or predictions in memory, against ``target``.

    Args:
        target: a benchmark or suite, by name (catalog, ``registry`` file, path) or loaded.
        path: a file; a folder holding each member's file for a suite of several files; a
            list of files, one per member of a suite in the suite's order (``score sts``); or
            predictions in memory (:mod:`simeval.api.predictions`): numbers lined up with the
            gold's rows, ``{(word1, word2): score}``, a DataFrame, or ``{query: {doc: score}}``
            (or ranx's ``Run``).
        read: goes to the reader (``column``); ``options`` to the task (``missing``,
            ``complete``, ``max_retrieved``), each checked by its declaration
            (:mod:`simeval.api.options`). ``missing``: what a gold pair without a score gets,
            as in :func:`simeval.evaluate`: ``"zero"`` (RUSSE's rule, what published figures
            use; the default, with a :class:`~simeval.errors.DefaultPolicyWarning` when it
            changed a figure), ``"skip"`` (covered pairs only) or ``"error"`` (refuse, naming
            the first such pair).
        system: the record's system; by default the submission: ``kind``, ``path`` and, for
            one file, its ``sha256`` (for a list, ``files``: each path's sha256).
        name: the system's name in tables (``system["name"]``; by default its path, and
            "unnamed" for predictions in memory): two systems in one leaderboard or
            comparison need two names.

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
    from simeval.kinds.scoring import score_submission

    if name is not None and not (isinstance(name, str) and name.strip()):
        raise InputError(None, None, f"name: expected the system's name (text), got {name!r}")
    given = options.get("missing") is not None
    options["missing"] = options["missing"] if given else DEFAULT_MISSING
    loaded = as_target(target, store, registry)
    if is_in_memory(path):
        submission = as_submission(loaded, path)
        found = loaded.evaluate(submission, system=system or {"kind": "predictions"}, **options)
    else:
        found = score_submission(loaded, path, system=system, read=read, **options)
    if name is not None:
        for r in found:
            r.system["name"] = name
    if not given:
        warn_of_zeroed(found)
    return found
