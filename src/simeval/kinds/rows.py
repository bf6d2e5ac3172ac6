"""A result's per-item rows, and its metrics computed from them through its kind.

A result keeps, beside its numbers, one row per gold item: the gold value, the system's score
as it entered the metrics, and the benchmark's metadata (SimLex-999's POS and concreteness,
WordSim-353's split membership). Every metric of a result is computed from these rows by
:func:`task_metrics` — when a benchmark is evaluated, when a file is scored, and when the
report resamples the rows — through the one metric set of the result's kind
(:mod:`simeval.kinds`), so a metric is defined once. Each kind's module documents its columns;
a suite's rows are its members' common columns plus ``benchmark`` and ``task``.

Suites are resampled within members (strata), and a kind with a ``cluster`` column (related
pairs: word1) by that column's values.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from functools import cached_property
from typing import Any

import numpy as np

from simeval.metrics import catalog
from simeval.results.items import Items, as_floats


def outputs_of(kinds: list[Any]) -> tuple[str, ...]:
    """The per-item outputs two systems' comparisons swap: the kinds' (a suite's members'), or
    ``score`` (linking: the queries' metric values; there is no score column)."""
    found = {k.outputs for k in kinds}
    return found.pop() if len(found) == 1 else ("score",)


def member_kinds(task: str, items: Mapping[str, np.ndarray]) -> list[Any]:
    """The kinds of the rows: a suite's members' (its ``task`` column), else ``task``'s."""
    from simeval.kinds import kind

    k = kind(task)
    if not k.suite or "task" not in items:
        return [k]
    return [kind(str(t)) for t in dict.fromkeys(np.asarray(items["task"]).tolist())]


def task_metrics(task: str, items: Mapping[str, np.ndarray]) -> dict[str, float]:
    """Every metric of ``task`` over the counted rows of ``items``."""
    return ItemMetrics(task, items)()


class ItemMetrics:
    """The metrics of one result as a function of resampled rows or replaced scores.

    ``metrics(rows)`` evaluates the rows ``rows`` (a bootstrap replicate, repeats allowed) and
    ``metrics(scores=s)`` the same items with other per-item outputs (approximate
    randomization). Words are coded once as integers whose order is the code-point order, so
    RUSSE accuracy's tie-break by word2 is kept without comparing strings in every replicate.
    """

    def __init__(self, task: str, items: Mapping[str, np.ndarray], main_only: bool = False) -> None:
        from simeval.kinds import kind

        try:
            self.kind = kind(task)
        except ValueError:
            raise ValueError(f"no item metrics for task kind {task!r}") from None
        self.task = self.kind.name
        self.main_only = main_only  # the main metric alone (and a suite's parts): cheaper
        keep = np.asarray(items["counted"], dtype=bool) if "counted" in items else None
        self.items = {k: (v[keep] if keep is not None else v) for k, v in items.items()}
        self.n = len(next(iter(self.items.values()))) if self.items else 0
        self.strata = self.items.get("benchmark") if self.kind.suite else None
        # a suite's members as integer codes in order of first appearance, their names, kinds
        self.member = np.zeros(self.n, dtype=np.int64)
        self.member_names: list[str] = []
        self.member_kinds = [self.kind]
        if self.strata is not None:
            names, first, codes = np.unique(self.strata, return_index=True, return_inverse=True)
            appearance = np.argsort(first)
            self.member = np.argsort(appearance)[codes]
            self.member_names = [str(x) for x in names[appearance]]
            found = np.asarray(self.items["task"])[first[appearance]]
            self.member_kinds = [kind(str(k)) for k in found]
        self.outputs = outputs_of(self.member_kinds)
        self.linking = self.outputs != ("score",)  # the outputs are per-query metric values
        if self.linking:  # rows kept before a measure was added lack its column
            self.outputs = tuple(k for k in self.outputs if k in self.items)
        # columns as the kinds' functions take them (strings as integer codes)
        numeric = dict.fromkeys(c for k in self.member_kinds for c in k.numeric)
        self.columns: dict[str, np.ndarray] = {}
        for c in numeric:
            if c in self.items:
                self.columns[c] = as_floats(self.items[c])
        for c in dict.fromkeys(c for k in self.member_kinds for c in k.codes):
            if c in self.items:
                self.columns[c] = np.unique(np.asarray(self.items[c]), return_inverse=True)[1]
        self.clusters = self._clusters()

    def _clusters(self) -> np.ndarray | None:
        """Resampling units: the rows of a kind with a ``cluster`` column are drawn by its
        values (related pairs by word1: RUSSE accuracy labels pairs within each word1, and
        every word1 has as many related as unrelated partners); other rows one by one."""
        clustered = [k.cluster is not None for k in self.member_kinds]
        if not any(clustered):
            return None
        if not self.kind.suite:
            return self.columns[self.kind.cluster]  # type: ignore[index]
        (column,) = {k.cluster for k in self.member_kinds if k.cluster is not None}
        codes = self.columns[column]
        single = ~np.array(clustered)[self.member]
        # (member, code) for clustered rows; a unit of its own for every other row
        unit = self.member * (int(codes.max()) + 1) + codes
        return np.where(single, -1 - np.arange(self.n), unit)

    @property
    def resampling(self) -> dict[str, np.ndarray | None]:
        """How the bootstrap draws this result's items: ``strata`` and ``clusters``."""
        return {"strata": self.strata, "clusters": self.clusters}

    @property
    def values(self) -> np.ndarray:
        """The per-item outputs that approximate randomization swaps."""
        if self.linking:
            return np.column_stack([self.columns[k] for k in self.outputs])
        return self.columns["score"]

    def _parts(self, rows: np.ndarray) -> list[np.ndarray]:
        """A suite's rows split by member (rows are drawn within each member, stratified)."""
        member = self.member[rows]
        order = np.argsort(member, kind="stable")
        sizes = np.bincount(member, minlength=len(self.member_names))
        return np.split(rows[order], np.cumsum(sizes)[:-1])

    def _columns(self, rows: np.ndarray, scores: np.ndarray | None) -> dict[str, np.ndarray]:
        cols = dict(self.columns)
        if scores is not None:
            if self.linking:
                cols.update({k: scores[:, i] for i, k in enumerate(self.outputs)})
            else:
                cols["score"] = np.asarray(scores, dtype=float)
        return {k: v[rows] for k, v in cols.items()}

    def __call__(
        self, rows: np.ndarray | None = None, scores: np.ndarray | None = None
    ) -> dict[str, float]:
        rows = np.arange(self.n) if rows is None else rows
        if not self.kind.suite:
            return self.kind.metrics(self._columns(rows, scores), self.main_only)
        parts = [self._columns(p, scores) for p in self._parts(rows)]
        return self.kind.combine(  # type: ignore[attr-defined]
            parts, self.member_kinds, self.member_names, self.main_only
        )

    def weighted(self, w: np.ndarray) -> dict[str, np.ndarray]:
        """The metrics of many resamples at once: row b of ``w`` (B, n) gives how often each
        row enters resample b. Equals ``self(rows)`` for ``w[b] = bincount(rows, minlength=n)``
        up to summation order (the kinds' ``resampled``)."""
        whole, members = self._sorted
        if not self.kind.suite:
            return self.kind.resample(whole, w, self.main_only)
        return self.kind.combine_resampled(  # type: ignore[attr-defined]
            whole, members, w, self.member_kinds, self.member_names, self.main_only
        )

    def swapped(
        self, a: np.ndarray, b: np.ndarray, swap: np.ndarray
    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]] | None:
        """Approximate randomization's rounds at once: the metrics of A′ (b where ``swap``,
        a elsewhere) and B′ for each row of ``swap`` (R, n), as ``self(scores=A′)`` round by
        round. None for the kinds and metric sets not done at once: per-item outputs are
        swapped at once only when each is a metric whose mean over the items is its figure
        (linking's per-query values), not for other outputs (analogy's right/answered)."""
        if self.linking:  # the counts do not depend on the outputs
            fixed = {k: np.full(len(swap), v) for k, v in self().items()}
            outputs = [(i, k) for i, k in enumerate(self.outputs) if k in fixed]  # main_only
            if not outputs:
                return None
            pick = swap[:, :, None]
            return tuple(  # type: ignore[return-value]
                {**fixed, **{k: o[:, :, i].mean(axis=1) for i, k in outputs}}
                for o in (np.where(pick, b, a), np.where(pick, a, b))
            )
        if self.kind.suite:
            return None
        return self.kind.swapped(self.columns, a, b, swap, self.main_only)

    @property
    def partial(self) -> bool:
        """Whether only the main metric (and a suite's parts) is computed."""
        return self.main_only

    @cached_property
    def fingerprint(self) -> str:
        """A key for the content the metrics are computed from (kind, its declared metrics,
        rows and strata): equal content reuses resampled values
        (:func:`simeval.metrics.stats.bootstrap`); a metric declared since gets its own."""
        h = hashlib.blake2b(self.task.encode(), digest_size=16)
        for k in dict.fromkeys([self.kind, *self.member_kinds]):
            h.update(repr([m.name for m in catalog.of_kind(k.name)]).encode())
        for name in sorted(self.columns):
            h.update(name.encode())
            h.update(np.ascontiguousarray(self.columns[name]).tobytes())
        h.update(self.member.tobytes())
        h.update("\0".join(self.member_names).encode())
        return h.hexdigest()

    @cached_property
    def _sorted(self) -> tuple[Any, list[tuple[np.ndarray, Any]]]:
        """The rows as :class:`simeval.metrics.declared.Sorted`, whole and per suite member."""
        from simeval.metrics.declared import Sorted

        members = []
        for m in range(len(self.member_names)):
            rows = np.flatnonzero(self.member == m)
            members.append((rows, Sorted({k: v[rows] for k, v in self.columns.items()})))
        return Sorted(self.columns), members


def concat_items(members: list[tuple[str, str, Items]]) -> Items:
    """The items of a suite: each member's (name, task, items), columns common to all kept."""
    common = [c for c in members[0][2] if all(c in m[2] for m in members)]
    out = {c: np.concatenate([m[2][c] for m in members]) for c in common}
    sizes = [len(next(iter(m[2].values()))) for m in members]
    out["benchmark"] = np.concatenate(
        [np.full(n, m[0]) for n, m in zip(sizes, members, strict=True)]
    )
    out["task"] = np.concatenate([np.full(n, m[1]) for n, m in zip(sizes, members, strict=True)])
    return out
