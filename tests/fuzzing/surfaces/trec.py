"""TREC runs and qrels given to ``simeval score trec``.

The independent numbers are pytrec_eval's (trec_eval's own code): success@1, success@5,
recip_rank, map, Rprec, P, recall and ndcg_cut at 5 and 10 averaged over the queries of the run
that the qrels judge, num_q, num_ret, num_rel and num_rel_ret summed; ``--complete`` averages
over every query of the qrels (trec_eval ``-c``) and ``--max-retrieved k`` keeps each query's
first k documents in trec_eval's order (score descending, ties by docno descending), both
worked out here before pytrec_eval."""

from __future__ import annotations

import random
from collections.abc import Callable

from fuzzing.harness import Accept, Case, Either, Outcome, Reject, Surface, close, damage

MEASURES = ("recip_rank", "success_1", "success_5", "map", "Rprec", "P_5", "P_10", "recall_5",
            "recall_10", "ndcg_cut_5", "ndcg_cut_10", "num_q", "num_ret", "num_rel",
            "num_rel_ret")  # fmt: skip
DOCS = ["d1", "d2", "d3", "D1", "doc-7", "ԁ1", "日本", "x.y/z", "a_b", "0042", "42",
        "\u00e9", "e\u0301"]  # fmt: skip
QUERIES = ["q1", "q2", "Q1", "301", "de-7", "запрос"]

Run = list[tuple[str, str, str, str]]  # qid, docno, rank, score (text)
Qrels = list[tuple[str, str, str]]  # qid, docno, relevance (text)


def _draw(rng: random.Random) -> tuple[Qrels, Run]:
    """Qrels over 1-4 queries, each with at least one relevant document, and a run over
    those queries (and sometimes one the qrels do not judge), scores with ties."""
    queries = rng.sample(QUERIES, rng.randint(1, 4))
    qrels: Qrels = []
    run: Run = []
    for q in queries:
        judged = rng.sample(DOCS, rng.randint(1, 5))
        for k, d in enumerate(judged):
            qrels.append((q, d, str(1 if k == 0 else rng.choice([0, 0, 1, 2]))))
        retrieved = rng.sample(DOCS, rng.randint(1, 8))
        for rank, d in enumerate(retrieved, 1):
            run.append((q, d, str(rank), repr(rng.choice([0.1, 0.5, 0.9, 1.0, -2.5, 3.0]))))
    return qrels, run


def _expected(
    qrels: Qrels, run: Run, complete: bool = False, depth: int | None = None
) -> dict[str, float]:
    import pytrec_eval

    judged: dict[str, dict[str, int]] = {}
    for q, d, r in qrels:
        judged.setdefault(q, {})[d] = int(r)
    ranked: dict[str, dict[str, float]] = {}
    for q, d, _, s in run:
        ranked.setdefault(q, {})[d] = float(s)
    if depth is not None:  # trec_eval -M: the first k in its order
        for q, docs in ranked.items():
            order = sorted(docs, key=lambda d: (docs[d], d.encode()), reverse=True)
            ranked[q] = {d: docs[d] for d in order[:depth]}
    measures = {"recip_rank", "success", "map", "Rprec", "P", "recall", "ndcg_cut", "num_q",
                "num_ret", "num_rel", "num_rel_ret"}  # fmt: skip
    per = pytrec_eval.RelevanceEvaluator(judged, measures).evaluate(ranked)
    queries = len(judged) if complete else len(per)
    out = {}
    for m in MEASURES:
        total = sum(v[m] for v in per.values())
        out[m] = total if m.startswith("num_") else total / queries
    out["num_q"] = float(queries)
    if complete:  # -c: a query the run lacks adds its relevant documents to num_rel
        out["num_rel"] = float(sum(1 for q, d, r in qrels if int(r) >= 1))
    return out


def _check(expected: dict[str, float]) -> Callable[[Outcome], str | None]:
    def check(outcome: Outcome) -> str | None:
        records = outcome.records()
        if len(records) != 1:
            return f"{len(records)} records printed"
        metrics = records[0]["metrics"]
        for m, value in expected.items():
            if not close(metrics.get(m), value, 1e-9):
                return f"{m} {metrics.get(m)} != pytrec_eval's {value}"
        return None

    return check


def _qrels_text(qrels: Qrels, sep: str = " ") -> bytes:
    return "".join(f"{q}{sep}0{sep}{d}{sep}{r}\n" for q, d, r in qrels).encode()


