"""success@1 and MRR (over the top 100) of a ranker spec on xling-hard-<lang>'s train queries
("dev": the queries ranked against every English document, the test queries given as further
unlabelled X documents, no gold link used) and on its test queries, the figures of
notes/xling-hard.md's section "Chinese, issue 34 item 4".

    python notes/xling_zh_dev.py 'dictionary:csls=3,simplified=true,cedict=true' [zh]
"""

from __future__ import annotations

import sys

import numpy as np

from simeval.api import load_target
from simeval.data.documents import LinkingInput
from simeval.measures import create_measure


def scores(spec: str, lang: str = "zh") -> dict[str, tuple[float, float]]:
    coll = load_target(f"xling-hard-{lang}").collection
    position = {d.id: i for i, d in enumerate(coll.corpus)}
    out = {}
    for part, (ranked, others) in {"dev": ("train", "test"), "test": ("test", "train")}.items():
        queries, rest = coll.split(ranked), coll.split(others)
        data = LinkingInput(
            coll.lang,
            [q.text for q in queries],
            [d.text for d in coll.corpus],
            [q.text for q in rest],
            np.zeros(0, np.int64),
            [d.id for d in coll.corpus],
        )
        top = create_measure(spec).rank(data, 100)
        s1, rr = [], []
        for i, q in enumerate(queries):
            gold = {position[d] for d in coll.relevant(q.id)}
            hits = [j for j, doc in enumerate(top.index[i]) if doc in gold]
            s1.append(bool(hits) and hits[0] == 0)
            rr.append(1 / (hits[0] + 1) if hits else 0.0)
        out[part] = (round(float(np.mean(s1)), 4), round(float(np.mean(rr)), 4))
    return out


if __name__ == "__main__":
    print(sys.argv[1], scores(*sys.argv[1:3]))
