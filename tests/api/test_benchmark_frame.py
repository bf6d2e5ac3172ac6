"""A suite as a table, and its length (issue 47, item 3): ``Benchmark.to_frame()`` gives a row
per member benchmark (name, kind, items, main metric, description), ``len(suite)`` counts the
members (it raised "is a suite" before), and a group holding suites (``sts``) loads."""

from __future__ import annotations

import tomllib
from pathlib import Path

import simeval

REGISTRY = """\
[benchmark.lab-verbs]
gold = "verbs.tsv"
description = "three verb pairs"

[benchmark.lab-nouns]
kind = "related"
gold = "nouns.tsv"

[suite.lab]
members = ["lab-verbs", "lab-nouns"]
aggregate = "mean"
"""
VERBS = [("run", "jog", 8.0), ("eat", "dine", 7.0), ("sit", "fly", 1.0)]
NOUNS = [("cat", "dog", 1), ("cat", "tax", 0), ("car", "van", 1), ("car", "pea", 0)]


def _lab(tmp_path: Path) -> Path:
    for name, rows in (("verbs.tsv", VERBS), ("nouns.tsv", NOUNS)):
        (tmp_path / name).write_text("".join(f"{a}\t{b}\t{s}\n" for a, b, s in rows))
    (tmp_path / "lab.toml").write_text(REGISTRY)
    return tmp_path / "lab.toml"


def test_a_suite_frame_has_a_row_per_member(tmp_path: Path) -> None:
    lab = simeval.benchmark("lab", registry=_lab(tmp_path))
    frame = lab.to_frame()
    assert list(frame.columns) == ["name", "kind", "items", "main_metric", "description"]
    assert frame.to_dict("records") == [
        {"name": "lab-verbs", "kind": "graded-pairs", "items": 3, "main_metric": "spearman",
         "description": "three verb pairs"},
        {"name": "lab-nouns", "kind": "related-pairs", "items": 4, "main_metric": "ap_trapezoid",
         "description": ""},
    ]  # fmt: skip
    assert len(lab) == 2 and len(lab.members[0]) == len(VERBS)


def test_a_benchmark_frame_is_its_own_row() -> None:
    mc30 = simeval.benchmark("mc30")
    assert mc30.to_frame()[["name", "items"]].values.tolist() == [["mc30", 30]]


def test_catalog_suites_count_their_members_as_the_toml_lists_them() -> None:
    import simeval.registry as registry

    folder = Path(registry.__file__).parent / "catalog"
    declared = {}
    for path in folder.glob("*.toml"):
        declared |= tomllib.loads(path.read_text()).get("suite", {})
    for name in ("russe", "sts12", "words", "sts"):  # "sts": a group of suites
        suite = simeval.benchmark(name)
        assert len(suite) == len(declared[name]["members"])
        assert suite.to_frame()["name"].tolist() == declared[name]["members"]
