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

What :func:`public_check` checks, by kind of target:

- STS: one line per input pair, each blank or a number with an optional confidence in
  0..100; not every line blank. Warns how many lines are blank;
- word pairs (a benchmark, or a one-file suite such as ``russe``): the file reads as a pair
  file; some of its pairs are pairs of the input file, and some of those have a score; a
  benchmark that takes no missing pair (``missing="error"``: the word sets, whose input is their
  gold pairs) needs a score for every input pair. Warns, counting against the input file: the
  reader's warnings (repeated pairs), input pairs without a score, scored pairs not in the
  input file, scores outside the task's range;
- a suite of one file per member (a zip): each member's file, by the names of the input zip;
- document linking: the run reads as a TREC run (the reader checks nothing else).

Visible phases keep ``simeval score``'s checks and messages exactly.
"""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path
from typing import Any

import numpy as np

from simeval.errors import InputError, InputWarning

READ = {"blanks": "any"}  # the reader options of a hidden phase's scoring (module docstring)
_inputs: dict[int, tuple[Any, list[tuple[str, str]]]] = {}
_inputs_lock = threading.Lock()


def public_check(target: Any, path: Path) -> list[InputWarning]:
    """Refuse ``path`` (an :class:`InputError`) only for what its input file shows; else the
    warnings that the file and the input alone give (module docstring)."""
    from simeval.kinds.base import Suite
    from simeval.kinds.pairs import PairBenchmark
    from simeval.kinds.sts import STSBenchmark
    from simeval.serve.archive import is_multi_file

    if is_multi_file(target):  # ``path`` is the unpacked folder
        names = ", ".join(m.submission_file(Path()).name for m in target.members)
        warnings = []
        for m in target.members:
            f = m.submission_file(path)
            if not f.is_file():
                raise InputError(f, None, f"missing: {target.name} needs every file ({names})")
            warnings += public_check(m, f)
        return warnings
    if isinstance(target, STSBenchmark):
        return _sts(target, path)
    first = target.members[0] if isinstance(target, Suite) and target.members else target
    if isinstance(first, PairBenchmark):
        return _pairs(target, first, path)
    target.read_submission(path)  # linking: a TREC run's format, nothing of the gold
    return []


def _sts(target: Any, path: Path) -> list[InputWarning]:
    from simeval.data.sts import read_sts_output

    n = len(target.pairs)  # the input file's lines
    out = read_sts_output(path, n, np.ones(n, dtype=bool))
    blank = int(np.isnan(out.scores).sum())
    if blank == n:
        raise InputError(out.path, None, f"every line is blank: none of the {n} pairs has a score")
    if not blank:
        return []
    text = (
        f"{blank} of {n} lines are blank: those pairs have no score (a blank line where "
        "the gold has a score is scored 0)"
    )
    return [InputWarning(out.path, None, text)]


def input_pairs(target: Any) -> list[tuple[str, str]]:
    """The distinct pairs of ``target``'s input file (:func:`.campaigns.input_file`), read
    back from the file as a participant reads it; kept per loaded target."""
    from simeval.data.pair_files import read_scored_pairs
    from simeval.serve.campaigns import input_file

    with _inputs_lock:
        found = _inputs.get(id(target))
        if found is not None and found[0] is target:
            return found[1]
    made = input_file(target)
    if made is None:  # pragma: no cover  (every pair target has one)
        raise InputError(None, None, f"{target.name} has no input file")
    name, data = made
    with tempfile.TemporaryDirectory() as folder:
        file = Path(folder) / name
        file.write_bytes(data)
        pairs = read_scored_pairs(file).pairs
    with _inputs_lock:
        _inputs[id(target)] = (target, pairs)
    return pairs


def _pairs(target: Any, first: Any, path: Path) -> list[InputWarning]:
    from simeval.data.pair_files import read_scored_pairs
    from simeval.data.textio import shown
    from simeval.kinds.pairs import extra_pairs, range_warnings

    known = input_pairs(target)
    only = frozenset(known)
    sub = read_scored_pairs(path, None, only=only)
    total = len(sub) + sub.extra
    if not len(sub):
        if not total:
            raise InputError(sub.path, None, "no pairs: expected word1 word2 score lines")
        a, b = (sub.first_extra or (("", ""), 0))[0]
        raise InputError(
            sub.path,
            None,
            f"none of its {total} pairs is in the input file (first: {shown(a)},{shown(b)}): "
            "a submission for another target?",
        )
    if np.isnan(sub.scores).all():
        raise InputError(sub.path, None, "no pair has a score (every score field is empty)")
    index = sub.lookup()
    scores = sub.scores.tolist()
    unscored = [p for p in known if p not in index or scores[index[p]] != scores[index[p]]]
    warnings = list(sub.warnings)
    if unscored:
        a, b = unscored[0]
        text = (
            f"{len(unscored)} of {len(known)} input pairs have no score "
            f"(first: {shown(a)},{shown(b)})"
        )
        if first.missing == "error":
            raise InputError(sub.path, None, f"{text}: {target.name} needs a score for every pair")
        how = "counts as 0" if first.missing == "zero" else "is left out"
        warnings.append(InputWarning(sub.path, None, f"{text}; a gold pair without a score {how}"))
    warnings += extra_pairs(sub, only, "the input file")[1]
    if first.score_range is not None:
        warnings += range_warnings(sub, *first.score_range)
    return warnings
