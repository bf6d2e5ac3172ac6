"""Every input surface, fuzzed at a small budget (:mod:`fuzzing.harness`): no traceback, no
wrong input accepted silently, no wrong number, every refusal naming its file or key.

The developer's fast tier draws a few cases a surface; CI's slow tier draws more, from another
seed; the large budget runs from ``benchmarks/fuzz_surfaces.py``."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from fuzzing.harness import fuzz, table
from fuzzing.surfaces import all_surfaces

BUDGET = int(os.environ.get("SIMEVAL_FUZZ_BUDGET", "16"))  # a surface, in the fast tier
CI_BUDGET = 100  # a surface, in the slow tier
SURFACES = {s.name: s for s in all_surfaces()}
CATALOGUE = Path(__file__).resolve().parents[2] / "docs" / "errors.md"


def catalogued() -> list[re.Pattern[str]]:
    """The messages of the error catalogue: the first cell of each table row, in backticks,
    ``…`` standing for any text of the user's."""
    found = []
    for line in CATALOGUE.read_text(encoding="utf-8").splitlines():
        cell = re.match(r"\|\s*`(.+?)`\s*\|", line)
        if cell:
            parts = [re.escape(part) for part in cell.group(1).replace("\\|", "|").split("…")]
            found.append(re.compile(".*?".join(parts), re.DOTALL))
    return found


@pytest.mark.parametrize("name", sorted(SURFACES))
def test_surface_is_clean(name: str, tmp_path: Path) -> None:
    _check(name, BUDGET, 20261125, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SURFACES))
def test_surface_is_clean_at_the_ci_budget(name: str, tmp_path: Path) -> None:
    _check(name, CI_BUDGET, 30, tmp_path)


def _check(name: str, budget: int, seed: int, tmp_path: Path) -> None:
    tally = fuzz(SURFACES[name], budget, seed=seed, tmp=tmp_path)
    shown = "\n".join(f"  [{b}] {label}: {why}" for b, label, why in tally.examples)
    assert tally.bad == 0, f"\n{table([tally])}\n{shown}"
    patterns = catalogued()
    missing = {
        m: label for m, label in tally.refusals.items() if not any(p.search(m) for p in patterns)
    }
    assert not missing, f"refusals that docs/errors.md does not list: {missing}"


def test_the_harness_sorts_each_bucket(tmp_path: Path) -> None:
    """The buckets themselves, on runs whose outcome is known by construction: a harness that
    called everything clean would pass the test above."""
    from fuzzing.harness import Accept, Case, Either, Reject, classify, run_python
    from simeval.errors import InputError

    def refuse(named: str):  # type: ignore[no-untyped-def]
        def call(folder: Path) -> object:
            raise InputError(named, 3, "not a number")

        return call

    def crash(folder: Path) -> object:
        return {}["key"]

    def accept(folder: Path) -> object:
        return {"metrics": {"spearman": 0.5}}

    def right(outcome) -> str | None:  # type: ignore[no-untyped-def]
        return None if '"spearman": 0.5' in outcome.stdout else "differs"

    def wrong(outcome) -> str | None:  # type: ignore[no-untyped-def]
        return "differs"

    cases = [
        (crash, Either(), "traceback"),
        (accept, Reject(), "silent"),
        (accept, Accept(wrong), "wrong"),
        (refuse("a.tsv"), Accept(right), "wrong"),
        (refuse("other.tsv"), Reject(), "unclear"),
        (refuse("a.tsv"), Reject(), "clean"),
        (accept, Accept(right), "clean"),
        (accept, Either(), "clean"),
    ]
    for call, expect, bucket in cases:
        case = Case("t", {"a.tsv": b"x"}, [], expect)
        assert classify(case, run_python(call)(case, tmp_path))[0] == bucket, (call, expect)
