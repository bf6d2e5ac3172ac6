"""``simeval build annotation assign|aggregate|simulate``: the campaign's pairs, the raters'
answers, checkpoints and the options.

The independent number: with two raters who rate every pair (the SimLex checks cannot exclude
either at ``--min-gain 1``), each pair's mean and sample SD of its two ratings, by hand; an
assignment holds ``--size`` distinct campaign pairs."""

from __future__ import annotations

import csv
import io
import random
import statistics
from collections.abc import Callable

from fuzzing.harness import Accept, Case, Either, Outcome, Reject, Surface, damage

WORDS = ["cat", "dog", "house", "garden", "sun", "moon", "кот", "日本", "com,ma", 'quo"te']
Pair = tuple[str, str]


def _csv(rows: list[list[str]]) -> bytes:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue().encode()


def _pairs(rng: random.Random) -> list[Pair]:
    pairs: list[Pair] = []
    while len(pairs) < rng.randint(3, 6):
        a, b = rng.sample(WORDS, 2)
        if (a, b) not in pairs:
            pairs.append((a, b))
    return pairs


def _answers(rng: random.Random, pairs: list[Pair]) -> list[list[str]]:
    return [[r, a, b, str(rng.randint(0, 10))] for a, b in pairs for r in ("r1", "r2")]


def _means(answers: list[list[str]]) -> Callable[[Outcome], str | None]:
    ratings: dict[Pair, list[float]] = {}
    for _, a, b, v in answers:
        ratings.setdefault((a, b), []).append(float(v))
    expected = {p: (statistics.mean(v), statistics.stdev(v)) for p, v in ratings.items()}

    def check(outcome: Outcome) -> str | None:
        text = (outcome.folder / "out" / "benchmark.csv").read_text(encoding="utf-8")
        rows = list(csv.reader(io.StringIO(text)))[1:]
        got = {(a, b): (float(m), float(s)) for a, b, m, s, _ in rows}
        if got.keys() != expected.keys():
            return f"pairs {sorted(got)} != {sorted(expected)}"
        bad = [
            p
            for p in got
            if any(abs(x - y) > 1e-9 for x, y in zip(got[p], expected[p], strict=True))
        ]
        return f"means/SDs differ for {bad}: {[got[p] for p in bad]}" if bad else None

    return check


def _sizes(pairs: list[Pair], size: int) -> Callable[[Outcome], str | None]:
    def check(outcome: Outcome) -> str | None:
        text = (outcome.folder / "out" / "assignments.csv").read_text(encoding="utf-8")
        handed: dict[str, list[Pair]] = {}
        for k, a, b in list(csv.reader(io.StringIO(text)))[1:]:
            handed.setdefault(k, []).append((a, b))
        for k, got in handed.items():
            if len(got) != min(size, len(pairs)) or len(set(got)) != len(got):
                return f"assignment {k}: {got}"
            if set(got) - set(pairs):
                return f"assignment {k} hands out pairs not in the campaign"
        return None

    return check


AGGREGATE = [
    "build",
    "annotation",
    "aggregate",
    "out",
    "--pairs",
    "pairs.csv",
    "--answers",
    "answers.csv",
]
ASSIGN = ["build", "annotation", "assign", "out", "--pairs", "pairs.csv"]


