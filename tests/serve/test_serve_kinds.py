"""The server asks a target's task kind what it hands out and what a hidden phase may check
(:meth:`TaskKind.input_file`, :meth:`TaskKind.public_check`); nothing in ``simeval.serve``
names a kind, a benchmark or a request class. Expected files are the official data files
themselves (the STS 2012 input, MC-30's pairs), read here with the standard library."""

from __future__ import annotations

import ast
import csv
import io
from pathlib import Path

import pytest

import simeval.serve
from simeval.api import load_target
from simeval.errors import InputError
from simeval.kinds import KINDS
from simeval.kinds.base import TaskKind
from simeval.serve.service.campaigns import input_file
from simeval.serve.service.hidden import public_check


def test_no_serve_module_names_a_kind_benchmark_or_request_class():
    root = Path(simeval.serve.__file__).parent
    found = []
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            module = getattr(node, "module", None) or ""
            if not isinstance(node, ast.ImportFrom):
                continue
            if module.startswith(("simeval.kinds", "simeval.registry")):
                names = [a.name for a in node.names if a.name[0].isupper() and a.name != "Registry"]
                found += [f"{path.name}: {n}" for n in names]
    assert found == []


def test_every_kind_answers_the_servers_two_questions():
    for k in KINDS.values():
        assert callable(k.input_file) and callable(k.public_check), k.name
    assert TaskKind().public_check(object(), Path("x")) == []  # a new kind refuses nothing
    assert TaskKind().input_file(object()) is None


def test_the_sts_input_is_the_official_input_file(data_dir):
    target = load_target("sts12-msrvid")
    name, data = input_file(target)
    official = data_dir / "sts2012" / "test" / "STS.input.MSRvid.txt"
    assert name == "STS.input.MSRvid.txt"
    rows = [line.split("\t")[:2] for line in official.read_text(encoding="utf-8").splitlines()]
    assert [line.split("\t") for line in data.decode().splitlines()] == rows


def test_a_word_pair_input_has_every_pair_and_no_score(data_dir, tmp_path):
    target = load_target("mc30")
    name, data = input_file(target)
    gold = [
        line.split("\t")[:2]
        for line in (data_dir / "mc30" / "EN-MC-30.txt").read_text().split("\n")
        if line
    ]
    rows = list(csv.reader(io.StringIO(data.decode())))
    header, body = rows[0], rows[1:]
    assert len(header) == 3 and name.endswith(".csv")
    assert [r[:2] for r in body] == gold and all(r[2] == "" for r in body)
    blank = tmp_path / "blank.csv"
    blank.write_bytes(data)  # the input itself, sent back unscored
    with pytest.raises(InputError, match="no pair has a score"):
        public_check(target, blank)
    scored = tmp_path / "one.csv"
    scored.write_text(data.decode().replace(",\n", ",0.5\n", 1))
    with pytest.raises(InputError) as refused:  # MC-30 takes no missing pair
        public_check(target, scored)
    expected = f"{len(gold) - 1} of {len(gold)} input pairs have no score"
    assert expected in str(refused.value) and "needs a score for every pair" in str(refused.value)
