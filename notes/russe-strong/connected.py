"""Pairs the graph connects within 3 steps (score > 0 under graph:...,score=walk), per
benchmark and gold label, from the item rows that `simeval evaluate` wrote."""

import csv
import gzip
import json
import sys

folder = sys.argv[1] if len(sys.argv) > 1 else "/tmp/russe/results"
for line in open(f"{folder}/results.jsonl", encoding="utf-8"):
    r = json.loads(line)
    if r["system"]["spec"].endswith("ru-graph,score=walk"):
        with gzip.open(f"{folder}/{r['items_file']}", "rt", encoding="utf-8") as f:
            rows = list(csv.DictReader(f, delimiter="\t"))
        hit = [x for x in rows if float(x["score"]) > 0]
        related = [x for x in hit if float(x["gold"]) >= 0.5]
        print(r["benchmark"], f"{len(hit)}/{len(rows)} connected,", f"{len(related)} of them gold >= 0.5")
