"""docs/metrics.md is generated from the metric declarations and must be kept up to date; the
declarations agree with the kinds that name them."""

from __future__ import annotations

from pathlib import Path

from simeval.kinds import KINDS
from simeval.kinds.base import SuiteKind
from simeval.metrics import catalog

DOCS = Path(__file__).resolve().parents[2] / "docs" / "metrics.md"


def test_committed_docs_equal_the_generated_page() -> None:
    assert DOCS.read_text(encoding="utf-8") == catalog.markdown_page(), (
        "docs/metrics.md is out of date: python -m simeval.kinds > docs/metrics.md"
    )


def test_the_table_has_a_row_per_declaration() -> None:
    rows = [r for r in catalog.markdown_table().splitlines() if r.startswith("| `")]
    assert len(rows) == len(catalog.METRICS)


def test_every_kind_with_declared_metrics_declares_its_main_one() -> None:
    # suite-sum and suite-mean derive theirs from their members' metrics
    derived = {k.name for k in KINDS.values() if isinstance(k, SuiteKind) and k.aggregate in
               ("sum", "mean")}  # fmt: skip
    for k in KINDS.values():
        if k.name not in derived:
            assert k.main in [m.name for m in catalog.of_kind(k.name)], k.name


def test_no_declaration_names_an_unknown_kind() -> None:
    for m in catalog.METRICS:
        assert set(m.kinds) <= set(KINDS), m.name


def test_the_page_command_prints_the_page() -> None:
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "simeval.kinds"], capture_output=True, text=True, check=True
    ).stdout
    assert out == DOCS.read_text(encoding="utf-8")
    assert "`analogy`" in out  # a kind's own declarations are on it