def draw(rng: random.Random) -> Case:
    pairs = _pairs(rng)
    answers = _answers(rng, pairs)
    head = ["rater", "word1", "word2", "rating"]
    files = {
        "pairs.csv": _csv([["word1", "word2"], *map(list, pairs)]),
        "answers.csv": _csv([head, *answers]),
    }
    kind = rng.randrange(16)
    if kind == 0:  # two raters, every pair: the means and SDs by hand
        return Case("aggregate", files, [*AGGREGATE, "--min-gain", "1"], Accept(_means(answers)))
    if kind == 1:  # the same answers reordered, columns moved, CRLF, a BOM, a time column
        style = rng.choice(["shuffled", "columns", "crlf", "bom", "time"])
        rows = answers[:]
        rng.shuffle(rows)
        if style == "columns":
            files["answers.csv"] = _csv(
                [["rating", "word2", "word1", "rater"], *([v, b, a, r] for r, a, b, v in rows)]
            )
        elif style == "time":
            files["answers.csv"] = _csv([[*head, "time"], *([*r, "12.5"] for r in rows)])
        else:
            files["answers.csv"] = _csv([head, *rows])
        if style == "crlf":
            files = {k: v.replace(b"\n", b"\r\n") for k, v in files.items()}
        if style == "bom":
            files["answers.csv"] = b"\xef\xbb\xbf" + files["answers.csv"]
        return Case(style, files, [*AGGREGATE, "--min-gain", "1"], Accept(_means(answers)))
    if kind == 2:  # assignments of SIZE distinct pairs
        size = rng.randint(1, len(pairs))
        argv = [
            *ASSIGN,
            "--size",
            str(size),
            "--assignments",
            str(rng.randint(1, 3)),
            "--mode",
            rng.choice(["count", "sd"]),
            "--seed",
            str(rng.randint(0, 99)),
        ]
        if rng.random() < 0.5:
            argv += ["--answers", "answers.csv"]
        return Case("assign", files, argv, Accept(_sizes(pairs, size)))
    if kind == 3:  # a rating that is not a finite number on the scale
        answers[rng.randrange(len(answers))][3] = rng.choice(
            ["nan", "inf", "-inf", "abc", "", "11", "-1", "1,5", "1e999", "x" * 100]
        )
        files["answers.csv"] = _csv([head, *answers])
        return Case("bad-rating", files, [*AGGREGATE, "--min-gain", "1"], Reject(("answers.csv",)))
    if kind == 4:  # one rater rating a pair twice
        answers.append(list(rng.choice(answers)))
        answers[-1][3] = str(rng.randint(0, 10))
        files["answers.csv"] = _csv([head, *answers])
        return Case("rated-twice", files, [*AGGREGATE], Reject(("answers.csv",)))
    if kind == 5:  # a header naming a column twice, or missing one
        header = rng.choice(
            [
                [*head, "rater"],
                [*head, "rating"],
                ["rater", "word1", "word2"],
                ["Rater", "word1", "word1", "rating"],
            ]
        )
        rows = [[*r, "x"][: len(header)] for r in answers]
        files["answers.csv"] = _csv([header, *rows])
        argv = rng.choice([AGGREGATE, [*ASSIGN, "--answers", "answers.csv"]])
        return Case("bad-header", files, argv, Reject(("answers.csv",)))
    if kind == 6:  # empty rows among the answers, or answers with no rows
        if rng.random() < 0.5:
            files["answers.csv"] = _csv([head]) + rng.choice([b"", b"\n", b",,,\n"])
            return Case("no-answers", files, AGGREGATE, Reject(("answers.csv",)))
        files["answers.csv"] = _csv([head, *answers[:2], [], [""], *answers[2:]])
        return Case("blank-rows", files, [*AGGREGATE, "--min-gain", "1"], Either(("answers.csv",)))
    if kind == 7:  # a pair not in the campaign, or a rater with no name
        row = rng.choice(answers)
        if rng.random() < 0.5:
            row[1] = "zebra"
        else:
            row[0] = rng.choice(["", " "])
        files["answers.csv"] = _csv([head, *answers])
        return Case("bad-row", files, AGGREGATE, Reject(("answers.csv",)))
    if kind == 8:  # a scale or rescale of the wrong shape
        option = rng.choice(["--scale", "--rescale"])
        value = rng.choice(["0", "10:0", "a:b", "0:nan", "-inf:0", "5:5", "0:10:20", ""])
        argv = [*AGGREGATE, option, value]
        if option == "--scale" and rng.random() < 0.5:
            argv = [*ASSIGN, option, value]
        return Case("bad-scale", files, argv, Reject((option,)))
    if kind == 9:  # options out of range
        option, value = rng.choice(
            [
                ("--min-gain", "nan"),
                ("--min-gain", "inf"),
                ("--mode", "SD"),
                ("--mode", ""),
                ("--size", "0"),
                ("--assignments", "0"),
                ("--seed", "-1"),
            ]
        )
        base = AGGREGATE if option == "--min-gain" else ASSIGN
        return Case("bad-option", files, [*base, option, value], Reject((option,)))
    if kind == 10:  # simulate's options
        option, value = rng.choice(
            [
                ("--target", "0"),
                ("--target", "-1"),
                ("--target", "nan"),
                ("--target", "inf"),
                ("--answers-of", "both"),
                ("--size", "0"),
                ("--replays", "0"),
                ("--seed", "-1"),
            ]
        )
        argv = ["build", "annotation", "simulate", "out", "--replays", "1", option, value]
        if option != "--target":
            argv += ["--target", "0"]  # still refused: no run starts
        return Case("simulate-option", files, argv, Reject((option, "--target")))
    if kind == 11:  # checkpoints of the wrong shape
        files["check.csv"] = rng.choice(
            [
                b"word1,word2\ncat,dog\n",
                b"zebra,cow,0,1\n",
                b"word1,word2,low,high\n" + _csv([[*pairs[0], "x", "1"]]),
            ]
        )
        return Case(
            "bad-checkpoints",
            files,
            [*AGGREGATE, "--checkpoints", "check.csv"],
            Reject(("check.csv",)),
        )
    if kind == 12:  # pairs of the wrong shape
        files["pairs.csv"] = rng.choice(
            [
                b"",
                b"word1,word2\n",
                b"word1,word2\ncat\n",
                b'word1,word2\n"cat,dog\n',
                b"word1,word2\n,dog\n",
            ]
        )
        return Case("bad-pairs", files, rng.choice([ASSIGN, AGGREGATE]), Reject(("pairs.csv",)))
    if kind == 13:  # an output folder that holds something
        files["out/mine.txt"] = b"keep"
        return Case("out-exists", files, rng.choice([ASSIGN, AGGREGATE]), Reject(("out",)))
    if kind == 14:  # a file in another encoding
        name = rng.choice(["pairs.csv", "answers.csv"])
        files[name] = (
            files[name]
            .decode()
            .encode(rng.choice(["utf-16", "cp1251", "latin-1"]), errors="replace")
        )
        return Case("encoding", files, AGGREGATE, Either(("pairs.csv", "answers.csv")))
    name = rng.choice(sorted(files))
    label, files[name] = damage(rng, files[name])
    return Case(f"damage-{label}-{name}", files, rng.choice([ASSIGN, AGGREGATE]), Either())


SURFACES = [Surface("annotation", draw)]
