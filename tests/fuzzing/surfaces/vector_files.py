"""Vector files: ``evaluate vectors:path=FILE[,format=F]`` on a tiny gold pair file, in each
format simeval reads (word2vec text, GloVe text, word2vec binary, a model folder of
``vocab.txt`` + ``vectors.npy`` or a sparse ``vectors.npz``).

The independent number: the cosine of each gold pair's vectors, computed here with numpy from
the values written, then scipy's Spearman against the gold."""

from __future__ import annotations

import gzip
import io
import pickle
import random
import struct

import numpy as np

from fuzzing.harness import (
    PAIR_WORDS,
    Accept,
    Case,
    Either,
    Reject,
    Surface,
    damage,
    pair_rows,
    pair_text,
    spearman_check,
)

Vectors = dict[str, list[float]]
WORDS = [*PAIR_WORDS, "кот", "собака", "Öl"]


def _vectors(rng: random.Random, words: list[str]) -> Vectors:
    """Random non-zero vectors with six decimals (what the text formats hold exactly)."""
    dim = rng.randint(2, 6)
    found: Vectors = {}
    for w in words:
        row = [round(rng.gauss(0, 1), 6) for _ in range(dim)]
        found[w] = row if any(row) else [1.0] * dim
    return found


def _cosines(gold: list[tuple[str, str, str]], vectors: Vectors) -> list[tuple[str, str, str]]:
    out = []
    for a, b, _ in gold:
        x, y = np.array(vectors[a], dtype=np.float64), np.array(vectors[b], dtype=np.float64)
        out.append((a, b, repr(float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y))))))
    return out


def _text(vectors: Vectors, header: bool, eol: str = "\n") -> bytes:
    dim = len(next(iter(vectors.values())))
    head = [f"{len(vectors)} {dim}"] if header else []
    rows = [f"{w} " + " ".join(f"{v:.6f}" for v in row) for w, row in vectors.items()]
    return (eol.join(head + rows) + eol).encode()


def _binary(vectors: Vectors) -> bytes:
    dim = len(next(iter(vectors.values())))
    out = io.BytesIO()
    out.write(f"{len(vectors)} {dim}\n".encode())
    for w, row in vectors.items():
        out.write(w.encode() + b" " + struct.pack(f"<{dim}f", *row) + b"\n")
    return out.getvalue()


def _folder(vectors: Vectors, packed: bool) -> dict[str, bytes]:
    vocab = "".join(f"{w}\n" for w in vectors).encode()
    matrix = np.array(list(vectors.values()), dtype=np.float32)
    out = io.BytesIO()
    if packed:
        from scipy import sparse

        sparse.save_npz(out, sparse.csr_matrix(matrix))
        return {"model/vocab.txt": vocab, "model/vectors.npz": out.getvalue()}
    np.save(out, matrix)
    return {"model/vocab.txt": vocab, "model/vectors.npy": out.getvalue()}


FORMATS = {  # format name → (file name, writer)
    "word2vec": ("vec.txt", lambda v: {"vec.txt": _text(v, True)}),
    "glove": ("glove.txt", lambda v: {"glove.txt": _text(v, False)}),
    "word2vec-bin": ("vec.bin", lambda v: {"vec.bin": _binary(v)}),
    "model": ("model", lambda v: _folder(v, packed=False)),
    "model-npz": ("model", lambda v: _folder(v, packed=True)),
}


def _case(label: str, files: dict[str, bytes], spec: str, expect: object) -> Case:
    argv = ["evaluate", spec, "-b", "gold.tsv", "--no-save", "--json"]
    return Case(label, files, argv, expect)  # type: ignore[arg-type]


