"""``simeval build linking OUT --input FORMAT:FILES``: linked document pairs (marked lines, NTREX
files) made into a linking folder, and the options of the preparation.

The independent result, for the options whose outcome is plain (no first sentence dropped, no
length filter, no noise): every pair is one query whose text is its X sentences and whose one
judged document is its English sentences; ``--test-share`` 1 puts every query in test, 0 every
one in train."""

from __future__ import annotations

import json
import random
from collections.abc import Callable

from fuzzing.harness import Accept, Case, Either, Outcome, Reject, Surface, damage

WORDS = [
    "Haus",
    "Baum",
    "Straße",
    "Katze",
    "Hund",
    "Wasser",
    "house",
    "tree",
    "street",
    "cat",
    "dog",
    "water",
    "日本",
    "кот",
]
Doc = tuple[str, list[str], list[str]]  # id, X sentences, English sentences
PLAIN = ["--no-drop-first", "--no-iqr"]


def _docs(rng: random.Random) -> list[Doc]:
    def sentence() -> str:
        return " ".join(rng.choices(WORDS, k=rng.randint(1, 5))) + "."

    docs = []
    for i in range(rng.randint(2, 6)):
        n = rng.randint(1, 4)
        docs.append((f"doc{i}", [sentence() for _ in range(n)], [sentence() for _ in range(n)]))
    return docs


def _marked(docs: list[Doc]) -> tuple[bytes, bytes]:
    x = "".join("<d>\n" + "".join(s + "\n" for s in xs) for _, xs, _ in docs)
    en = "".join("<d>\n" + "".join(s + "\n" for s in es) for _, _, es in docs)
    return x.encode(), en.encode()


def _ntrex(docs: list[Doc]) -> tuple[bytes, bytes, bytes]:
    ids = "".join(f"{d}\n" for d, xs, _ in docs for _ in xs)
    x = "".join(s + "\n" for _, xs, _ in docs for s in xs)
    en = "".join(s + "\n" for _, _, es in docs for s in es)
    return ids.encode(), x.encode(), en.encode()


def _sgm(docs: list[Doc], side: int) -> bytes:
    body = "".join(
        f'<doc docid="{d}" genre="news">\n'
        + "".join(f'<seg id="{k}">{t}</seg>\n' for k, t in enumerate(sides[side], 1))
        + "</doc>\n"
        for d, *sides in docs
    )
    return f'<srcset setid="t" srclang="any">\n{body}</srcset>\n'.encode()


def _xml(docs: list[Doc]) -> bytes:
    def segs(texts: list[str]) -> str:
        return "<p>" + "".join(f'<seg id="{k}">{t}</seg>' for k, t in enumerate(texts, 1)) + "</p>"

    body = "".join(
        f'<doc id="{d}"><src lang="de">{segs(xs)}</src>'
        f'<ref lang="en" translator="A">{segs(es)}</ref>'
        f'<ref lang="en" translator="B">{segs(["other."] * len(es))}</ref></doc>'
        for d, xs, es in docs
    )
    return f'<?xml version="1.0" encoding="utf-8"?>\n<dataset id="t">{body}</dataset>\n'.encode()


def _wmt_txt(docs: list[Doc]) -> tuple[bytes, bytes, bytes]:
    ids = "".join(f"news\t{d}\n" for d, xs, _ in docs for _ in xs)
    x = "".join(s + "\n" for _, xs, _ in docs for s in xs)
    en = "".join(s + "\n" for _, _, es in docs for s in es)
    return ids.encode(), en.encode(), x.encode()


def _wiki(docs: list[Doc]) -> bytes:
    import io
    import tarfile

    text = "".join(
        f"{d}\tsec\tsec\t{a}\t{b}\n" for d, xs, es in docs for a, b in zip(xs, es, strict=True)
    ).encode()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        info = tarfile.TarInfo("zh-en/test.zh-en")
        info.size = len(text)
        tar.addfile(info, io.BytesIO(text))
    return buf.getvalue()


