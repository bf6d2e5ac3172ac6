"""Measure specs: the MEASURE argument of ``simeval evaluate`` (``name:key=value,...``), on a
tiny gold pair file.

Right specs of the measures this module can compute by hand (``orthographic:kind=prefix`` and
``kind=levenshtein``) are checked against scipy's Spearman of its own scores; a wrong spec,
of any measure, must be refused before anything loads (an encoder spec is never right here,
so no model is ever loaded)."""

from __future__ import annotations

import random
from functools import cache

from fuzzing.harness import (
    Accept,
    Case,
    Either,
    Outcome,
    PairRows,
    Reject,
    Surface,
    pair_rows,
    pair_text,
    prefix_ratio,
    spearman_check,
)


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance, top-down over suffixes (unit costs)."""

    @cache
    def d(i: int, j: int) -> int:
        if i == len(a) or j == len(b):
            return len(a) - i + len(b) - j
        return min(d(i + 1, j) + 1, d(i, j + 1) + 1, d(i + 1, j + 1) + (a[i] != b[j]))

    return d(0, 0)


def levenshtein_ratio(a: str, b: str) -> float:
    return 1 - edit_distance(a, b) / max(len(a), len(b), 1)


def _scored(gold: PairRows, fn: object, lower: bool) -> PairRows:
    f = fn  # type: ignore[assignment]
    return [(a, b, repr(f(a.lower(), b.lower()) if lower else f(a, b))) for a, b, _ in gold]  # type: ignore[operator]


def _case(label: str, spec: str, gold: bytes, expect: object) -> Case:
    argv = ["evaluate", spec, "-b", "gold.tsv", "--no-save", "--json"]
    return Case(label, {"gold.tsv": gold}, argv, expect)  # type: ignore[arg-type]


def _in_range(outcome: Outcome) -> str | None:
    records = outcome.records()
    if len(records) != 1:
        return f"{len(records)} records printed"
    rho = records[0]["metrics"].get("spearman")
    return None if rho is None or -1 <= rho <= 1 else f"spearman {rho} outside [-1, 1]"


# (spec, a name the refusal must hold): each one wrong, whatever the gold file
WRONG = [
    ("orthographic:kind=prefix,kind=dice", "kind"),
    ("orthographic:kind=soundex", "kind"),
    ("orthographic:knd=prefix", "knd"),
    ("orthographic:n=0", "n"),
    ("orthographic:n=-3", "n"),
    ("orthographic:n=3.5", "n"),
    ("orthographic:n=nan", "n"),
    ("orthographic:n=", "n"),
    ("orthographic:lower=maybe", "lower"),
    ("orthographic:kind", "kind"),
    ("orthographic:=prefix", "=prefix"),
    ("orthographic:kind:prefix", "kind"),
    ("orthographic;kind=prefix", "orthographic"),
    ("random:seed=abc", "seed"),
    ("random:seed=1e3", "seed"),
    ("random:seed=inf", "seed"),
    ("random:seed=1,seed=2", "seed"),
    ("overlap:lower=true", "lower"),
    ("jaccard:x=1", "x"),
    ("encoder:batch=0", "batch"),
    ("encoder:batch=-4", "batch"),
    ("encoder:batch=ten", "batch"),
    ("encoder:backend=tensorflow", "backend"),
    ("encoder:cache=sometimes", "cache"),
    ("encoder:modle=x", "modle"),
    ("encoder:model=nothere", "nothere"),  # refused before any model loads
    ("encoder:model=.", "sentence-transformers"),
    ("encoder:batch=99999999999999999999999", "batch"),
    ("vectors", "path"),
    ("vectors:path=", "path"),
    ("vectors:path=nothere.vec", "nothere.vec"),
    ("vectors:path=gold.tsv,format=fasttext", "format"),
    ("vectors:path=gold.tsv,oov=ignore", "oov"),
    ("vectors:path=gold.tsv,sif=2", "sif"),
    ("graph", "path"),
    ("graph:path=nothere", "nothere"),
    ("graph:path=.,score=pagerank", "score"),
    ("learned", "model"),
    ("learned:model=nothere", "nothere"),
    ("dictionary:translations=0", "translations"),
    ("hapax:max_df=2", "max_df"),
    ("combine:rankers=dictionary+nosuch", "nosuch"),
    ("", "measure"),
    (":", "measure"),
    (":kind=prefix", "measure"),
    ("Overlap", "Overlap"),
    ("оverlap", "verlap"),  # a Cyrillic о
    ("ov erlap", "ov erlap"),
    ("overlap\x1b[31m", "overlap"),
    ("../../overlap", "overlap"),
    ("orthographic:kind=" + "x" * 20_000, "kind"),
    ("levenshtein", "levenshtein"),
]


def draw(rng: random.Random) -> Case:
    gold, _ = pair_rows(rng)
    g = pair_text(gold)
    kind = rng.randrange(6)
    if kind in (0, 1):  # a right spec of a measure computed here, in any of its spellings
        which = rng.choice(["prefix", "levenshtein"])
        fn = prefix_ratio if which == "prefix" else levenshtein_ratio
        lower = rng.random() < 0.5
        says = rng.choice(["false", "no", "0"]) if not lower else rng.choice(["", "true", "YES"])
        params = [f"kind={which}", *([f"lower={says}"] if says else [])]
        rng.shuffle(params)
        sep = rng.choice([",", ", ", " ,"])
        spec = rng.choice(["", " "]) + "orthographic:" + sep.join(params)
        expect = Accept(spearman_check(gold, _scored(gold, fn, lower)))
        return _case(f"right-{which}", spec, g, expect)
    if kind == 2:  # a right spec whose scores only simeval knows: a correlation, in range
        spec = rng.choice(["random", "random:seed=7", "random:seed=-1", "jaccard", "overlap",
                           "orthographic:kind=dice,n=2", "orthographic:n=1",
                           "overlap:"])  # fmt: skip
        return _case("right-other", spec, g, Accept(_in_range))
    if kind == 3 and rng.random() < 0.5:  # a model folder, right or damaged
        return _model_folder(rng, g)
    spec, name = rng.choice(WRONG)
    if kind == 5 and spec and not spec.startswith("encoder"):  # its separators spaced
        spec = spec.replace(",", " , ").replace(":", " :", 1)
        return _case("wrong-spaced", spec, g, Either((name.strip(),)))
    return _case("wrong", spec, g, Reject((name,), warning_ok=False))


EDGES = b"word1\tword2\tsource\ncat\tcar\tsyn\ncar\tcart\tsyn\ndog\tcat\trel\n"
RECORD = b'{"sources": ["syn", "rel"]}'
# (file, bytes) of a graph folder made wrong; None: the file left out
GRAPH_DAMAGE = [
    ("gr/edges.tsv", None),
    ("gr/graph.json", None),
    ("gr/edges.tsv", EDGES.replace(b"word1\t", b"")),
    ("gr/edges.tsv", EDGES + b"dog\tcat\n"),
    ("gr/edges.tsv", EDGES + b"dog\t\trel\n"),
    ("gr/edges.tsv", EDGES + b"dog\tsun\tother\n"),
    ("gr/edges.tsv", EDGES + b"\xff\xfe\tsun\tsyn\n"),
    ("gr/graph.json", b'{"sources": "syn"}'),
    ("gr/graph.json", b'{"sources": [1, 2]}'),
    ("gr/graph.json", b"[]"),
    ("gr/graph.json", b"{"),
    ("gr/graph.json", b"\xff"),
    ("lm/combine.json", b"{}"),
    ("lm/combine.json", b'{"config": [], "columns": [], "data": {}, "model_sha256": "x"}'),
    ("lm/combine.json", b'{"config": {}, "columns": 3, "data": {}, "model_sha256": "x"}'),
    ("lm/combine.json", b"not json"),
]


def _model_folder(rng: random.Random, gold: bytes) -> Case:
    """A graph folder (``simeval train graph``'s files, written by hand) scored on the gold, or
    one file of it (or of a ``learned`` folder) damaged."""
    files = {"gold.tsv": gold, "gr/edges.tsv": EDGES, "gr/graph.json": RECORD}
    score = rng.choice(["walk", "common", "adamic_adar"])
    if rng.random() < 0.3:
        case = _case("graph", f"graph:path=gr,score={score}", gold, Accept(_in_range))
        case.files = files
        return case
    path, data = rng.choice(GRAPH_DAMAGE)
    folder = path.split("/")[0]
    if data is None:
        del files[path]
    else:
        files[path] = data
    spec = "graph:path=gr" if folder == "gr" else "learned:model=lm"
    name = path.split("/")[-1] if data is not None else folder
    case = _case(f"damaged-{folder}", spec, gold, Reject((name,), False))
    case.files = files
    return case


SURFACES = [Surface("measure-spec", draw)]