def draw(rng: random.Random) -> Case:
    gold, _ = pair_rows(rng, WORDS)
    asked = sorted({w for a, b, _ in gold for w in (a, b)})
    others = [w for w in WORDS if w not in asked]
    vectors = _vectors(rng, asked + rng.sample(others, rng.randint(0, len(others))))
    order = list(vectors.items())
    rng.shuffle(order)
    vectors = dict(order)
    fmt = rng.choice(list(FORMATS))
    name, write = FORMATS[fmt]
    files = {"gold.tsv": pair_text(gold), **write(vectors)}
    said = "model" if fmt == "model-npz" else fmt
    spec = f"vectors:path={name}" + rng.choice(["", f",format={said}"])
    right = Accept(spearman_check(gold, _cosines(gold, vectors)))
    kind = rng.randrange(16)
    if kind in (0, 1):  # a right file in its format: the cosines' number
        return _case(f"right-{fmt}", files, spec, right)
    if kind == 2:  # text with CRLF ends, or trailing spaces: the same numbers
        style = rng.choice(["crlf", "spaces"])
        header = fmt == "word2vec"
        text = _text(vectors, header, "\r\n") if style == "crlf" else _text(vectors, header)
        if style == "spaces":
            text = text.replace(b"\n", b" \n")
        files = {"gold.tsv": pair_text(gold), "v.txt": text}
        spec = "vectors:path=v.txt" + ("" if not header else ",format=word2vec")
        return _case(f"text-{style}", files, spec, right if style == "crlf" else Either(("v.txt",)))
    text_name, text = "v.txt", _text(vectors, header=True)
    lines = text.split(b"\n")
    i = rng.randrange(1, len(lines) - 1)  # a row (line 1 is the header)
    word = lines[i].split(b" ")[0].decode()
    text_case = {"gold.tsv": pair_text(gold)}
    text_spec = "vectors:path=v.txt"
    refused = Reject((text_name,), warning_ok=False)
    if kind == 3:  # a value that is not a finite float32
        first = asked[0].encode()
        asked_line = next(n for n, line in enumerate(lines) if line.split(b" ")[0] == first)
        parts = lines[asked_line].split(b" ")
        parts[rng.randrange(1, len(parts))] = rng.choice([b"nan", b"inf", b"-inf", b"1e39", b"NaN"])
        lines[asked_line] = b" ".join(parts)
        return _case("not-finite", {**text_case, text_name: b"\n".join(lines)}, text_spec, refused)
    if kind == 4:  # a row with a number too few or too many, or a word that is not a number
        parts = lines[i].split(b" ")
        how = rng.choice(["short", "long", "word"])
        ends = {"short": [], "long": [parts[-1], b"0.5"], "word": [b"abc"]}[how]
        parts = [*parts[:-1], *ends]
        lines[i] = b" ".join(parts)
        expect = refused if word in asked or i == 1 else Either((text_name,))
        return _case(f"row-{how}", {**text_case, text_name: b"\n".join(lines)}, text_spec, expect)
    if kind == 5:  # a header that is not the rows'
        count, dim = len(vectors), len(next(iter(vectors.values())))
        header = rng.choice([f"{count + 1} {dim}", f"{count - 1} {dim}", f"{count} {dim + 1}",
                             f"{count} 0", f"{count}", f"{count} {dim} 7", f"-{count} {dim}",
                             f"{count} -{dim}", "x y"])  # fmt: skip
        lines[0] = header.encode()
        spec = text_spec + ",format=word2vec"
        return _case("header", {**text_case, text_name: b"\n".join(lines)}, spec, refused)
    if kind == 6:  # a word twice, with another vector: a warning at least
        dup = rng.choice(asked).encode()
        lines.insert(len(lines) - 1, dup + b" " + b" ".join([b"0.5"] * (len(lines[1].split()) - 1)))
        lines[0] = f"{len(vectors) + 1} {len(lines[1].split()) - 1}".encode()
        return _case("duplicate", {**text_case, text_name: b"\n".join(lines)}, text_spec,
                     Reject((text_name,)))  # fmt: skip
    if kind == 7:  # compressed, a pickle, a zip, empty, junk bytes
        how = rng.choice(["gzip", "pickle", "zip", "empty", "junk", "nul"])
        data = {
            "gzip": gzip.compress(text),
            "pickle": pickle.dumps({"cat": [1.0, 2.0]}),
            "zip": b"PK\x03\x04" + text,
            "empty": b"",
            "junk": rng.randbytes(200),
            "nul": b"\x00" * 100,
        }[how]
        expect = refused if how != "junk" else Either((text_name,))
        return _case(f"file-{how}", {**text_case, text_name: data}, text_spec, expect)
    if kind == 8:  # a format said that the file is not
        said_wrong = rng.choice(["word2vec-bin", "glove", "word2vec", "model", "fasttext-bin"])
        if said_wrong == fmt or (fmt.startswith("model") and said_wrong == "model"):
            said_wrong = "word2vec-bin" if fmt != "word2vec-bin" else "word2vec"
        spec = f"vectors:path={name},format={said_wrong}"
        return _case(f"said-{said_wrong}-is-{fmt}", files, spec, Reject((name,), False))
    if kind == 9:  # a model folder that is not right
        folder = _folder(vectors, packed=False)
        how = rng.choice(["more-words", "fewer-words", "no-vectors", "pickled", "nan", "1-d",
                          "strings", "no-vocab"])  # fmt: skip
        if how == "more-words":
            folder["model/vocab.txt"] += b"extra\n"
        elif how == "fewer-words":
            folder["model/vocab.txt"] = b"\n".join(folder["model/vocab.txt"].split(b"\n")[1:])
        elif how == "no-vectors":
            del folder["model/vectors.npy"]
        elif how == "no-vocab":
            del folder["model/vocab.txt"]
        else:
            matrix: np.ndarray = np.array(list(vectors.values()), dtype=np.float32)
            if how == "pickled":
                matrix = np.array([[1, "a"]] * len(vectors), dtype=object)
            elif how == "nan":
                matrix[list(vectors).index(asked[0]), 0] = np.nan
            elif how == "1-d":
                matrix = matrix[:, 0]
            else:
                matrix = np.array([["a"] * 2] * len(vectors))
            out = io.BytesIO()
            np.save(out, matrix, allow_pickle=True)
            folder["model/vectors.npy"] = out.getvalue()
        files = {"gold.tsv": pair_text(gold), **folder}
        return _case(f"folder-{how}", files, "vectors:path=model", Reject(("model",), False))
    if kind == 10:  # a binary file cut short, or with more after its words
        data = _binary(vectors)
        how = rng.choice(["cut", "more"])
        data = data[: rng.randrange(len(data.split(b"\n")[0]) + 2, len(data) - 2)] if how == "cut" \
            else data + b"extra 1 2 3 4"  # fmt: skip
        return _case(f"binary-{how}", {"gold.tsv": pair_text(gold), "vec.bin": data},
                     "vectors:path=vec.bin", Reject(("vec.bin",), False))  # fmt: skip
    if kind == 11:  # a path that is not a vector file: a folder, a device, climbing nowhere
        path = rng.choice(["sub", "/dev/null", "../../../nothere.vec", "", "gold.tsv/x"])
        files = {"gold.tsv": pair_text(gold), "sub/readme": b"x"}
        return _case("path", files, f"vectors:path={path}", Reject((path or "path",), False))
    if kind == 12:  # words the file lacks: oov=zero scores their pairs 0, skip leaves them out
        gone = rng.choice(asked)
        kept = {w: v for w, v in vectors.items() if w != gone}
        files = {"gold.tsv": pair_text(gold), "v.txt": _text(kept, header=True)}
        scored = _cosines([r for r in gold if gone not in r[:2]], vectors)
        policy = rng.choice(["", ",oov=zero", ",oov=skip"])
        if policy.endswith("skip"):
            kept_gold = [r for r in gold if gone not in r[:2]]
            expect = Accept(spearman_check(kept_gold, scored))
        else:
            zero = [(a, b, "0.0") for a, b, _ in gold if gone in (a, b)]
            expect = Accept(spearman_check(gold, scored + zero))
        return _case(f"oov{policy or '-default'}", files, f"vectors:path=v.txt{policy}", expect)
    if kind == 13:  # oov=backoff: a gold word in capitals finds the file's lower-case one
        upper = {a: a.capitalize() for a in asked if a.isascii()}
        shown_gold = [(upper.get(a, a), upper.get(b, b), x) for a, b, x in gold]
        scored = _cosines(gold, vectors)
        files = {"gold.tsv": pair_text(shown_gold), "v.txt": _text(vectors, header=True)}
        scored = [(upper.get(a, a), upper.get(b, b), x) for a, b, x in scored]
        expect = Accept(spearman_check(shown_gold, scored))
        return _case("oov-backoff", files, "vectors:path=v.txt,oov=backoff", expect)
    label, data = damage(rng, text)
    return _case(f"damage-{label}", {**text_case, text_name: data}, text_spec, Either((text_name,)))


SURFACES = [Surface("vector-file", draw)]