FORMATS: dict[str, tuple[str, Callable[[list[Doc]], dict[str, bytes]]]] = {
    "ntrex": (
        "ntrex:ids.tsv,x.txt,en.txt",
        lambda d: dict(zip(("ids.tsv", "x.txt", "en.txt"), _ntrex(d), strict=True)),
    ),
    "wmt-sgm": ("wmt-sgm:x.sgm,en.sgm", lambda d: {"x.sgm": _sgm(d, 0), "en.sgm": _sgm(d, 1)}),
    "wmt-xml": ("wmt-xml:t.xml", lambda d: {"t.xml": _xml(d)}),
    "wmt-txt": (
        "wmt-txt:en.docs,en.txt,x.txt",
        lambda d: dict(zip(("en.docs", "en.txt", "x.txt"), _wmt_txt(d), strict=True)),
    ),
    "wiki-tsv": ("wiki-tsv:zh-en.tar.gz,zh-en/test.zh-en", lambda d: {"zh-en.tar.gz": _wiki(d)}),
}


def _check(docs: list[Doc], split: str) -> Callable[[Outcome], str | None]:
    """Each pair a query of ``split`` linked to its English document, texts as given."""
    expected = sorted(("\n".join(xs), "\n".join(es)) for _, xs, es in docs)

    def check(outcome: Outcome) -> str | None:
        out = outcome.folder / "out"

        def rows(name: str) -> list[dict]:
            text = (out / name).read_text(encoding="utf-8")
            return [json.loads(line) for line in text.splitlines() if line.strip()]

        queries, corpus = rows("queries.jsonl"), rows("corpus.jsonl")
        if {q["split"] for q in queries} - {split}:
            return f"splits {sorted({q['split'] for q in queries})}, expected only {split}"
        english = {d["id"]: d["text"] for d in corpus}
        judged: dict[str, list[str]] = {}
        for line in (out / f"qrels.{split}").read_text(encoding="utf-8").splitlines():
            q, _, d, r = line.split(" ")
            if r != "1":
                return f"relevance {r} in qrels.{split}"
            judged.setdefault(q, []).append(d)
        got = sorted((q["text"], english[judged[q["id"]][0]]) for q in queries)
        if any(len(v) != 1 for v in judged.values()):
            return "a query judged with more than one document"
        return None if got == expected else f"pairs {got} != {expected}"

    return check


def _case(label: str, files: dict[str, bytes], spec: str, expect: object, *extra: str) -> Case:
    argv = ["build", "linking", "out", "--lang", "de", "--input", spec, *extra]
    return Case(label, files, argv, expect)  # type: ignore[arg-type]


