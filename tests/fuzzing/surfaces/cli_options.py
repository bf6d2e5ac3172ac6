"""Command-line options that take a user's value: ``--missing``, ``--gold-column``,
``--pred-column``, ``--kind``, ``--results``, ``--json``, ``--scheduler`` (and
``SIMEVAL_SCHEDULER``), the resampling options of ``compare`` and ``report`` (``-B``,
``--seed``, ``--level``, ``--alpha``, ``--top``, ``-j``), ``leaderboard``'s ``--format``,
``--top`` and ``--metric``, and ``build annotation aggregate``'s ``--scale``/``--rescale``.

Each case is one command over tiny files: a gold and a system pair file, and a results folder
of two systems (A and B) made once by ``score pairs --results``. Right values are checked
against scipy's Spearman (``score pairs``, ``evaluate orthographic:kind=prefix``) or for what
the command prints; a scheduler is only ever named, never started: commands that compute
nothing must ignore it, and a ``tcp://`` address where nothing listens must fail fast."""

from __future__ import annotations

import contextlib
import random
import tempfile
from functools import cache
from pathlib import Path

from fuzzing.harness import (
    Accept,
    Case,
    Outcome,
    PairRows,
    Reject,
    Surface,
    pair_rows,
    pair_text,
    prefix_ratio,
    spearman_check,
)

NOT_INTEGERS = ["", "abc", "1.5", "nan", "inf", "1e3", "0x10", "٣"]
NOT_NUMBERS = ["", "abc", "nan", "inf", "-inf", "1,5"]
BAD_SCHEDULERS = ["bogus", "tcp://", "tcp://host", "http://127.0.0.1:8786", "tcp://a b:1",
                  "SYNC", "tcp://127.0.0.1:1/x", "processes,sync"]  # fmt: skip


@cache
def results_folder() -> dict[str, bytes]:
    """The files of a results folder holding systems A and B on one gold file ``gold.tsv``
    (relative paths, as the case folder holds them)."""
    from typer.testing import CliRunner

    from simeval.cli import app

    rng = random.Random(7)
    gold, a = pair_rows(rng)
    b = [(x, y, repr(round(rng.random(), 4))) for x, y, _ in gold]
    with tempfile.TemporaryDirectory() as folder, contextlib.chdir(folder):
        base = Path(folder)
        (base / "gold.tsv").write_bytes(pair_text(gold))
        for name, rows in (("A", a), ("B", b)):
            (base / f"{name}.tsv").write_bytes(pair_text(rows))
            args = ["score", "pairs", "--gold", "gold.tsv", "--pred", f"{name}.tsv", "--name",
                    name, "--results", "res"]  # fmt: skip
            done = CliRunner().invoke(app, args, catch_exceptions=False)
            assert done.exit_code == 0, done.output
        files = {"gold.tsv": (base / "gold.tsv").read_bytes()}
        for path in (base / "res").rglob("*"):
            if path.is_file() and not path.name.endswith(".lock"):
                files[str(path.relative_to(base))] = path.read_bytes()
    return files


def _shows(*texts: str, every: bool = True):  # type: ignore[no-untyped-def]
    """A check that the command printed ``texts`` (``every``: each; else one of them)."""

    def check(outcome: Outcome) -> str | None:
        shown = [t in outcome.stdout for t in texts]
        return None if (all(shown) if every else any(shown)) else f"{texts} not printed"

    return check


BOARD = _shows("A", "B", every=False)  # the board drops a system the other beats


def _score(label: str, gold: PairRows, pred: PairRows, expect: object, *extra: str) -> Case:
    argv = ["score", "pairs", "--gold", "gold.tsv", "--pred", "pred.tsv", "--json", *extra]
    files = {"gold.tsv": pair_text(gold), "pred.tsv": pair_text(pred)}
    return Case(label, files, argv, expect)  # type: ignore[arg-type]


def _refused(label: str, files: dict[str, bytes], argv: list[str], *names: str) -> Case:
    return Case(label, files, argv, Reject(names, warning_ok=False))


