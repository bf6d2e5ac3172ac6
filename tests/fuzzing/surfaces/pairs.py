"""Word-pair files: a gold file and a system's file given to ``simeval score pairs``.

The independent number is scipy's Spearman over the gold pairs, the system's score matched by
the pair as written."""

from __future__ import annotations

import random
from collections.abc import Callable

from scipy.stats import spearmanr

from fuzzing.harness import Accept, Case, Either, Outcome, Reject, Surface, close, damage

WORDS = ["кот", "собака", "car", "auto", "sun", "moon", "tree", "лес", "ice", "fire", "Öl", "日本",
         "sea", "river", "king", "queen", "city", "town", "bread", "milk"]  # fmt: skip

Rows = list[tuple[str, str, str]]


def _pairs(rng: random.Random) -> tuple[Rows, Rows]:
    """Gold and system rows over the same 6–12 distinct pairs (scores as text)."""
    n = rng.randint(6, 12)
    pairs: list[tuple[str, str]] = []
    while len(pairs) < n:
        a, b = rng.sample(WORDS, 2)
        if (a, b) not in pairs and (b, a) not in pairs:
            pairs.append((a, b))
    gold = [(a, b, str(rng.randint(0, 40) / 4)) for a, b in pairs]
    pred = [(a, b, repr(round(rng.random(), 4))) for a, b in pairs]
    return gold, pred


def _text(rows: Rows, sep: str = "\t", header: bool = True) -> bytes:
    head = f"word1{sep}word2{sep}sim\n" if header else ""
    return (head + "".join(f"{a}{sep}{b}{sep}{s}\n" for a, b, s in rows)).encode()


def _spearman(gold: Rows, pred: Rows) -> Callable[[Outcome], str | None]:
    system = {(a, b): float(s) for a, b, s in pred}
    expected = float(
        spearmanr([float(s) for _, _, s in gold], [system[a, b] for a, b, _ in gold])[0]
    )

    def check(outcome: Outcome) -> str | None:
        records = outcome.records()
        if len(records) != 1:
            return f"{len(records)} records printed"
        got = records[0]["metrics"].get("spearman")
        return None if close(got, expected) else f"spearman {got} != scipy's {expected}"

    return check


def _case(label: str, gold: bytes, pred: bytes, expect: object, *extra: str) -> Case:
    argv = ["score", "pairs", "--gold", "gold.tsv", "--pred", "pred.tsv", "--json", *extra]
    return Case(label, {"gold.tsv": gold, "pred.tsv": pred}, argv, expect)  # type: ignore[arg-type]


def draw(rng: random.Random) -> Case:
    gold, pred = _pairs(rng)
    i = rng.randrange(len(gold))
    which = rng.choice(["gold", "pred"])
    rows = gold if which == "gold" else pred
    bad = f"{which}.tsv"
    kind = rng.randrange(16)
    if kind == 0:  # a valid pair of files: the number
        return _case("valid", _text(gold), _text(pred), Accept(_spearman(gold, pred)))
    if kind == 1:  # the system's rows in another order: the same number
        shuffled = pred[:]
        rng.shuffle(shuffled)
        return _case("shuffled", _text(gold), _text(shuffled), Accept(_spearman(gold, pred)))
    if kind == 2:  # CRLF endings, a BOM, comma separators: the same number
        style = rng.choice(["crlf", "bom", "comma"])
        g, p = _text(gold), _text(pred, sep="," if style == "comma" else "\t")
        if style == "crlf":
            g, p = g.replace(b"\n", b"\r\n"), p.replace(b"\n", b"\r\n")
        if style == "bom":
            g = b"\xef\xbb\xbf" + g
        return _case(style, g, p, Accept(_spearman(gold, pred)))
    if kind == 3:  # scores in other spellings of the same number
        spelled = [
            (a, b, rng.choice([f"{float(s):e}", f" {s}", f"{float(s):.6f}"])) for a, b, s in pred
        ]
        return _case("spelling", _text(gold), _text(spelled), Accept(_spearman(gold, pred)))
    if kind == 4:  # a score that is not a number
        word = rng.choice(["abc", "", "1,5", "0x10", "--1", "١", "1e", "None"])
        rows[i] = (rows[i][0], rows[i][1], word)
        return _reject(which, gold, pred, "not-a-number", bad)
    if kind == 5:  # a score that is not finite
        rows[i] = (rows[i][0], rows[i][1], rng.choice(["nan", "inf", "-inf", "NaN", "1e999"]))
        return _reject(which, gold, pred, "not-finite", bad)
    if kind == 6:  # a row with too few fields
        lines = _text(rows).split(b"\n")
        lines[i + 1] = rows[i][0].encode()
        short = b"\n".join(lines)
        g, p = (short, _text(pred)) if which == "gold" else (_text(gold), short)
        return _case("short-row", g, p, Reject((bad,)))
    if kind == 7:  # the same pair twice with two scores
        j = (i + 1) % len(rows)
        rows.append((rows[i][0], rows[i][1], rows[j][2] if rows[j][2] != rows[i][2] else "99"))
        return _reject(which, gold, pred, "conflicting-duplicate", bad)
    if kind == 8:  # a gold pair the system did not score (the default is --missing error)
        del pred[i]
        return _case("missing", _text(gold), _text(pred), Reject(("pred.tsv", "missing")))
    if kind == 9:  # --missing zero scores the pair 0, as RUSSE's evaluate.py does
        del pred[i]
        zeroed = [*pred[:i], (gold[i][0], gold[i][1], "0"), *pred[i:]]
        return _case("missing-zero", _text(gold), _text(pred), Accept(_spearman(gold, zeroed)),
                     "--missing", "zero")  # fmt: skip
    if kind == 10:  # only a header, or nothing
        empty = rng.choice([b"", b"word1\tword2\tsim\n", b"\n\n"])
        g, p = (empty, _text(pred)) if which == "gold" else (_text(gold), empty)
        return _case("empty", g, p, Reject((bad,)))
    if kind == 11:  # every gold score the same: Spearman is undefined
        same = [(a, b, "5") for a, b, _ in gold]
        return _case("constant-gold", _text(same), _text(pred), Either(("gold.tsv", "constant")))
    if kind == 12:  # an extra system pair that gold does not have: ignored, the same number
        extra = [*pred, ("zzz", "yyy", "0.5")]
        return _case("extra", _text(gold), _text(extra), Accept(_spearman(gold, pred)))
    if kind == 13:  # a file that is not there
        argv = ["score", "pairs", "--gold", "gold.tsv", "--pred", "nothere.tsv", "--json"]
        return Case("no-file", {"gold.tsv": _text(gold)}, argv, Reject(("nothere.tsv",)))
    if kind == 14:  # a column asked for that the file lacks
        column = rng.choice(["usim", "7", "0", "-1"])
        return _case("no-column", _text(gold), _text(pred), Reject((column,)),
                     "--pred-column", column)  # fmt: skip
    label, data = damage(rng, _text(rows))
    g, p = (data, _text(pred)) if which == "gold" else (_text(gold), data)
    return _case(f"damage-{label}", g, p, Either())


def _reject(which: str, gold: Rows, pred: Rows, label: str, bad: str) -> Case:
    return _case(label, _text(gold), _text(pred), Reject((bad,)))


SURFACES = [Surface("pairs", draw)]
