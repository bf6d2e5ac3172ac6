"""``simeval build negatives``: positives, a corpus, annotators' vetoes and the options; and
``simeval evaluate -b FOLDER`` on a folder such a builder writes (``manifest.json`` naming its
pair file).

The independent checks. A build is checked against the rules a reader can verify by hand:
every sim-1 row is a positive given, each source keeps as many negatives as positives, a
negative's target is a corpus word, not its source, not a positive partner of it and not
vetoed, and no pair is written twice. A built folder's numbers are the average precision
(scikit-learn's step-wise definition) and ROC AUC (the Mann-Whitney count) of the
Levenshtein similarity (``1 - distance / longer length``, lowercased), all written out here."""

from __future__ import annotations

import csv
import io
import json
import random
from collections.abc import Callable

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

WORDS = [
    "cat",
    "dog",
    "house",
    "garden",
    "tree",
    "river",
    "sun",
    "moon",
    "bread",
    "milk",
    "road",
    "car",
]
FAST = ["--lang", "en", "--min-count", "1", "--any-word"]


def _corpus(rng: random.Random) -> bytes:
    lines = [" ".join(rng.choices(WORDS, k=rng.randint(4, 9))) + "." for _ in range(30)]
    return ("\n".join(lines) + "\n").encode()


def _positives(rng: random.Random) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    while len(pairs) < rng.randint(2, 4):
        a, b = rng.sample(WORDS, 2)
        if (a, b) not in pairs:
            pairs.append((a, b))
    return pairs


def _csv(rows: list[list[str]]) -> bytes:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue().encode()


def _check_build(positives: list[tuple[str, str]], vetoed: set[tuple[str, str]]) -> Callable:
    partners: dict[str, set[str]] = {}
    for a, b in positives:
        partners.setdefault(a, set()).add(b)

    def check(outcome: Outcome) -> str | None:
        text = (outcome.folder / "out" / "pairs.csv").read_text(encoding="utf-8")
        rows = list(csv.reader(io.StringIO(text)))[1:]
        if len({(a, b) for a, b, _ in rows}) != len(rows):
            return "a pair written twice"
        kept = [(a, b) for a, b, s in rows if s == "1"]
        negatives = [(a, b) for a, b, s in rows if s == "0"]
        if set(kept) - set(positives):
            return f"positives not given: {set(kept) - set(positives)}"
        for source in {a for a, _, _ in rows}:
            n_pos = sum(a == source for a, _ in kept)
            n_neg = sum(a == source for a, _ in negatives)
            if n_pos != n_neg:
                return f"source {source}: {n_pos} positives, {n_neg} negatives"
        for a, b in negatives:
            if b == a or b in partners.get(a, ()) or b not in WORDS or (a, b) in vetoed:
                return f"negative {a},{b} breaks a rule"
        return None

    return check


def _archive(text: bytes, suffix: str) -> bytes:
    """``text`` as ``a.txt`` in a tar archive compressed with gzip or xz."""
    import tarfile

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=f"w:{suffix}") as tar:
        info = tarfile.TarInfo("a.txt")
        info.size = len(text)
        tar.addfile(info, io.BytesIO(text))
    return buf.getvalue()


def _build(label: str, files: dict[str, bytes], expect: object, *extra: str) -> Case:
    argv = ["build", "negatives", "out", "--positives", "pos.csv", "--corpus", "corpus.txt"]
    return Case(label, files, [*argv, *FAST, *extra], expect)  # type: ignore[arg-type]


def _levenshtein(a: str, b: str) -> float:
    a, b = a.lower(), b.lower()
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    longest = max(len(a), len(b))
    return 1 - row[-1] / longest if longest else 1.0


def _average_precision(truth: list[int], scores: list[float]) -> float:
    """Step-wise AP (scikit-learn's definition): thresholds at the distinct scores, high to
    low; AP = sum of (recall gained) x (precision at that threshold)."""
    positives = sum(truth)
    total, hits, seen = 0.0, 0, 0
    for t in sorted(set(scores), reverse=True):
        at = [y for y, s in zip(truth, scores, strict=True) if s == t]
        hits, seen = hits + sum(at), seen + len(at)
        total += sum(at) / positives * hits / seen
    return total


