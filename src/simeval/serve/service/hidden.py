"""Hidden phases: what an upload may be told before the phase's scores are published.

The rule (a phase with ``hidden = true``, until the organiser publishes it):

- an upload is refused without taking a run only for a reason found from the file and the
  phase's input file for its target (what every team downloads), and the message is a function
  of those two alone: :func:`public_check`;
- everything else takes a run first. Nothing that needs the gold refuses a file: an STS line
  left blank where the gold has a score is scored 0 and counted as missing (``blanks="any"``
  of :meth:`simeval.kinds.sts.STSBenchmark.read_submission`), wherever the line is; any other
  error the gold raises (a RUSSE member's file whose pairs are all another member's) is kept
  with the run, which gets no score; it is shown once the phase is published;
- the warnings shown with the upload are those of :func:`public_check`, also from the file
  and the input alone (the scored records keep the precise ones, shown at publication).

What :func:`public_check` checks is the target's task kind's to say
(:meth:`simeval.kinds.base.TaskKind.public_check`: STS, word pairs, linking); a suite of one
file per member (a zip) is checked member by member, by the names of the input zip.

Visible phases keep ``simeval score``'s checks and messages exactly.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from simeval.errors import InputError, InputWarning

READ = {"blanks": "any"}  # the reader options of a hidden phase's scoring (module docstring)


def file_kind(target: Any) -> Any:
    """The task kind that reads ``target``'s one file: its own, or a one-file suite's members'
    (a suite's kind is its aggregate's)."""
    return (target.members[0] if target.members else target).task_kind


def public_check(target: Any, path: Path) -> list[InputWarning]:
    """Refuse ``path`` (an :class:`InputError`) only for what its input file shows; else the
    warnings that the file and the input alone give (module docstring)."""
    from simeval.serve.service.archive import is_multi_file

    if is_multi_file(target):  # ``path`` is the unpacked folder
        names = ", ".join(m.submission_file(Path()).name for m in target.members)
        warnings = []
        for m in target.members:
            f = m.submission_file(path)
            if not f.is_file():
                raise InputError(f, None, f"missing: {target.name} needs every file ({names})")
            warnings += public_check(m, f)
        return warnings
    return file_kind(target).public_check(target, path)
