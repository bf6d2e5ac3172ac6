"""The leak audit: what a phase's inputs, as handed out, tell of its gold before a single
upload. Run before a phase is saved (``simeval serve campaign``, the console's new phase) and on
its own (``simeval serve audit-inputs``); a finding refuses the phase unless the organiser
overrides it, which the audit log records.

Each target's input is examined as its task kind hands it out with the campaign's secret
(:meth:`simeval.kinds.base.TaskKind.leak_view`). The checks:

- ``order``: Spearman's ρ between an item's place in the input and its gold (a word pair's
  score or label, an STS line's score, for linking the place of the query's document among
  the documents), by :func:`scipy.stats.spearmanr`; a finding when its two-sided p-value is
  below :data:`ORDER_P` over at least :data:`MIN_ITEMS` gold-scored items, for an input
  handed out as published. A drawn order (a campaign's secret) is random by construction and
  gives p < 0.001 one time in a thousand, which would refuse one campaign in a hundred for
  nothing; there the finding needs p < :data:`DRAWN_P`, which a sound draw gives one time in a
  million and a draw that failed (the published order) still gives on every set the attacker
  found (MC-30 7e-41, SimLex-999 1.3e-7, Verb-143 2.3e-7);
- ``ids``: a test query whose id tells its judged document's: the same once a leading
  language tag (``fr:``) is dropped and case is folded, or sharing a run of at least
  :data:`SHARED_RUN` characters that is half the shorter id or more (``q17``/``d17`` ids, or
  ``fr:wmt14/1041-cyberpresse`` beside ``en:wmt14/1041-cyberpresse``);
- ``catalog ids``: ids handed out that are the published collection's own (a participant can
  look their documents up);
- ``repeats``: an item given twice with different gold (two lines of one sentence pair, a
  word pair in two cases): what a team answers for one is wrong for the other.

Items a phase shares with a visible phase's gold are refused apart, before the audit, by
:func:`simeval.serve.service.campaigns.check_against_server`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from simeval.data.textio import shown

ORDER_P = 1e-3
DRAWN_P = 1e-6
MIN_ITEMS = 10
SHARED_RUN = 6
LANGUAGE_TAG = re.compile(r"^[a-z]{2,3}[:_]")


@dataclass(frozen=True)
class Finding:
    """One leak: the phase and target it was found in, which check, and what it saw."""

    phase: str
    target: str
    check: str
    detail: str

    def __str__(self) -> str:
        return f"phase {self.phase}: {self.target}: {self.check}: {self.detail}"


def audit_target(phase: str, target: Any, secret: str | None) -> list[Finding]:
    """The findings on ``target``'s input as handed out with ``secret`` (module docstring)."""
    from simeval.serve.service.archive import is_multi_file
    from simeval.serve.service.hidden import file_kind

    found: list[Finding] = []
    # a suite of one file per member hands out (and is audited) member by member
    for t in target.members if is_multi_file(target) else [target]:
        view = file_kind(t).leak_view(t, secret)

        def add(check: str, detail: str, t: Any = t) -> None:
            found.append(Finding(phase, t.name, check, detail))

        for o in view.ordered:
            told = order_told(o.places, o.gold, ORDER_P if secret is None else DRAWN_P)
            if told:
                add("order", f"{o.benchmark}: {told}")
        linked = [(q, docs) for _, q, docs in view.links if any(_tells(q, d) for d in docs)]
        if linked:
            q, docs = linked[0]
            add(
                "ids",
                f"{len(linked)} of {len(view.links)} queries are named like their judged "
                f"document (first: {shown(q)} and {shown(docs[0])})",
            )
        common = sorted(view.handed & view.published)
        if common:
            add(
                "catalog ids",
                f"{len(common)} ids handed out are the published collection's own "
                f"(first: {shown(common[0])})",
            )
        if view.repeats:
            b, item, values = view.repeats[0]
            add(
                "repeats",
                f"{len(view.repeats)} item(s) given twice with different gold (first: "
                f"{b} {item}: {', '.join(f'{v:g}' for v in values)})",
            )
    return found


def order_told(places: list[int], gold: list[float], below: float = ORDER_P) -> str | None:
    """What the order tells of the gold (the ``order`` check at p < ``below``), or None."""
    from scipy.stats import spearmanr

    kept = [(p, g) for p, g in zip(places, gold, strict=True) if not math.isnan(g)]
    if len(kept) < MIN_ITEMS or len({g for _, g in kept}) < 2:
        return None
    rho, p = spearmanr([p for p, _ in kept], [g for _, g in kept])
    if not p < below:
        return None
    return (
        f"the input's order follows the gold (Spearman {rho:+.2f} between an item's place "
        f"and its gold over {len(kept):,} items, p = {p:.1e})"
    )


def _tells(query: str, document: str) -> bool:
    """Whether ``query``'s id tells ``document``'s (the ``ids`` check)."""
    a, b = (LANGUAGE_TAG.sub("", x.casefold()) for x in (query, document))
    if a == b:
        return True
    run = SequenceMatcher(None, a, b, autojunk=False).find_longest_match().size
    return run >= SHARED_RUN and run * 2 >= min(len(a), len(b))


def audit_phase(phase: str, targets: list[Any], secret: str | None) -> list[Finding]:
    """The findings on every target of a phase."""
    return [f for t in targets for f in audit_target(phase, t, secret)]


def refusal(findings: list[Finding]) -> str:
    """The message that refuses a phase for ``findings``, saying how to override."""
    listed = "".join(f"\n  {f}" for f in findings)
    return (
        f"the leak audit found what the inputs tell of the gold:{listed}\n"
        "fix the inputs, or override with --allow-leaks REASON (recorded in the audit log)"
    )
