"""``graph:...,fallback=learned,learned=FOLDER``: graph-connected pairs keep their tier above
½, every other pair gets ½ × the combination's P(related). Expected values are worked out by
hand below from a three-word graph and a one-coefficient logistic model."""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import numpy as np
import pytest

from simeval.errors import InputError
from simeval.measures import create_measure


def _graph(folder: Path) -> Path:
    """The path graph а – б – в (one source)."""
    folder.mkdir()
    (folder / "edges.tsv").write_text("word1\tword2\tsource\nа\tб\tx\nб\tв\tx\n", encoding="utf-8")
    (folder / "graph.json").write_text('{"sources": ["x"]}', encoding="utf-8")
    return folder


def _combination(folder: Path) -> Path:
    """A `train combine` folder by hand: logistic regression on the length features alone,
    mean 0, scale 1, coefficient ln 3 on the length ratio and 0 elsewhere, intercept 0, so that
    P(related) = 1 / (1 + 3^−ratio)."""
    folder.mkdir()
    arrays = {
        "mean": np.zeros(3), "scale": np.ones(3),
        "coef": np.array([0.0, 0.0, math.log(3.0)]), "intercept": np.zeros(1),
    }  # fmt: skip
    with open(folder / "model.npz", "wb") as f:
        np.savez(f, **arrays)
    record = {
        "config": {"on": [], "measures": [], "features": ["length"], "binary": True},
        "columns": ["length_min", "length_max", "length_ratio"],
        "data": {},
        "model_sha256": hashlib.sha256((folder / "model.npz").read_bytes()).hexdigest(),
    }
    (folder / "combine.json").write_text(json.dumps(record), encoding="utf-8")
    return folder


def test_unconnected_pairs_get_half_the_combinations_probability(tmp_path: Path) -> None:
    graph, learned = _graph(tmp_path / "g"), _combination(tmp_path / "c")
    m = create_measure(f"graph:path={graph},fallback=learned,learned={learned}")
    pairs = [("а", "б"), ("а", "в"), ("кот", "пес"), ("а", "кот")]
    m.prepare({w for p in pairs for w in p}, set())
    got = m.score_words(pairs)
    # а–б is an edge: 1. а–в: two-step walk ½(P²_ав + P²_ва) = ½(1·½ + 1·½) = ½, no walk of
    # three steps (the path graph is bipartite), so g = ½ and the score ½ + ½·(½ / 1.5) = 2/3.
    # кот–пес: no graph evidence, length ratio 3/3 = 1, P = 1 / (1 + 1/3) = ¾, score ⅜.
    # а–кот: ratio 1/3, P = 1 / (1 + 3^(−1/3)), score half of it.
    expected = [1.0, 2.0 / 3.0, 0.375, 0.5 / (1.0 + 3.0 ** (-1.0 / 3.0))]
    assert got == pytest.approx(expected, abs=1e-12)
    assert m.params["learned"] == str(learned)


def test_fallback_learned_needs_its_folder(tmp_path: Path) -> None:
    graph = _graph(tmp_path / "g")
    with pytest.raises(InputError, match="fallback=learned needs learned=DIR"):
        create_measure(f"graph:path={graph},fallback=learned")
