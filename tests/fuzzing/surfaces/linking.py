"""Linking folders given to ``simeval evaluate overlap -b FOLDER``: ``queries.jsonl``,
``corpus.jsonl``, ``qrels.test`` (or ``qrels``) and ``qrels.train``, as
:mod:`simeval.data.documents` lays them out.

The independent number: every test query's documents scored by the STS-2012 token cosine
written out here (|A ∩ B| / sqrt(|A| |B|) over white-space tokens, as float32 like the
ranker's scores), ordered as trec_eval orders them (score descending, ties by docno in
descending byte order), the first five kept (BUCC 2015's cut), and pytrec_eval's
``recip_rank`` and ``success`` over them."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable
from typing import Any

import numpy as np

from fuzzing.harness import (
    Accept,
    Case,
    Either,
    Outcome,
    Reject,
    Surface,
    damage,
    metrics_check,
)

TOKENS = ["a", "b", "c", "d", "e", "f", "g", "кот", "日本", "Öl"]
DIR = "links"
Row = dict[str, Any]
Judgement = tuple[str, str, int]


def _text(rng: random.Random) -> str:
    return " ".join(rng.sample(TOKENS, rng.randint(1, 4)))


def _collection(
    rng: random.Random,
) -> tuple[list[Row], list[Row], list[Judgement], list[Judgement]]:
    """Queries (test and train), corpus documents, test and train judgements."""
    corpus = [
        {"id": f"d{i}", "source": "hand", "doc_id": str(i), "text": _text(rng)}
        for i in range(rng.randint(3, 8))
    ]
    ids = [d["id"] for d in corpus]
    queries: list[Row] = []
    test: list[Judgement] = []
    train: list[Judgement] = []
    for i in range(rng.randint(1, 4) + rng.randint(0, 2)):
        split = "test" if i == 0 or rng.random() < 0.7 else "train"
        qid = f"q{i}"
        queries.append(
            {
                "id": qid,
                "source": rng.choice(["s1", "s2"]),
                "doc_id": str(i),
                "text": _text(rng),
                "split": split,
            }
        )
        judged = rng.sample(ids, rng.randint(1, min(3, len(ids))))
        rows = test if split == "test" else train
        rows.extend((qid, d, rng.choice([1, 1, 1, 2, 0])) for d in judged)
    return queries, corpus, test, train


def _jsonl(rows: list[Row]) -> bytes:
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    return text.encode("utf-8", "backslashreplace")  # a lone surrogate as its JSON escape


def _qrels(rows: list[Judgement]) -> bytes:
    return "".join(f"{q} 0 {d} {r}\n" for q, d, r in rows).encode()


def _cosine(a: str, b: str) -> float:
    ta, tb = set(a.split()), set(b.split())
    if not ta or not tb:
        return 0.0
    return float(np.float32(len(ta & tb) / math.sqrt(len(ta) * len(tb))))


def _expected(queries: list[Row], corpus: list[Row], test: list[Judgement]) -> dict[str, float]:
    """pytrec_eval's means over the first five documents of each test query."""
    import pytrec_eval

    run: dict[str, dict[str, float]] = {}
    for q in queries:
        if q["split"] != "test":
            continue
        scored = [(_cosine(q["text"], d["text"]), str(d["id"])) for d in corpus]
        scored.sort(key=lambda s: (-s[0], [-b for b in s[1].encode()] + [1]))
        run[str(q["id"])] = {d: s for s, d in scored[:5]}
    qrels: dict[str, dict[str, int]] = {}
    for q, d, r in test:
        qrels.setdefault(q, {})[d] = r
    per = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank", "success"}).evaluate(run)
    n = len(per)
    return {
        "recip_rank": sum(v["recip_rank"] for v in per.values()) / n,
        "success_1": sum(v["success_1"] for v in per.values()) / n,
        "success_5": sum(v["success_5"] for v in per.values()) / n,
        "num_q": float(n),
    }


def _check(
    queries: list[Row], corpus: list[Row], test: list[Judgement]
) -> Callable[[Outcome], str | None]:
    return metrics_check(_expected(queries, corpus, test))


def _case(label: str, files: dict[str, bytes], expect: object) -> Case:
    argv = ["evaluate", "overlap", "-b", DIR, "--json"]
    return Case(label, {f"{DIR}/{k}": v for k, v in files.items()}, argv, expect)  # type: ignore[arg-type]