def _roc_auc(truth: list[int], scores: list[float]) -> float:
    """The chance a related pair outscores an unrelated one, ties counting a half."""
    pos = [s for y, s in zip(truth, scores, strict=True) if y]
    neg = [s for y, s in zip(truth, scores, strict=True) if not y]
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def _check_folder(rows: list[tuple[str, str, int]]) -> Callable[[Outcome], str | None]:
    truth = [s for _, _, s in rows]
    scores = [_levenshtein(a, b) for a, b, _ in rows]
    expected = {"ap": _average_precision(truth, scores), "roc_auc": _roc_auc(truth, scores)}

    return metrics_check(expected)


def _folder(label: str, rows: list[list[str]], expect: object, manifest: object = None) -> Case:
    declared = {"builder": "negatives", "benchmark": {"file": "pairs.csv", "kind": "related"}}
    files = {
        "built/manifest.json": json.dumps(declared if manifest is None else manifest).encode(),
        "built/pairs.csv": _csv([["word1", "word2", "sim"], *rows]),
    }
    argv = ["evaluate", "orthographic", "-b", "built", "--json"]
    return Case(label, files, argv, expect)  # type: ignore[arg-type]


def draw_folder(rng: random.Random) -> Case:
    """A built folder given to ``evaluate -b``."""
    positives = _positives(rng)
    rows = [(a, b, 1) for a, b in positives]
    taken = {frozenset(p) for p in positives}
    for a, _ in positives:  # one unrelated partner for each positive's source word
        unrelated = [w for w in WORDS if w != a and frozenset((a, w)) not in taken]
        rows.append((a, rng.choice(unrelated), 0))
    rows = list(dict.fromkeys(rows))
    text = [[a, b, str(s)] for a, b, s in rows]
    kind = rng.randrange(6)
    if kind == 0:
        return _folder("built-valid", text, Accept(_check_folder(rows)))
    if kind == 1:  # a word holding a line break or NUL; a tab or ESC: the pair files' rule
        i = rng.randrange(len(text))
        odd = rng.choice(["\nline", "\r", "\x00", "\x1b[31m", "\t"])
        text[i][rng.randrange(2)] += odd
        expect = Reject(("pairs.csv",)) if odd in ("\nline", "\r", "\x00") else Either()
        return _folder("built-odd-word", text, expect)
    if kind == 2:  # a label that is not 0 or 1
        text[rng.randrange(len(text))][2] = rng.choice(["2", "-1", "nan", "0.5", "yes", ""])
        return _folder("built-bad-label", text, Reject(("pairs.csv",)))
    if kind == 3:  # a manifest that is not JSON, or declares no or another kind
        manifest = rng.choice(
            [
                "{",
                [1],
                {"benchmark": {"file": "pairs.csv", "kind": "sts"}},
                {"benchmark": {"file": "other.csv", "kind": "related"}},
            ]
        )
        if manifest == "{":
            case = _folder("built-bad-manifest", text, Reject(("manifest.json",)))
            case.files["built/manifest.json"] = b"{"
            return case
        return _folder(
            "built-bad-manifest", text, Reject(("manifest.json", "built", "other.csv")), manifest
        )
    if kind == 4:  # the same pair twice with two labels
        a, b, s = text[0]
        text.append([a, b, "0" if s == "1" else "1"])
        return _folder("built-conflict", text, Reject(("pairs.csv",)))
    label, data = damage(rng, _csv([["word1", "word2", "sim"], *text]))
    case = _folder(f"built-damage-{label}", text, Either())
    case.files["built/pairs.csv"] = data
    return case