def draw(rng: random.Random) -> Case:
    docs = _docs(rng)
    x, en = _marked(docs)
    files = {"x.txt": x, "en.txt": en}
    spec = "marked-lines:x.txt,en.txt"
    split, share = rng.choice([("test", "1"), ("train", "0")])
    plain = [*PLAIN, "--test-share", share]
    right = Accept(_check(docs, split))
    kind = rng.randrange(20)
    if kind == 0:
        return _case("valid-marked", files, spec, right, *plain)
    if kind == 1:  # the other formats: the same folder
        name = rng.choice(sorted(FORMATS))
        spec, make = FORMATS[name]
        files = make(docs)
        if rng.random() < 0.3:  # a damaged file of that format: any clean outcome
            damaged = rng.choice(sorted(files))
            label, files[damaged] = damage(rng, files[damaged])
            return _case(f"damage-{label}-{name}", files, spec, Either(), *plain)
        return _case(f"valid-{name}", files, spec, right, *plain)
    if kind == 2:  # CRLF line ends or a byte-order mark: the same folder
        name = rng.choice(sorted(files))
        if rng.random() < 0.5:
            files[name] = files[name].replace(b"\n", b"\r\n")
        else:
            files[name] = b"\xef\xbb\xbf" + files[name]
        return _case("crlf-bom", files, spec, right, *plain)
    if kind == 3:  # the default preparation (BUCC's): any clean outcome
        extra = rng.choice([[], ["--halves"], ["--drop-sentences", "0.3"], ["--seed", "7"]])
        return _case("defaults", files, spec, Either(), *extra)
    if kind == 4:  # a share, probability or seed out of range
        option, value = rng.choice(
            [("--test-share", v) for v in ("-0.1", "1.5", "nan", "inf", "-inf")]
            + [("--drop-sentences", v) for v in ("-0.5", "1", "2", "nan", "inf")]
            + [("--seed", v) for v in ("-1", "-99999999999")]
        )
        return _case("bad-option", files, spec, Reject((option,)), option, value)
    if kind == 5:  # halves of pairs with sentences dropped at random: no longer aligned
        return _case(
            "halves-noise",
            files,
            spec,
            Reject(("--halves", "--drop-sentences")),
            "--halves",
            "--drop-sentences",
            "0.2",
        )
    if kind == 6:  # a language no collection has
        lang = rng.choice(["e s", "", "DE", "de ", "en", "../de", "de\x1b"])
        argv = ["build", "linking", "out", "--lang", lang, "--input", spec]
        return Case("bad-lang", files, argv, Reject(("--lang", "language")))
    if kind == 7:  # an input spec of the wrong shape
        bad = rng.choice(
            [
                "marked-lines:x.txt",
                "nope:x.txt,en.txt",
                "x.txt",
                "marked-lines:",
                "ntrex:x.txt,en.txt",
                "marked-lines:x.txt,en.txt,x.txt",
            ]
        )
        return _case("bad-spec", files, bad, Reject(("--input", "input")))
    if kind == 8:  # a file that is not there
        return _case("no-file", files, "marked-lines:x.txt,nothere.txt", Reject(("nothere.txt",)))
    if kind == 9:  # the two sides of different lengths
        files["en.txt"] += b"one more line.\n"
        return _case("uneven", files, spec, Reject(("en.txt", "x.txt")), *plain)
    if kind == 10:  # a document marker on one side only
        lines = files["en.txt"].split(b"\n")
        i = rng.randrange(len(lines) - 1)
        lines[i] = b"text." if lines[i] == b"<d>" else b"<d>"
        files["en.txt"] = b"\n".join(lines)
        return _case("marker-one-side", files, spec, Reject(("en.txt",)), *plain)
    if kind == 11:  # one document id twice in the NTREX ids
        ids, x, en = _ntrex(docs)
        lines = ids.split(b"\n")
        lines[-2] = b"doc0"  # the last document's last line takes the first's id
        files = {"ids.tsv": b"\n".join(lines), "x.txt": x, "en.txt": en}
        return _case(
            "ntrex-id-twice", files, "ntrex:ids.tsv,x.txt,en.txt", Either(("ids.tsv",)), *plain
        )
    if kind == 12:  # the same input given twice
        return _case("input-twice", files, spec, Reject(("x.txt", "twice")), "--input", spec)
    if kind == 13:  # an empty input, or one with markers only
        files["x.txt"] = files["en.txt"] = rng.choice([b"", b"<d>\n", b"\n\n"])
        return _case("empty", files, spec, Reject(("x.txt", "en.txt", "no document pair")))
    if kind == 14:  # an output that exists
        files["out/keep.txt"] = b"mine"
        return _case("out-exists", files, spec, Reject(("out",)), *plain)
    if kind == 15:  # a file in another encoding
        files["x.txt"] = "Straße кот.\n".encode(
            rng.choice(["cp1251", "utf-16", "latin-1"]), errors="replace"
        )
        return _case("encoding", files, spec, Either(("x.txt",)))
    if kind == 16:  # SQuAD JSON of the wrong shape
        data = rng.choice(
            [
                b'{"data": 5}',
                b"[]",
                b"{",
                b'{"data": [{"paragraphs": [{}]}]}',
                b'{"data": [{"paragraphs": [{"context": 5}]}]}',
            ]
        )
        files = {"x.json": data, "en.json": data}
        return _case("bad-xquad", files, "xquad:x.json,en.json", Reject(("x.json", "en.json")))
    if kind == 17:  # a line over the cap
        files["x.txt"] = files["x.txt"].replace(b".\n", b"." + b"x" * (1 << 20) + b"\n", 1)
        return _case("huge-line", files, spec, Reject(("x.txt",)))
    if kind == 18:  # control characters in a sentence: kept as text
        i = rng.randrange(len(docs))
        d, xs, es = docs[i]
        xs = [xs[0] + rng.choice(["\x1b[31m", "\x07", "\x0c", "\u2028"]), *xs[1:]]
        docs[i] = (d, xs, es)
        x, en = _marked(docs)
        return _case("control", {"x.txt": x, "en.txt": en}, spec, Either(), *plain)
    name = rng.choice(sorted(files))
    label, files[name] = damage(rng, files[name])
    return _case(f"damage-{label}", files, spec, Either(), *plain)


SURFACES = [Surface("build-linking", draw)]
