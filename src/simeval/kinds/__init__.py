"""Task kinds: one module each, one :class:`~simeval.kinds.base.TaskKind` object each, all in
one ``KINDS`` map. Nothing outside this package compares a kind's name: it looks the kind up
(:func:`kind`, old record names accepted) and asks it.

=================  ===========================================  ==========================
kind               rows and metrics                             module
=================  ===========================================  ==========================
graded-pairs       word pairs; Spearman (main), Pearson         :mod:`.graded`
related-pairs      word pairs, gold 1/0; AP 2015 (main), ...    :mod:`.related`
sts                sentence pairs by line; Pearson (main), ...  :mod:`.sts`
linking            queries; success@1, @5, MRR (main)           :mod:`.linking`
analogy            questions a:b::c:?; accuracy (main), counts  :mod:`.analogy`
bitext             sentences to translations; accuracy (main)   :mod:`.bitext`
suite-sum, ...     a suite's aggregate over its members' rows   :mod:`.suites`
=================  ===========================================  ==========================

A new kind is one module defining its TaskKind (and, usually, its Benchmark) and declaring its
metrics (``TaskKind.declares``), and one line in ``KINDS`` — or, from outside the package,
:func:`register`. The built-in kinds of the first rounds have theirs in
:mod:`simeval.metrics.catalog`; a kind's own declarations join that catalog when the kind
joins ``KINDS``, so reports, intervals, tests and the metric page (``python -m simeval.kinds >
docs/metrics.md``) read them like any other.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from simeval.kinds.analogy import ANALOGY
from simeval.kinds.base import SuiteKind, TaskKind
from simeval.kinds.bitext import BITEXT
from simeval.kinds.graded import GRADED
from simeval.kinds.linking import LINKING
from simeval.kinds.related import RELATED
from simeval.kinds.sts import STS
from simeval.kinds.suites import MEAN_SUITE, STS_SUITE, STS_YEAR_SUITE, SUM_SUITE
from simeval.metrics import catalog

__all__ = [
    "KINDS",
    "SuiteKind",
    "TaskKind",
    "canonical",
    "from_toml",
    "kind",
    "main_metric",
    "register",
    "suite_kind",
]

KINDS: dict[str, TaskKind] = {
    k.name: k
    for k in (
        GRADED,
        RELATED,
        STS,
        LINKING,
        ANALOGY,
        BITEXT,
        SUM_SUITE,
        STS_SUITE,
        STS_YEAR_SUITE,
        MEAN_SUITE,
    )
}


def _declare(k: TaskKind) -> None:
    """Register the metrics ``k`` declares in its own module (once: a kind registered again,
    or a module reloaded, keeps the catalog as it was)."""
    for m in k.declares:
        if m not in catalog.METRICS:
            catalog.register(m)


for _k in KINDS.values():
    _declare(_k)


def register(k: TaskKind) -> TaskKind:
    """Add ``k`` to :data:`KINDS` (a kind defined outside this package), with the metrics it
    declares."""
    if not k.name:
        raise ValueError(f"{type(k).__name__}: a task kind needs a name")
    KINDS[k.name] = k
    _declare(k)
    return k


def kind(name: str) -> TaskKind:
    """The kind a record's ``task`` names (older names accepted)."""
    found = KINDS.get(name)
    if found is not None:
        return found
    for k in KINDS.values():
        if name in k.aliases:
            return k
    raise ValueError(f"no task kind {name!r} (known: {', '.join(KINDS)})")


def canonical(name: str) -> str:
    """Today's name of the kind a record's ``task`` names (older suite names mapped)."""
    try:
        return kind(name).name
    except ValueError:
        return name


def main_metric(name: str, items: Mapping[str, np.ndarray] | None = None) -> str:
    """The main metric of a kind; a mean suite's is its members' (all of one kind)."""
    return kind(name).main_metric(items)


def from_toml(value: str) -> TaskKind | None:
    """The kind a registry file's ``kind = value`` names, or None."""
    return next((k for k in KINDS.values() if value in k.toml), None)


def toml_names() -> list[str]:
    """Every ``kind = ...`` a registry file may give."""
    return [t for k in KINDS.values() for t in k.toml]


def suite_kind(aggregate: str) -> SuiteKind:
    """The suite kind of a registry ``aggregate`` (``sum``, ``sts``, ``sts-year``, ``mean``)."""
    for k in KINDS.values():
        if isinstance(k, SuiteKind) and k.aggregate == aggregate:
            return k
    raise ValueError(f"no suite kind with aggregate {aggregate!r}")


def aggregates() -> list[str]:
    """Every suite ``aggregate = ...`` a registry file may give (besides ``none``)."""
    return [k.aggregate for k in KINDS.values() if isinstance(k, SuiteKind)]
