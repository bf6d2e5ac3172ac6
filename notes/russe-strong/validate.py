"""Choose the RUSSE combination's parts on the training files only (issue 34).

RUSSE split its relations by word1: a test word1 has no relation list of its own in the
training files, it is reached only through other words' lists. This split reproduces that:
for each track's training file (test pairs removed in both directions, as `train combine
--exclude russe` removes them), 20% of its word1s are held out (seed 0); their rows are the
validation rows, the combination is fitted on the other rows, and the graph is rebuilt from
the four relation files without any row whose word1 is a held-out word1, without the held-out
pairs in either direction and without the test pairs. Each candidate is scored on the held-out rows by average precision (step, as
scikit-learn) twice: with the file's own unrelated rows, and with test-like negatives — each
held-out related row's word1 paired with a word drawn from the other rows' related word2s
(so in proportion to how common and well connected it is), as RUSSE's test negatives are
common, well-connected words (issue 34); the file's own unrelated rows are mostly words the
graph does not reach, which made graph evidence look better than it is on the test.

    PYTHONPATH=src python notes/russe-strong/validate.py [FASTTEXT_DIR]

Candidates: the linear combination (`train combine --model linear`) of navec (+ fastText) and
feature groups, alone and under the graph tiers (`graph:...,fallback=learned`).
"""

from __future__ import annotations

import csv
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
from sklearn.metrics import average_precision_score

from simeval.measures import create_measure
from simeval.measures.learned import CombineConfig, design_matrix, predict
from simeval.text.normalize import normalize
from simeval.train.combine import make_model

R = Path("/work/shared/data/russe")
TESTS = ("test.csv", "hj-test.csv", "rt-test.csv", "ae-test.csv", "ae2-test.csv")
RELATIONS = {"rt": "rt.csv", "ae": "ae-train.csv", "ae2": "ae2-train.csv", "hj": "hj-train.csv"}


def rows(name: str) -> list[tuple[str, str, float]]:
    with open(R / name, encoding="utf-8", newline="") as f:
        return [(r["word1"], r["word2"], float(r["sim"] or "nan")) for r in csv.DictReader(f)]


def key(a: str, b: str) -> frozenset[str]:
    return frozenset((normalize(a.strip()), normalize(b.strip())))


def main() -> None:
    fasttext = sys.argv[1] if len(sys.argv) > 1 else None
    banned = {key(a, b) for n in TESTS for a, b, _ in rows(n)}
    files = {s: [r for r in rows(n) if key(r[0], r[1]) not in banned] for s, n in RELATIONS.items()}
    rng = np.random.default_rng(0)
    navec = create_measure("navec")
    ft = create_measure(f"vectors:path={fasttext},oov=backoff,fallback=zero") if fasttext else None
    report = {}
    for track in ("rt", "ae", "ae2"):
        data = files[track]
        word1s = sorted({normalize(a) for a, _, _ in data})
        held = set(rng.choice(word1s, size=len(word1s) // 5, replace=False))
        fit = [r for r in data if normalize(r[0]) not in held]
        val = [r for r in data if normalize(r[0]) in held]
        vkeys = {key(a, b) for a, b, _ in val}  # as test pairs: never an edge, either way round
        with tempfile.TemporaryDirectory() as tmp:
            g = Path(tmp)
            with open(g / "edges.tsv", "w", encoding="utf-8") as f:
                f.write("word1\tword2\tsource\n")
                for s, rs in files.items():
                    for a, b, sim in rs:
                        if sim >= 0.5 and normalize(a) not in held and key(a, b) not in vkeys:
                            f.write(f"{normalize(a)}\t{normalize(b)}\t{s}\n")
            (g / "graph.json").write_text(json.dumps({"sources": list(files)}), encoding="utf-8")
            graph = create_measure(f"graph:path={g},fallback=zero")
            vp = [(a, b) for a, b, _ in val]
            # test-like negatives: each held-out word1 with a word drawn, in proportion to how
            # often it is a related word2 in the other rows (common, well-connected words), and
            # not known to be related to it
            pool = [normalize(b) for s_, rs in files.items() for a, b, sim in rs
                    if sim >= 0.5 and normalize(a) not in held]  # fmt: skip
            known = {key(a, b) for rs in files.values() for a, b, sim in rs if sim >= 0.5}
            sp = []
            for a, _, sim in val:
                if sim >= 0.5:
                    w = pool[rng.integers(len(pool))]
                    if w != normalize(a) and key(a, w) not in known:
                        sp.append((a, w))
            walk = graph.score_words(vp)
            swalk = graph.score_words(sp)
        connected = walk > 0
        pos = np.array([s >= 0.5 for _, _, s in val])
        # the test-like set: the held-out related rows and the drawn negatives
        like_y = np.r_[np.ones(pos.sum(), int), np.zeros(len(sp), int)]
        like_walk = np.r_[walk[pos], swalk]
        y_fit = np.array([s >= 0.5 for _, _, s in fit], dtype=int)
        y_val = np.array([s >= 0.5 for _, _, s in val], dtype=int)
        out = {"fit_rows": len(fit), "validation_rows": len(val), "held_word1s": len(held),
               "connected_pos": int((connected & (y_val == 1)).sum()),
               "connected_neg": int((connected & (y_val == 0)).sum()),
               "drawn_neg": len(sp), "drawn_neg_connected": int((swalk > 0).sum())}  # fmt: skip
        measure_sets = {"navec": [navec]} | ({"navec+fasttext": [navec, ft]} if ft else {})
        for mname, ms in measure_sets.items():
            words = {w for a, b, _ in fit + val for w in (a, b)} | {w for x in sp for w in x}
            for m in ms:
                m.prepare(words, set())
            for feats in ([], ["length", "orthographic", "pos"]):
                cfg = CombineConfig(measures=[], features=feats, binary=True)
                xf = design_matrix(ms, [(a, b) for a, b, _ in fit], cfg)
                model = make_model(cfg).fit(xf, y_fit)
                p = predict(model, design_matrix(ms, vp, cfg), True)
                like_p = np.r_[p[pos], predict(model, design_matrix(ms, sp, cfg), True)]
                name = f"{mname}+{'+'.join(feats) or 'nofeatures'}"
                tiered = np.where(connected, walk, 0.5 * p)  # as fallback=learned scores
                out[name] = round(float(average_precision_score(y_val, p)), 4)
                out[name + " | graph tiers"] = round(float(average_precision_score(y_val, tiered)), 4)
                like_t = np.where(like_walk > 0, like_walk, 0.5 * like_p)
                out[name + " [drawn neg]"] = round(float(average_precision_score(like_y, like_p)), 4)
                out[name + " | graph tiers [drawn neg]"] = round(
                    float(average_precision_score(like_y, like_t)), 4
                )
        report[track] = out
        print(track, json.dumps(out, ensure_ascii=False, indent=1), flush=True)


if __name__ == "__main__":
    main()
