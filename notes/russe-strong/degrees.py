"""Median graph degree of the second word: training unrelated/related pairs per source
against the test files' unrelated (0) and related (1) pairs."""

import csv
import sys
from pathlib import Path

import numpy as np

from simeval.measures.graph import RelationGraph, node, read_edges
from simeval.train.graph import read_negatives

folder = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/russe/ru-graph")
edges, sources = read_edges(folder)
g = RelationGraph(edges, sources)
negatives = read_negatives(folder)


def degree(word: str) -> float:
    i = g.index.get(node(word), -1)
    return float(g.degree[i]) if i >= 0 else 0.0


for s in sources[:3]:
    neg = [degree(b) for _, b, x in negatives if x == s]
    pos = [degree(b) for _, b, x in edges if x == s]
    print("train", s, "unrelated", np.median(neg), "related", np.median(pos))
for name in ("rt-test.csv", "ae-test.csv", "ae2-test.csv"):
    rows = list(csv.DictReader(open(f"/work/shared/data/russe/{name}", encoding="utf-8")))
    for label in ("0", "1"):
        print(name, label, np.median([degree(r["word2"]) for r in rows if r["sim"] == label]))