def _files(
    queries: list[Row],
    corpus: list[Row],
    test: list[Judgement],
    train: list[Judgement],
    qrels_name: str = "qrels.test",
) -> dict[str, bytes]:
    files = {
        "queries.jsonl": _jsonl(queries),
        "corpus.jsonl": _jsonl(corpus),
        qrels_name: _qrels(test),
    }
    if train:
        files["qrels.train"] = _qrels(train)
    return files


def draw(rng: random.Random) -> Case:
    queries, corpus, test, train = _collection(rng)
    files = _files(queries, corpus, test, train)
    right = Accept(_check(queries, corpus, test))
    kind = rng.randrange(25)
    if kind == 0:
        return _case("valid", files, right)
    if kind == 1:  # every file's lines in another order: the same number
        for rows in (queries, corpus, test, train):
            rng.shuffle(rows)
        return _case("shuffled", _files(queries, corpus, test, train), right)
    if kind == 2:  # CRLF line ends or a byte-order mark, in one file
        name = rng.choice(sorted(files))
        style = rng.choice(["crlf", "bom"])
        data = files[name]
        files[name] = data.replace(b"\n", b"\r\n") if style == "crlf" else b"\xef\xbb\xbf" + data
        return _case(f"{style}-{name}", files, right)
    if kind == 3:  # a hand-made folder's test qrels called ``qrels``; a meta.json; extra keys
        style = rng.choice(["qrels", "meta", "extra-key", "int-id"])
        if style == "qrels":
            files = _files(queries, corpus, test, train, "qrels")
        elif style == "meta":
            files["meta.json"] = json.dumps({"lang": "de", "counts": {}}).encode()
        elif style == "extra-key":
            for d in corpus:
                d["title"] = "x"
            files = _files(queries, corpus, test, train)
        else:  # an integer doc_id is read as its digits
            for d in corpus:
                d["doc_id"] = int(d["doc_id"])
            files = _files(queries, corpus, test, train)
        return _case(style, files, right)
    if kind == 4:  # ids that differ only in case, or look alike: distinct documents
        d = dict(corpus[0])
        d["id"] = rng.choice([d["id"].upper(), d["id"].replace("d", "ԁ"), d["id"] + "\u200b"])
        corpus.append(d)
        return _case(
            "look-alike-id",
            _files(queries, corpus, test, train),
            Accept(_check(queries, corpus, test)),
        )
    if kind == 5:  # a key missing, or of the wrong type
        rows, name = rng.choice([(queries, "queries.jsonl"), (corpus, "corpus.jsonl")])
        row = rng.choice(rows)
        key = rng.choice(sorted(row))
        if rng.random() < 0.4:
            del row[key]
        else:
            row[key] = rng.choice([None, 1.5, [], {}, True, ["x"]])
        return _case("bad-key", _files(queries, corpus, test, train), Reject((name,)))
    if kind == 6:  # an id given twice
        rows, name = rng.choice([(queries, "queries.jsonl"), (corpus, "corpus.jsonl")])
        rows.append(dict(rng.choice(rows)))
        return _case("duplicate-id", _files(queries, corpus, test, train), Reject((name,)))
    if kind == 7:  # a split that is neither train nor test
        rng.choice(queries)["split"] = rng.choice(["dev", "Test", "", "test "])
        return _case("bad-split", _files(queries, corpus, test, train), Reject(("queries.jsonl",)))
    if kind == 8:  # qrels naming a document or query that is not there
        q, d, r = test[rng.randrange(len(test))]
        test.append(rng.choice([(q, "nodoc", 1), ("noquery", d, 1)]))
        return _case(
            "unknown-in-qrels", _files(queries, corpus, test, train), Reject(("qrels.test",))
        )
    if kind == 9:  # a test query without a judgement
        queries.append(
            {"id": "lonely", "source": "s1", "doc_id": "9", "text": "a", "split": "test"}
        )
        return _case(
            "unjudged-query",
            _files(queries, corpus, test, train),
            Reject(("queries.jsonl", "qrels.test")),
        )
    if kind == 10:  # a train query judged in the test qrels
        q = rng.choice([q for q in queries if q["split"] == "test"])
        q["split"] = "train"
        return _case("wrong-split", _files(queries, corpus, test, train), Reject(("qrels.test",)))
    if kind == 11:  # a line that is not a JSON object
        name = rng.choice(["queries.jsonl", "corpus.jsonl"])
        lines = files[name].split(b"\n")
        lines.insert(
            rng.randrange(len(lines)), rng.choice([b"[1, 2]", b"{", b'"text"', b"null", b"1"])
        )
        files[name] = b"\n".join(lines)
        return _case("not-an-object", files, Reject((name,)))
    if kind == 12:  # a qrels line of the wrong shape or relevance
        bad = rng.choice(["q0 0 d0", "q0 0 d0 1 extra", "q0 0 d0 x", "q0 0 d0 1.5", "q0 0 d0 nan"])
        files["qrels.test"] += bad.encode() + b"\n"
        return _case("bad-qrels-line", files, Reject(("qrels.test",)))
    if kind == 13:  # one pair judged twice
        q, d, r = rng.choice(test)
        test.append((q, d, rng.choice([r, 1 - min(r, 1)])))
        return _case("judged-twice", _files(queries, corpus, test, train), Reject(("qrels.test",)))
    if kind == 14:  # an empty file
        name = rng.choice(["queries.jsonl", "corpus.jsonl", "qrels.test"])
        files[name] = rng.choice([b"", b"\n", b"\n\n"])
        return _case(f"empty-{name}", files, Reject((name, "queries.jsonl", "qrels.test")))
    if kind == 15:  # a file missing
        name = rng.choice(["queries.jsonl", "corpus.jsonl", "qrels.test"])
        del files[name]
        return _case(f"no-{name}", files, Reject((name, DIR, "qrels")))
    if kind == 16:  # both ``qrels`` and ``qrels.test``: which one is the gold?
        other = [(q, d, 1 - min(r, 1)) for q, d, r in test]
        files["qrels"] = _qrels(other)
        return _case("two-test-qrels", files, Reject(("qrels", "qrels.test")))
    if kind == 17:  # a file in another encoding
        name = rng.choice(["queries.jsonl", "corpus.jsonl"])
        rows = queries if name == "queries.jsonl" else corpus
        rows[0]["text"] = "кот Öl"
        data = _jsonl(rows).decode().replace("\\u", "")  # keep it as written
        files[name] = data.encode(rng.choice(["cp1251", "utf-16", "latin-1"]), errors="replace")
        return _case(f"encoding-{name}", files, Reject((name,)))
    if kind == 18:  # a line over the cap
        name = rng.choice(["queries.jsonl", "corpus.jsonl"])
        rows = queries if name == "queries.jsonl" else corpus
        rows[0]["text"] = "a " * 600_000
        files[name] = _jsonl(rows)
        return _case("huge-line", files, Reject((name,)))
    if kind == 19:  # a long text under the cap: still the same number
        corpus[0]["text"] = " ".join(f"w{i}" for i in range(20_000)) + " a"
        return _case(
            "long-text", _files(queries, corpus, test, train), Accept(_check(queries, corpus, test))
        )
    if kind == 20:  # control characters or path-like ids: ids are names, not paths
        d = rng.choice(corpus)
        old, d["id"] = (
            d["id"],
            rng.choice(["../../etc/passwd", "/abs", "d\x1b[31m", "d\x00", "C:\\x"]),
        )
        test = [(q, d["id"] if j == old else j, r) for q, j, r in test]
        train = [(q, d["id"] if j == old else j, r) for q, j, r in train]
        ok = "\x00" not in d["id"]
        return _case(
            "odd-id",
            _files(queries, corpus, test, train),
            Accept(_check(queries, corpus, test)) if ok else Either(),
        )
    if kind == 21:  # an id with white space cannot be named in qrels
        q = rng.choice(queries)
        old = q["id"]
        q["id"] = rng.choice([f"{old} x", f"{old}\tx", f"{old}\nx", " "])
        return _case(
            "space-id",
            _files(queries, corpus, test, train),
            Reject(("queries.jsonl", "qrels.test", "qrels.train")),
        )
    if kind == 23:  # a JSON escape of half a character, or texts with no token
        rows, name = rng.choice([(queries, "queries.jsonl"), (corpus, "corpus.jsonl")])
        row = rng.choice(rows)
        if rng.random() < 0.5:
            row[rng.choice(["text", "source", "doc_id"])] += rng.choice(["\ud800", "\udfff x"])
            return _case("surrogate", _files(queries, corpus, test, train), Reject((name,)))
        row["text"] = rng.choice(["", " ", "\n", "\u00a0"])
        return _case(
            "no-token", _files(queries, corpus, test, train), Accept(_check(queries, corpus, test))
        )
    if kind == 22:  # meta.json that is not JSON, or not an object
        files["meta.json"] = rng.choice([b"{", b"[1]", b'"de"', b"\xff"])
        return _case("bad-meta", files, Either(("meta.json",)))
    name = rng.choice(sorted(files))
    label, files[name] = damage(rng, files[name])
    return _case(f"damage-{label}-{name}", files, Either())


SURFACES = [Surface("linking-folder", draw)]