def _run_text(run: Run, sep: str = " ", bucc: bool = False) -> bytes:
    second, name = ("X", "run.name") if bucc else ("Q0", "sys")
    return "".join(
        f"{q}{sep}{second}{sep}{d}{sep}{'Y' if bucc else k}{sep}{s}{sep}{name}\n"
        for q, d, k, s in run
    ).encode()


def _case(label: str, qrels: bytes, run: bytes, expect: object, *extra: str) -> Case:
    argv = ["score", "trec", "--qrels", "qrels.txt", "--run", "run.txt", "--json", *extra]
    return Case(label, {"qrels.txt": qrels, "run.txt": run}, argv, expect)  # type: ignore[arg-type]


def draw(rng: random.Random) -> Case:
    qrels, run = _draw(rng)
    which = rng.choice(["run", "qrels"])
    bad = f"{which}.txt"
    i = rng.randrange(len(run) if which == "run" else len(qrels))
    kind = rng.randrange(18)

    def accept(label: str, q: bytes, r: bytes, *extra: str, **how: object) -> Case:
        return _case(label, q, r, Accept(_check(_expected(qrels, run, **how))), *extra)  # type: ignore[arg-type]

    if kind == 0:  # valid files: the numbers
        return accept("valid", _qrels_text(qrels), _run_text(run))
    if kind == 1:  # unusual but right: BUCC's fields, tabs, runs of spaces, CRLF, a BOM, order
        style = rng.choice(["bucc", "tabs", "spaces", "crlf", "bom", "shuffled", "blank-lines"])
        sep = {"tabs": "\t", "spaces": "   "}.get(style, " ")
        shuffled = run[:]
        if style == "shuffled":
            rng.shuffle(shuffled)
        q, r = _qrels_text(qrels, sep), _run_text(shuffled, sep, bucc=style == "bucc")
        if style == "crlf":
            q, r = q.replace(b"\n", b"\r\n"), r.replace(b"\n", b"\r\n")
        elif style == "bom":
            q, r = b"\xef\xbb\xbf" + q, b"\xef\xbb\xbf" + r
        elif style == "blank-lines":
            q, r = b"\n" + q.replace(b"\n", b"\n\n"), r + b"\n  \n"
        return accept(style, q, r)
    if kind == 2:  # fields trec_eval ignores: ranks (it orders by score), qrels iterations
        rank = rng.choice(["1.5", "x", "-1", "0", "99999999999999999999"])
        ranked = [(q, d, rank, s) for q, d, _, s in run]
        iteration = rng.choice(["0", "Q0", "iter-7", "-1"])
        judged = _qrels_text(qrels).replace(b" 0 ", f" {iteration} ".encode())
        return accept("ignored-fields", judged, _run_text(ranked))
    if kind == 3:  # scores spelled otherwise, huge or tiny ones (past float32's range: inf
        # and 0 in trec_eval, which keeps a score as a C float), or a hair apart

        def spelling(s: str) -> str:
            value = float(s)
            return rng.choice(
                [f"{value:e}", f"{value:+}", repr(value * 1e300), repr(value * 1e-300),
                 repr(value * 2**60), repr(value + 1e-12)]
            )  # fmt: skip

        run = [(q, d, k, spelling(s)) for q, d, k, s in run]
        return accept("score-spelling", _qrels_text(qrels), _run_text(run))
    if kind == 4:  # relevance negative, zero or large: judged, relevant from 1 up
        # each query keeps its first judgement relevant: pytrec_eval crashes (SIGSEGV) on a
        # query judged only below 0 whose run retrieves no judged document
        first = {q: d for q, d, _ in reversed(qrels)}
        qrels = [
            (q, d, "1" if first[q] == d else rng.choice(["-1", "-2", "0", "1000000", "+3", r]))
            for q, d, r in qrels
        ]
        return accept("relevance", _qrels_text(qrels), _run_text(run))
    if kind == 5:  # queries the run has and the qrels not, and the reverse
        run = [*run, ("unjudged", "d1", "1", "0.5")]
        qrels = [*qrels, ("unretrieved", "d9", "1")]
        return accept("extra-queries", _qrels_text(qrels), _run_text(run))
    if kind == 6:  # --complete: every qrels query counted (trec_eval -c)
        qrels = [*qrels, ("unretrieved", "d9", "1")]
        return accept("complete", _qrels_text(qrels), _run_text(run), "--complete", complete=True)
    if kind == 7:  # --max-retrieved k (trec_eval -M)
        depth = rng.randint(1, 4)
        return accept("depth", _qrels_text(qrels), _run_text(run), "--max-retrieved", str(depth),
                      depth=depth)  # fmt: skip
    if kind == 8:  # a document twice for one query in the run, or judged twice
        if which == "run":
            q, d, k, _ = run[i]
            run.insert(rng.randrange(len(run) + 1), (q, d, k, rng.choice(["0.5", run[i][3]])))
        else:
            q, d, r = qrels[i]
            qrels.insert(rng.randrange(len(qrels) + 1), (q, d, rng.choice(["0", "2"])))
        return _case(f"duplicate-{which}", _qrels_text(qrels), _run_text(run), Reject((bad,)))
    if kind == 9:  # a score or relevance that is not a number of its kind
        if which == "run":
            q, d, k, _ = run[i]
            bad_score = rng.choice(["nan", "inf", "-inf", "1e999", "abc", "0x1p3", "1,5", "١"])
            run[i] = (q, d, k, bad_score)
        else:
            q, d, _ = qrels[i]
            bad_rel = rng.choice(["1.5", "1e3", "x", "9223372036854775808", "nan", "٣", ""])
            qrels[i] = (q, d, bad_rel or "0 extra")
        return _case(f"number-{which}", _qrels_text(qrels), _run_text(run), Reject((bad,)))
    if kind == 10:  # a line with too few or too many fields
        lines = (_run_text(run) if which == "run" else _qrels_text(qrels)).split(b"\n")
        fields = lines[i].split(b" ")
        lines[i] = b" ".join(fields[:-1] if rng.random() < 0.5 else [*fields, b"more"])
        data = b"\n".join(lines)
        q, r = (data, _run_text(run)) if which == "qrels" else (_qrels_text(qrels), data)
        return _case(f"fields-{which}", q, r, Reject((bad,)))
    if kind == 11:  # an empty file, or only blank lines
        empty = rng.choice([b"", b"\n", b" \n\t\n"])
        q, r = (empty, _run_text(run)) if which == "qrels" else (_qrels_text(qrels), empty)
        return _case(f"empty-{which}", q, r, Reject((bad,)))
    if kind == 12:  # a huge field: an id past the id cap, a number past the number cap, a line
        size = rng.choice([300, 5000, 2_000_000])
        what = rng.choice(["id", "number"])
        if which == "run":
            q, d, k, s = run[i]
            run[i] = (q, "d" * size, k, s) if what == "id" else (q, d, k, "1" * size)
        else:
            q, d, r = qrels[i]
            qrels[i] = ("q" * size, d, r) if what == "id" else (q, d, "1" * size)
        return _case(f"huge-{what}-{which}", _qrels_text(qrels), _run_text(run), Reject((bad,)))
    if kind == 13:  # control bytes, NUL, another encoding
        data = _run_text(run) if which == "run" else _qrels_text(qrels)
        how = rng.choice(["nul", "utf-16", "cp1251"])
        if how == "nul":
            data = data.replace(b" ", b"\x00", 1)
        elif how == "utf-16":
            data = data.decode().encode("utf-16")
        else:
            data = ("запрос 0 d1 1\n" + data.decode()).encode("cp1251", errors="replace")
        q, r = (data, _run_text(run)) if which == "qrels" else (_qrels_text(qrels), data)
        return _case(f"{how}-{which}", q, r, Reject((bad,)))
    if kind == 14:  # no query of the run is judged: nothing to average
        run = [(f"other{q}", d, k, s) for q, d, k, s in run]
        return _case("disjoint", _qrels_text(qrels), _run_text(run), Either(("run.txt",)))
    if kind == 15:  # a file that is not there, or a folder
        argv = ["score", "trec", "--qrels", "qrels.txt", "--run", "nothere.txt", "--json"]
        files = {"qrels.txt": _qrels_text(qrels)}
        if rng.random() < 0.5:
            files["nothere.txt/x"] = b""
        return Case("no-file", files, argv, Reject(("nothere.txt",)))
    if kind == 16:  # bad option values
        option, value = rng.choice([("--max-retrieved", "0"), ("--max-retrieved", "-1"),
                                    ("--max-retrieved", "x")])  # fmt: skip
        return _case("option", _qrels_text(qrels), _run_text(run), Reject((option,)), option, value)
    data = _run_text(run) if which == "run" else _qrels_text(qrels)
    label, data = damage(rng, data)
    q, r = (data, _run_text(run)) if which == "qrels" else (_qrels_text(qrels), data)
    return _case(f"damage-{label}-{which}", q, r, Either())


SURFACES = [Surface("trec", draw)]