def draw(rng: random.Random) -> Case:
    gold, pred = pair_rows(rng)
    right = Accept(spearman_check(gold, pred))
    kind = rng.randrange(16)
    if kind == 0:  # --missing: zero and skip score what the rule says; the rest is refused
        i = rng.randrange(len(pred))
        kept = pred[:i] + pred[i + 1 :]
        value = rng.choice(["zero", "skip", "error", "ZERO", "", "none", "0", "zero,skip"])
        if value == "zero":
            zeroed = [*kept, (gold[i][0], gold[i][1], "0")]
            return _score("missing-zero", gold, kept, Accept(spearman_check(gold, zeroed)),
                          "--missing", value)  # fmt: skip
        if value == "skip":
            expect = Accept(spearman_check(gold[:i] + gold[i + 1 :], kept))
            return _score("missing-skip", gold, kept, expect, "--missing", value)
        names = ("pred.tsv", "missing") if value == "error" else ("--missing",)
        return _score("missing-bad", gold, kept, Reject(names, False), "--missing", value)
    if kind == 1:  # --gold-column / --pred-column: by name or number; a wrong one refused
        option = rng.choice(["--gold-column", "--pred-column"])
        value = rng.choice(["sim", "3", "0", "-1", "4", "99", "nosuch", "", "1.5", "word1", "SIM"])
        if value in ("sim", "3"):
            return _score("column", gold, pred, right, option, value)
        return _score("column-bad", gold, pred, Reject((), False), option, value)
    if kind == 2:  # --kind: related needs gold 1/0; a kind that is not one is refused
        value = rng.choice(["related", "Graded", "sts", "", "graded "])
        names = ("gold.tsv",) if value == "related" else ("--kind",)
        return _score("kind-bad", gold, pred, Reject(names, False), "--kind", value)
    if kind == 3:  # --results: a new nested folder is made; a file where a folder goes refused
        where = rng.choice(["new/deep/res", "gold.tsv", "pred.tsv/x", "blocker"])
        case = _score("results", gold, pred, right, "--results", where)
        if where == "new/deep/res":
            check = spearman_check(gold, pred)

            def kept(outcome: Outcome) -> str | None:
                found = (outcome.folder / where / "results.jsonl").is_file()
                return check(outcome) or (None if found else "results.jsonl not written")

            case.expect = Accept(kept)
            return case
        case.files["blocker"] = b"a file"
        case.expect = Reject((where.split("/")[0],), False)
        return case
    if kind == 4:  # a flag given a value, an option twice, an option without its value
        extra = rng.choice([["--json=yes"], ["--missing"], ["--gold-column"], ["--nosuch"]])
        return _score("flag", gold, pred, Reject((extra[0].split("=")[0],), False), *extra)
    files = dict(results_folder())
    if kind == 5:  # commands that compute nothing ignore a scheduler, however wrong
        value = rng.choice([*BAD_SCHEDULERS, "tcp://127.0.0.1:1", "sync"])
        argv, shows = rng.choice([(["results", "res"], ("A", "B")),
                                  (["leaderboard", "res", "-f", "csv"], ("rank,system",)),
                                  (["benchmarks"], ("simlex999",))])  # fmt: skip
        if rng.random() < 0.5:
            return Case("scheduler-env", files, argv, Accept(_shows(*shows)),
                        env={"SIMEVAL_SCHEDULER": value})  # fmt: skip
        return Case("scheduler-ignored", files, ["--scheduler", value, *argv],
                    Accept(_shows(*shows)))  # fmt: skip
    if kind == 6:  # a computing command: a wrong spec refused; sync gives the same number
        value = rng.choice([*BAD_SCHEDULERS, "sync", "tcp://127.0.0.1:1"])
        scored = [(a, b, repr(prefix_ratio(a, b))) for a, b, _ in gold]
        argv = ["evaluate", "orthographic:kind=prefix,lower=false", "-b", "gold.tsv",
                "--no-save", "--json"]  # fmt: skip
        files = {"gold.tsv": pair_text(gold)}
        # no job of a lexical measure runs on Dask: a tcp:// address is never contacted
        expect = (Accept(spearman_check(gold, scored)) if value in ("sync", "tcp://127.0.0.1:1")
                  else Reject(("--scheduler",), False))  # fmt: skip
        if rng.random() < 0.5:
            return Case("scheduler-env", files, argv, expect, env={"SIMEVAL_SCHEDULER": value})
        return Case("scheduler", files, ["--scheduler", value, *argv], expect)
    if kind == 7:  # compare's resampling options
        option = rng.choice(["-B", "--seed", "--level", "--alpha"])
        good = {
            "-B": ["50", "120"],
            "--seed": ["0", "7", str(2**40)],
            "--level": ["0.5", "0.9", "0.999"],
            "--alpha": ["0.01", "0.5", "1e-9"],
        }[option]
        bad = {"-B": ["49", "0", "-5", "10000000", *NOT_INTEGERS],
               "--seed": ["-1", *NOT_INTEGERS],
               "--level": ["0.4", "1", "0", "-0.9", *NOT_NUMBERS],
               "--alpha": ["0", "1", "-0.05", "2", *NOT_NUMBERS]}[option]  # fmt: skip
        value = rng.choice(good + bad)
        argv = ["compare", "A", "B", "-b", "gold.tsv", "--results", "res", "-B", "50",
                option, value]  # fmt: skip
        expect = Accept(_shows("verdict")) if value in good else Reject((option,), False)
        return Case(f"compare{option}", files, argv, expect)  # type: ignore[arg-type]
    if kind == 8:  # report's options, each refused before any work
        option, value = rng.choice([("--top", "0"), ("--top", "-1"), ("--top", "x"),
                                    ("-B", "10"), ("-B", "10000000"), ("--seed", "-3"),
                                    ("--level", "1.5"), ("--level", "nan"), ("-j", "-1"),
                                    ("-j", "two"), ("--seed", "1.5")])  # fmt: skip
        argv = ["report", "res", "--html", "r.html", option, value]
        return _refused(f"report{option}", files, argv, option)
    if kind == 9:  # leaderboard: formats, --top, --metric, --benchmark
        option, value, expect = rng.choice([
            ("--format", "csv", Accept(BOARD)),
            ("--format", "latex", Accept(BOARD)),
            ("--format", "html", Accept(BOARD)),
            ("--format", "json", Reject(("--format",), False)),
            ("--format", "", Reject(("--format",), False)),
            ("--top", "2", Accept(BOARD)),
            ("--top", str(10**12), Accept(BOARD)),
            ("--top", "-1", Reject(("--top",), False)),
            ("--top", "nan", Reject(("--top",), False)),
            ("--metric", "pearson", Accept(BOARD)),
            ("--metric", "nosuch", Reject(("nosuch",))),
            ("--benchmark", "nosuch.tsv", Reject(("nosuch.tsv",))),
        ])  # fmt: skip
        argv = ["leaderboard", "res", option, value]
        return Case(f"leaderboard{option}", files, argv, expect)
    if kind == 10:  # a results folder that is not one
        where = rng.choice(["gold.tsv", "nothere", "empty", "res/results.jsonl", "res/items"])
        report = ["report", "--top", "1", "--html", "r.html", "-B", "50", "-j", "1"]
        command = rng.choice([["results"], ["leaderboard"], report])
        files["empty/.keep"] = b""
        argv = [command[0], where, *command[1:]]
        return _refused(f"not-results-{command[0]}", files, argv, where.split("/")[-1])
    if kind == 11:  # compare: a system or benchmark not in the folder
        a, b, bench = rng.choice([("C", "B", "gold.tsv"), ("A", "B", "other.tsv"),
                                  ("", "B", "gold.tsv")])  # fmt: skip
        argv = ["compare", a, b, "-b", bench, "--results", "res", "-B", "50"]
        return Case("compare-names", files, argv, Reject(("systems", bench), False))
    if kind == 12:  # build annotation aggregate: --scale and --rescale
        option = rng.choice(["--scale", "--rescale"])
        value = rng.choice(["0:10", "1:7", "0:inf", "5:5", "a:b", "10:0", "-1e308:1e308", "0:",
                            "0:6:7", "nan:1"])  # fmt: skip
        pairs = "word1,word2\n" + "".join(f"{a},{b}\n" for a, b, _ in gold)
        answers = "rater,word1,word2,rating\n" + "".join(
            f"{r},{a},{b},{rng.randint(1, 6)}\n" for r in "xyz" for a, b, _ in gold
        )
        argv = ["build", "annotation", "aggregate", "out", "--pairs", "pairs.csv", "--answers",
                "answers.csv", "--scale", "0:6", option, value]  # fmt: skip
        files = {"pairs.csv": pairs.encode(), "answers.csv": answers.encode()}
        expect = Accept() if value in ("0:10", "1:7") else Reject((option,), False)
        return Case(f"annotation{option}", files, argv, expect)
    if kind == 14:  # predict --out: a new file gets every gold pair; never over the gold
        out = rng.choice(["new.csv", "deep/new.csv", "gold.tsv", "./x/../gold.tsv", "dir/", "."])
        argv = ["predict", "jaccard", "-s", "gold.tsv", "--out", out]
        files = {"gold.tsv": pair_text(gold)}
        if out.endswith("new.csv"):

            def wrote(outcome: Outcome) -> str | None:
                rows = (outcome.folder / out).read_text(encoding="utf-8").splitlines()[1:]
                pairs = sorted(tuple(r.split(",")[:2]) for r in rows)
                return None if pairs == sorted((a, b) for a, b, _ in gold) else f"wrote {rows}"

            return Case("predict-out", files, argv, Accept(wrote))
        return _refused("predict-out-bad", files, argv, "--out")
    if kind == 15:  # a benchmark that is an empty name or a folder of nothing
        where = rng.choice(["", ".", "./", "empty"])
        argv = ["evaluate", "jaccard", "-b", where, "--no-save"]
        return _refused("benchmark-path", {"empty/.keep": b""}, argv, "STS folder")
    # evaluate --results: a file where the folder goes
    argv = ["evaluate", "jaccard", "-b", "gold.tsv", "--results", "gold.tsv"]
    return _refused("evaluate-results", {"gold.tsv": pair_text(gold)}, argv, "gold.tsv")


SURFACES = [Surface("cli-options", draw)]