def draw(rng: random.Random) -> Case:
    if rng.random() < 0.4:
        return draw_folder(rng)
    positives = _positives(rng)
    pos = _csv([["word1", "word2", "sim"], *([a, b, "1"] for a, b in positives)])
    files = {"pos.csv": pos, "corpus.txt": _corpus(rng)}
    right = Accept(_check_build(positives, set()))
    kind = rng.randrange(15)
    if kind == 0:
        return _build("valid", files, right)
    if kind == 1:  # no score column; rows of score 0 left out; CRLF; a BOM
        style = rng.choice(["no-score", "zero-rows", "crlf", "bom"])
        if style == "no-score":
            files["pos.csv"] = _csv([["word1", "word2"], *map(list, positives)])
        elif style == "zero-rows":
            files["pos.csv"] += b"bread,road,0\n"
        elif style == "crlf":
            files = {k: v.replace(b"\n", b"\r\n") for k, v in files.items()}
        else:
            files["pos.csv"] = b"\xef\xbb\xbf" + files["pos.csv"]
        return _build(style, files, right)
    if kind == 2:  # an annotator's vetoes: none of them among the negatives
        vetoed = {(a, w) for a, _ in positives for w in rng.sample(WORDS, 3)}
        files["veto.csv"] = _csv([["word1", "word2", "related"], *([a, b, "1"] for a, b in vetoed)])
        return _build("veto", files, Accept(_check_build(positives, vetoed)), "--veto", "veto.csv")
    if kind == 3:  # positives without a positive row, or with a score that is not a number
        bad = rng.choice(
            [
                b"word1,word2,sim\n",
                b"",
                b"word1,word2,sim\ncat,dog,0\n",
                b"word1,word2,sim\ncat,dog,abc\n",
                b"word1,word2,sim\ncat,dog,nan\n",
                b"word1,word2,sim\ncat\n",
            ]
        )
        files["pos.csv"] = bad
        return _build("bad-positives", files, Reject(("pos.csv",)))
    if kind == 4:  # a corpus that is not text, empty, or in another encoding
        files["corpus.txt"] = rng.choice(
            [b"", bytes(range(256)) * 4, "кот дом".encode("cp1251"), "кот дом".encode("utf-16")]
        )
        return _build("bad-corpus", files, Reject(("corpus.txt",)))
    if kind == 5:  # a veto file of the wrong shape
        files["veto.csv"] = rng.choice(
            [b"", b"a,b\ncat,dog\n", b'word1,word2\n"cat,dog\n', b"word1,word2\ncat,\n"]
        )
        return _build("bad-veto", files, Reject(("veto.csv",)), "--veto", "veto.csv")
    if kind == 6:  # an option out of range
        option, value = rng.choice(
            [("--alpha", v) for v in ("0", "-1", "nan", "inf")]
            + [("--window", v) for v in ("0", "1001", "-3")]
            + [
                ("--min-count", "0"),
                ("--per-positive", "0"),
                ("--sources", "-1"),
                ("--workers", "0"),
                ("--seed", "-1"),
                ("--lang", "xx"),
                ("--lang", ""),
            ]
        )
        extra = ["--sources", "1"] if option == "--seed" else []
        return _build("bad-option", files, Reject((option,)), option, value, *extra)
    if kind == 7:  # an output that is not an earlier build
        files["out/mine.txt"] = b"keep me"
        return _build("out-exists", files, Reject(("out",)))
    if kind == 8:  # a file that is not there
        del files[rng.choice(["pos.csv", "corpus.txt"])]
        return _build("no-file", files, Reject(("pos.csv", "corpus.txt")))
    if kind == 9:  # words with a comma, a quote or a line break survive the csv
        odd = rng.choice(["com,ma", 'quo"te', "new\nline"])
        files["pos.csv"] = _csv(
            [["word1", "word2", "sim"], *([a, b, "1"] for a, b in positives), [odd, "cat", "1"]]
        )
        return _build("odd-word", files, Either(("pos.csv",)))
    if kind == 10:  # --sources: fewer source words drawn
        return _build(
            "sources", files, Either(), "--sources", "1", "--seed", str(rng.randint(0, 9))
        )
    if kind == 12:  # the corpus as a .tar.gz or .tar.xz archive, whole or cut short
        suffix = rng.choice(["gz", "xz"])
        data = _archive(files.pop("corpus.txt"), suffix)
        cut = rng.random() < 0.5
        files[f"corpus.tar.{suffix}"] = data[: len(data) // 2] if cut else data
        argv = ["build", "negatives", "out", "--positives", "pos.csv", "--corpus"]
        expect = Reject((f"corpus.tar.{suffix}",)) if cut else right
        return Case(
            "archive-cut" if cut else "archive",
            files,
            [*argv, f"corpus.tar.{suffix}", *FAST],
            expect,
        )
    if kind == 11:  # a folder of .txt files as the corpus
        files["corp/a.txt"] = files.pop("corpus.txt")
        argv = ["build", "negatives", "out", "--positives", "pos.csv", "--corpus", "corp"]
        return Case("corpus-folder", files, [*argv, *FAST], right)
    name = rng.choice(sorted(files))
    label, files[name] = damage(rng, files[name])
    return _build(f"damage-{label}-{name}", files, Either())


SURFACES = [Surface("build-negatives", draw)]
