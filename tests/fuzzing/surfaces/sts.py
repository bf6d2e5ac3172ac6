"""SemEval STS files and folders: ``score sts`` on gold and output files, an STS folder given
to ``evaluate -b``, ``score file`` or ``score sts12``, and ``build sts-sample`` on a pool.

The independent numbers are numpy's and scipy's: Pearson's r, Spearman's ρ and the
confidence-weighted r over the gold-scored lines; for a suite ALL (r over the pooled lines),
Mean (members' r weighted by their scored lines) and ALLnrm (each member's output fitted to its
gold by least squares, then pooled); for ``evaluate overlap`` the STS baseline's cosine of
white-space token sets, computed here."""

from __future__ import annotations

import csv
import io
import math
import random
import unicodedata
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy.stats import pearsonr, spearmanr

from fuzzing.harness import Accept, Case, Either, Outcome, Reject, Surface, close, damage

WORDS = ["the", "a", "cat", "dog", "sat", "on", "mat", "man", "is", "playing", "guitar",
         "кошка", "сидит", "café", "日本", "runs", "fast", "slowly", "red", "car"]  # fmt: skip
Check = Callable[[Outcome], str | None]


# -- independent numbers ------------------------------------------------------------------


def _pearson(x: list[float], y: list[float]) -> float:
    return float(pearsonr(x, y)[0])


def _weighted(x: list[float], y: list[float], w: list[float]) -> float:
    """Pearson's r with each pair weighted (the STS scorers' confidence-weighted r)."""
    a, b, c = np.asarray(x), np.asarray(y), np.asarray(w)
    ma, mb = (c * a).sum() / c.sum(), (c * b).sum() / c.sum()
    cov = (c * (a - ma) * (b - mb)).sum()
    return float(cov / math.sqrt((c * (a - ma) ** 2).sum() * (c * (b - mb) ** 2).sum()))


def _scored(gold: list[str], pred: list[float]) -> tuple[list[float], list[float]]:
    """The (gold, system) values of the lines whose gold is not blank."""
    keep = [i for i, g in enumerate(gold) if g.strip()]
    return [float(gold[i]) for i in keep], [pred[i] for i in keep]


def _suite_figures(members: list[tuple[list[float], list[float]]]) -> dict[str, float]:
    """ALL, ALLnrm and Mean over members' (gold, system) values."""
    golds = [g for g, _ in members]
    pooled_gold = [v for g in golds for v in g]
    pooled = [v for _, s in members for v in s]
    fitted = []
    for g, s in members:
        slope, intercept = np.polyfit(s, g, 1)
        fitted += list(slope * np.asarray(s) + intercept)
    sizes = [len(g) for g in golds]
    mean = sum(n * _pearson(g, s) for n, (g, s) in zip(sizes, members, strict=True)) / sum(sizes)
    return {"all": _pearson(pooled_gold, pooled), "allnrm": _pearson(pooled_gold, fitted),
            "mean": mean}  # fmt: skip


def _expect(per: dict[str, dict[str, float]], suite: dict[str, float] | None = None) -> Check:
    """A check that the record of each benchmark (matched by its name's end) holds the given
    metrics, and the suite's record (the last) its figures."""

    def check(outcome: Outcome) -> str | None:
        records = outcome.records()
        want = len(per) + (1 if suite else 0)
        if len(records) != want:
            return f"{len(records)} records printed, expected {want}"
        for name, metrics in per.items():
            found = [r for r in records if str(r["benchmark"]).endswith(name)]
            if len(found) != 1:
                return f"no single record for {name}"
            for metric, value in metrics.items():
                got = found[0]["metrics"].get(metric)
                if not close(got, value, 1e-7):
                    return f"{name} {metric} {got} != numpy's {value}"
        for metric, value in (suite or {}).items():
            got = records[-1]["metrics"].get(metric)
            if not close(got, value, 1e-7):
                return f"suite {metric} {got} != numpy's {value}"
        return None

    return check


def _metrics(gold: list[str], pred: list[float], conf: list[float] | None) -> dict[str, float]:
    g, s = _scored(gold, pred)
    out = {"pearson": _pearson(g, s), "spearman": float(spearmanr(g, s)[0])}
    if conf is not None:
        out["weighted_pearson"] = _weighted(g, s, _scored(gold, conf)[1])
    return out


# -- drawing files --------------------------------------------------------------------------


def _gold(rng: random.Random, n: int, blanks: bool = False) -> list[str]:
    """``n`` gold scores in 0..5 (text), some blank when ``blanks``; never constant over the
    scored lines, at least three of them."""
    while True:
        gold = [str(rng.randint(0, 50) / 10) for _ in range(n)]
        if blanks:
            for i in rng.sample(range(n), rng.randint(1, max(1, n - 4))):
                gold[i] = ""
        scored = [g for g in gold if g]
        if len(scored) >= 3 and len(set(scored)) > 1:
            return gold


def _system(rng: random.Random, n: int) -> list[float]:
    while True:
        pred = [round(rng.uniform(0, 5), 3) for _ in range(n)]
        if len(set(pred)) == n:
            return pred


def _lines(values: list[str]) -> bytes:
    return "".join(f"{v}\n" for v in values).encode()


def _output(pred: list[float], conf: list[float] | None, blank: list[bool] | None = None) -> bytes:
    rows = []
    for i, s in enumerate(pred):
        if blank is not None and blank[i]:
            rows.append("")
        else:
            text = s if isinstance(s, str) else repr(s)
            rows.append(text if conf is None else f"{text}\t{conf[i]:g}")
    return _lines(rows)


def _confidences(rng: random.Random, n: int) -> list[float]:
    return [float(rng.randint(1, 100)) for _ in range(n)]


# -- sts-files: score sts --gold … --pred … ---------------------------------------------------


def _files_case(label: str, golds: list[bytes], preds: list[bytes], expect: object) -> Case:
    files: dict[str, bytes] = {}
    argv = ["score", "sts", "--json"]
    for k, data in enumerate(golds):
        files[f"STS.gs.set{k}.txt"] = data
        argv += ["--gold", f"STS.gs.set{k}.txt"]
    for k, data in enumerate(preds):
        files[f"out{k}.txt"] = data
        argv += ["--pred", f"out{k}.txt"]
    return Case(label, files, argv, expect)  # type: ignore[arg-type]


def draw_files(rng: random.Random) -> Case:
    n = rng.randint(5, 10)
    gold = _gold(rng, n, blanks=rng.random() < 0.3)
    pred = _system(rng, n)
    conf = _confidences(rng, n) if rng.random() < 0.4 else None
    i = rng.randrange(n)
    which = rng.choice(["gold", "pred"])
    bad = "STS.gs.set0.txt" if which == "gold" else "out0.txt"
    golds, preds = [_lines(gold)], [_output(pred, conf)]
    kind = rng.randrange(19)
    if kind == 0:  # a valid pair of files: the numbers
        return _files_case(
            "valid", golds, preds, Accept(_expect({"set0": _metrics(gold, pred, conf)}))
        )
    if kind == 1:  # unusual but right: CRLF, a BOM, spaces before the confidence, spellings
        style = rng.choice(["crlf", "bom", "spaces", "spelling", "gold-columns", "trailing-blank"])
        g, p = golds[0], preds[0]
        if style == "crlf":
            g, p = g.replace(b"\n", b"\r\n"), p.replace(b"\n", b"\r\n")
        elif style == "bom":
            g, p = b"\xef\xbb\xbf" + g, b"\xef\xbb\xbf" + p
        elif style == "spaces" and conf is not None:
            p = b"".join(f"{s!r}   {c:g}\n".encode() for s, c in zip(pred, conf, strict=True))
        elif style == "spelling":
            p = _lines([rng.choice([f"{s:e}", f" {s}", f"{s:.6f}", f"+{s}"]) for s in pred])
            conf = None
        elif style == "gold-columns":  # later years' gold files: extra tab fields are ignored
            g = "".join(f"{v}\tsource {k}\n" if v else "\n" for k, v in enumerate(gold)).encode()
        elif style == "trailing-blank":
            p = p + b"\n\n"
        metrics = _metrics(gold, pred, conf)
        return _files_case(style, [g], [p], Accept(_expect({"set0": metrics})))
    if kind == 2:  # unscored gold lines left blank in the output too (2015/2016 outputs)
        gold = _gold(rng, n, blanks=True)
        blank = [not g for g in gold]
        out = _output(pred, conf, blank)
        metrics = _metrics(gold, pred, conf)
        return _files_case(
            "blank-unscored", [_lines(gold)], [out], Accept(_expect({"set0": metrics}))
        )
    if kind == 3:  # several datasets: each r, and ALL, ALLnrm, Mean
        k = rng.randint(2, 3)
        sets = [(_gold(rng, m), _system(rng, m)) for m in (rng.randint(5, 9) for _ in range(k))]
        per = {f"set{j}": _metrics(g, s, None) for j, (g, s) in enumerate(sets)}
        suite = _suite_figures([_scored(g, s) for g, s in sets])
        golds, preds = [_lines(g) for g, _ in sets], [_output(s, None) for _, s in sets]
        return _files_case("suite", golds, preds, Accept(_expect(per, suite)))
    if kind == 4:  # a score that is not a number
        word = rng.choice(["abc", "1,5", "0x10", "--1", "١", "1e", "None", "½", "1_0"])
        if which == "gold":
            gold[i] = word
        else:
            pred[i] = word  # type: ignore[call-overload]
        return _files_case("not-a-number", [_lines(gold)], [_output(pred, None)], Reject((bad,)))
    if kind == 5:  # a score that is not finite
        word = rng.choice(["nan", "inf", "-inf", "NaN", "1e999", "-1e400"])
        if which == "gold":
            gold[i] = word
        else:
            pred[i] = word  # type: ignore[call-overload]
        return _files_case("not-finite", [_lines(gold)], [_output(pred, None)], Reject((bad,)))
    if kind == 6:  # an output one line short or one line long
        out = pred[:-1] if rng.random() < 0.5 else [*pred, 1.0]
        return _files_case("length", golds, [_output(out, None)], Reject(("out0.txt",)))
    if kind == 7:  # a blank output line where the gold has a score
        gold = [g or "2.0" for g in gold]
        blank = [k == i for k in range(n)]
        return _files_case("blank-scored", [_lines(gold)], [_output(pred, None, blank)],
                           Reject(("out0.txt",)))  # fmt: skip
    if kind == 8:  # a confidence out of 0..100, or not a number
        conf = _confidences(rng, n)
        conf[i] = rng.choice([-1.0, 100.5, 1e6, float("nan")])
        return _files_case("confidence", golds, [_output(pred, conf)], Reject(("out0.txt",)))
    if kind == 9:  # a gold with nothing to score: empty, or every line blank
        empty = rng.choice([b"", b"\n\n\n", b"\n" * n])
        return _files_case("empty-gold", [empty], preds, Reject(("STS.gs.set0.txt",)))
    if kind == 10:  # an empty output
        return _files_case("empty-output", golds, [rng.choice([b"", b"\n"])], Reject(("out0.txt",)))
    if kind == 11:  # --gold and --pred not in pairs
        return _files_case("unpaired", [*golds, golds[0]], preds, Reject(("--gold", "--pred")))
    if kind == 12:  # a file that is not there
        argv = ["score", "sts", "--gold", "STS.gs.set0.txt", "--pred", "nothere.txt", "--json"]
        return Case("no-file", {"STS.gs.set0.txt": golds[0]}, argv, Reject(("nothere.txt",)))
    if kind == 13:  # two gold files of one dataset name (as written, by case, by NFC/NFD)
        other = rng.choice(["same", "case", "nfd"])
        name = {"same": "MSRpar", "case": "msrpar", "nfd": unicodedata.normalize("NFD", "Café")}[
            other
        ]
        first = "MSRpar" if other != "nfd" else unicodedata.normalize("NFC", "Café")
        files = {f"a/STS.gs.{first}.txt": golds[0], f"b/STS.gs.{name}.txt": golds[0],
                 "out0.txt": preds[0]}  # fmt: skip
        argv = ["score", "sts", "--gold", f"a/STS.gs.{first}.txt", "--gold", f"b/STS.gs.{name}.txt"]
        argv += ["--pred", "out0.txt", "--pred", "out0.txt", "--json"]
        return Case(f"collision-{other}", files, argv, Reject((f"STS.gs.{name}.txt",)))
    if kind == 14:  # every gold score the same: r is undefined
        same = ["3.0" if g else "" for g in gold]
        return _files_case("constant-gold", [_lines(same)], preds, Either(("STS.gs.set0.txt",)))
    if kind == 15:  # control characters or a huge field in a score line
        junk = rng.choice(["\x1b[31m1.0", "1.0\x00", "\x07", "1" * 100_000, "1.0\x1b"])
        if which == "gold":
            gold[i] = junk
        else:
            pred[i] = junk  # type: ignore[call-overload]
        return _files_case("control", [_lines(gold)], [_output(pred, None)], Reject((bad,)))
    if kind == 16:  # another encoding
        enc = rng.choice(["utf-16", "utf-32"])
        data = (golds[0] if which == "gold" else preds[0]).decode().encode(enc)
        g, p = (data, preds[0]) if which == "gold" else (golds[0], data)
        return _files_case(f"encoding-{enc}", [g], [p], Reject((bad,)))
    if kind == 17:  # a gold score off STS's 0..5 scale: numbers, but not an STS gold
        k = next(j for j, g in enumerate(gold) if g)
        gold[k] = rng.choice(["-0.5", "5.2", "7", "100", "-3"])
        return _files_case("off-scale", [_lines(gold)], preds, Reject(("STS.gs.set0.txt",)))
    label, data = damage(rng, golds[0] if which == "gold" else preds[0])
    g, p = (data, preds[0]) if which == "gold" else (golds[0], data)
    return _files_case(f"damage-{label}", [g], [p], Either())


# -- sts-folder: an STS folder to evaluate -b, score file, score sts12 ----------------------------


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 5)))


def _pairs(rng: random.Random, n: int) -> list[tuple[str, str]]:
    return [(_sentence(rng), _sentence(rng)) for _ in range(n)]


def _cosine(a: str, b: str) -> float:
    """The SemEval-2012 baseline by hand: binary bags of white-space tokens, their cosine."""
    x, y = set(a.split()), set(b.split())
    return len(x & y) / math.sqrt(len(x) * len(y)) if x and y else 0.0


def _input(pairs: list[tuple[str, str]]) -> bytes:
    return "".join(f"{a}\t{b}\n" for a, b in pairs).encode()


def _folder_case(label: str, files: dict[str, bytes], argv: list[str], expect: object) -> Case:
    return Case(label, files, [*argv, "--json"], expect)  # type: ignore[arg-type]


def draw_folder(rng: random.Random) -> Case:
    names = rng.sample(["MSRpar", "MSRvid", "OnWN", "headlines", "Ünï", "surprise.SMTnews"],
                       rng.randint(1, 3))  # fmt: skip
    sets = {}
    files: dict[str, bytes] = {}
    for name in names:
        n = rng.randint(5, 9)
        gold, pred = _gold(rng, n, blanks=rng.random() < 0.2), _system(rng, n)
        sets[name] = (gold, pred, _pairs(rng, n))
        files[f"F/STS.input.{name}.txt"] = _input(sets[name][2])
        files[f"F/STS.gs.{name}.txt"] = _lines(gold)
        files[f"O/STS.output.{name}.txt"] = _output(pred, None)
    first = names[0]
    score = ["score", "file", "F", "O" if len(names) > 1 else f"O/STS.output.{first}.txt"]
    evaluate = ["evaluate", "overlap", "-b", "F", "--no-save"]
    kind = rng.randrange(14)

    def expected(system: Callable[[str], list[float]]) -> Check:
        per = {f"-{n.lower()}": _metrics(g, system(n), None)
               for n, (g, _, _) in sets.items()}  # fmt: skip
        if len(names) == 1:
            return _expect(per)
        scored = [_scored(g, system(n)) for n, (g, _, _) in sets.items()]
        return _expect(per, _suite_figures(scored))

    if kind == 0:  # a submission folder scored against the STS folder
        return _folder_case("score", files, score, Accept(expected(lambda n: sets[n][1])))
    if kind == 1:  # the baseline measure evaluated on the folder
        cosines = {n: [_cosine(a, b) for a, b in p] for n, (_, _, p) in sets.items()}
        if any(len(set(_scored(sets[n][0], c)[1])) < 2 for n, c in cosines.items()):
            return _folder_case("evaluate-constant", files, evaluate, Either(("F",)))
        return _folder_case("evaluate", files, evaluate, Accept(expected(cosines.__getitem__)))
    if kind == 2:  # another year's prefix, CRLF, a BOM, extra source columns: the same numbers
        style = rng.choice(["prefix", "crlf", "bom", "columns"])
        changed = {}
        for path, data in files.items():
            if style == "prefix" and path.startswith("F/"):
                path = path.replace("F/STS.", "F/STS.2014.test.", 1)
            elif style == "crlf":
                data = data.replace(b"\n", b"\r\n")
            elif style == "bom":
                data = b"\xef\xbb\xbf" + data
            elif style == "columns" and ".input." in path:
                data = data.replace(b"\n", b"\tsource-a\tsource-b\n")
            changed[path] = data
        return _folder_case(style, changed, score, Accept(expected(lambda n: sets[n][1])))
    if kind == 3:  # two datasets whose names collide by case or Unicode normalisation
        twins = [first.swapcase()]
        if first == "Ünï":
            twins.append(unicodedata.normalize("NFD", first))
        if first == "MSRpar":
            twins.append("ＭＳＲpar")  # fullwidth letters: the same name under NFKC
        twin = rng.choice([*twins, "prefix"])
        argv = rng.choice([score, evaluate])
        if twin == "prefix":  # the same dataset under another year's prefix
            files[f"F/STS.2012.input.{first}.txt"] = files[f"F/STS.input.{first}.txt"]
            files[f"F/STS.2012.gs.{first}.txt"] = files[f"F/STS.gs.{first}.txt"]
            return _folder_case("collision", files, argv, Reject((f"STS.input.{first}.txt",)))
        files[f"F/STS.input.{twin}.txt"] = files[f"F/STS.input.{first}.txt"]
        files[f"F/STS.gs.{twin}.txt"] = files[f"F/STS.gs.{first}.txt"]
        return _folder_case("collision", files, argv, Reject((f"STS.input.{twin}.txt",)))
    if kind == 4:  # an input without its gold
        del files[f"F/STS.gs.{first}.txt"]
        return _folder_case("no-gold", files, rng.choice([score, evaluate]),
                            Reject((f"STS.gs.{first}.txt",)))  # fmt: skip
    if kind == 5:  # input and gold of different lengths
        gold = sets[first][0]
        files[f"F/STS.gs.{first}.txt"] = _lines([*gold, "1.0"] if rng.random() < 0.5 else gold[:-1])
        return _folder_case("gold-length", files, rng.choice([score, evaluate]),
                            Reject((f"STS.gs.{first}.txt", f"STS.input.{first}.txt")))  # fmt: skip
    if kind == 6:  # an input line without a tab
        pairs = sets[first][2]
        lines = _input(pairs).split(b"\n")
        lines[rng.randrange(len(pairs))] = rng.choice([b"one sentence only", b"", b"a  b"])
        files[f"F/STS.input.{first}.txt"] = b"\n".join(lines)
        return _folder_case("no-tab", files, rng.choice([score, evaluate]),
                            Reject((f"STS.input.{first}.txt",)))  # fmt: skip
    if kind == 7:  # a folder with no dataset, or a dataset with an empty name
        if rng.random() < 0.5:
            files = {"F/readme.txt": b"nothing here\n", "O/x.txt": b"1\n"}
            return _folder_case("no-dataset", files, rng.choice([score, evaluate]), Reject(("F",)))
        files["F/STS.input..txt"] = files.pop(f"F/STS.input.{first}.txt")
        files["F/STS.gs..txt"] = files.pop(f"F/STS.gs.{first}.txt")
        return _folder_case("empty-name", files, rng.choice([score, evaluate]),
                            Reject(("STS.input..txt",)))  # fmt: skip
    if kind == 8:  # a submission folder missing a member's file (a suite) or the output short
        if len(names) > 1:
            del files[f"O/STS.output.{first}.txt"]
        else:
            files[f"O/STS.output.{first}.txt"] = _output(sets[first][1][:-1], None)
        return _folder_case("output-missing", files, score, Reject((f"STS.output.{first}.txt",)))
    if kind == 9:  # a gold file without its input is not a dataset (2012's STS.gs.ALL.txt)
        files["F/STS.gs.ALL.txt"] = files[f"F/STS.gs.{first}.txt"]
        return _folder_case("stray-gold", files, score, Accept(expected(lambda n: sets[n][1])))
    if kind == 10:  # an extra output file the folder has no dataset for: not read
        files["O/STS.output.other.txt"] = b"junk\n"
        return _folder_case("extra-output", files, score, Accept(expected(lambda n: sets[n][1])))
    if kind == 11:  # the SemEval-2012 test sets by name, outputs made here
        return _sts12(rng)
    if kind == 12:  # a gold score that is not a number, or an input in another encoding
        if rng.random() < 0.5:
            gold = sets[first][0][:]
            gold[rng.randrange(len(gold))] = rng.choice(["x", "nan", "1,5", "\x1b"])
            files[f"F/STS.gs.{first}.txt"] = _lines(gold)
            return _folder_case("gold-nan", files, score, Reject((f"STS.gs.{first}.txt",)))
        text = files[f"F/STS.input.{first}.txt"].decode()
        files[f"F/STS.input.{first}.txt"] = text.encode("utf-16")
        return _folder_case("input-utf16", files, score, Reject((f"STS.input.{first}.txt",)))
    path = rng.choice(sorted(files))
    label, files[path] = damage(rng, files[path])
    return _folder_case(f"damage-{label}", files, rng.choice([score, evaluate]), Either())


STS12 = ["MSRpar", "MSRvid", "SMTeuroparl", "surprise.OnWN", "surprise.SMTnews"]


def _sts12_gold() -> dict[str, list[str]]:
    """The gold of SemEval-2012's test sets, read here line by line."""
    import os

    root = Path(os.environ.get("SIMEVAL_DATA_DIR", "")) / "sts2012" / "test"
    return {
        name: (root / f"STS.gs.{name}.txt").read_text(encoding="utf-8").splitlines()
        for name in STS12
    }


def _sts12(rng: random.Random) -> Case:
    gold = _sts12_gold()
    outputs = {name: _system_long(rng, len(g)) for name, g in gold.items()}
    files = {f"O/STS.output.{n}.txt": _output(s, None) for n, s in outputs.items()}
    argv = ["score", "sts12", "O", "--json"]
    if rng.random() < 0.5:
        per = {
            f"-{n.split('.')[-1].lower()}": _metrics(g, outputs[n], None) for n, g in gold.items()
        }
        suite = _suite_figures([_scored(g, outputs[n]) for n, g in gold.items()])
        return Case("sts12", files, argv, Accept(_expect(per, suite)))
    name = rng.choice(STS12)
    if rng.random() < 0.5:
        files[f"O/STS.output.{name}.txt"] = _output(outputs[name][:-1], None)
    else:
        del files[f"O/STS.output.{name}.txt"]
    return Case("sts12-short", files, argv, Reject((f"STS.output.{name}.txt",)))


def _system_long(rng: random.Random, n: int) -> list[float]:
    return [round(rng.uniform(0, 5), 4) for _ in range(n)]


# -- sts-sample: build sts-sample on a pool of sentence pairs ----------------------------------


def _sample_check(pool: list[tuple[str, str]], size: int) -> Check:
    """The sample: min(size, distinct pairs) distinct pool pairs, the same in the input file
    and the annotation sheet, each pair's similarity the baseline cosine computed here."""
    distinct = list(dict.fromkeys(pool))

    def check(outcome: Outcome) -> str | None:
        out = outcome.folder / "S"
        lines = (out / "STS.input.sample.txt").read_text(encoding="utf-8").split("\n")[:-1]
        drawn = [tuple(line.split("\t")) for line in lines]
        if len(drawn) != min(size, len(distinct)):
            return f"{len(drawn)} pairs drawn, expected {min(size, len(distinct))}"
        if len(set(drawn)) != len(drawn) or not set(drawn) <= set(distinct):
            return "a drawn pair is repeated or not in the pool"
        with open(out / "annotation.csv", encoding="utf-8", newline="") as f:
            sheet = [(r["sentence1"], r["sentence2"]) for r in csv.DictReader(f)]
        if sheet != drawn:
            return "annotation.csv differs from STS.input.sample.txt"
        sims = list(csv.DictReader(io.StringIO((out / "sample.tsv").read_text()), delimiter="\t"))
        for pair, row in zip(drawn, sims, strict=True):
            if abs(float(row["similarity"]) - _cosine(*pair)) > 5e-5:
                return f"similarity {row['similarity']} of {pair} != {_cosine(*pair):.4f}"
        return None

    return check


def draw_sample(rng: random.Random) -> Case:
    n = rng.randint(4, 12)
    pool = _pairs(rng, n)
    size = rng.randint(1, n)
    argv = ["build", "sts-sample", "S", "--pool", "pool.txt", "--size", str(size),
            "--bands", str(rng.randint(1, 5)), "--seed", str(rng.randrange(100))]  # fmt: skip
    kind = rng.randrange(12)
    i = rng.randrange(n)
    if kind <= 1:  # a valid pool (duplicates count once)
        if kind == 1:
            pool += rng.sample(pool, 2)
        return Case("valid", {"pool.txt": _input(pool)}, argv, Accept(_sample_check(pool, size)))
    if kind == 2:  # CRLF, a BOM, extra source columns, two pool files
        style = rng.choice(["crlf", "bom", "columns", "two-files"])
        data = _input(pool)
        files = {"pool.txt": data}
        if style == "crlf":
            files["pool.txt"] = data.replace(b"\n", b"\r\n")
        elif style == "bom":
            files["pool.txt"] = b"\xef\xbb\xbf" + data
        elif style == "columns":
            files["pool.txt"] = data.replace(b"\n", b"\tsrc\n")
        else:
            more = _pairs(rng, 3)
            files["pool2.txt"] = _input(more)
            argv += ["--pool", "pool2.txt"]
            pool = pool + more
        return Case(style, files, argv, Accept(_sample_check(pool, size)))
    if kind == 3:  # an empty or blank sentence: nothing to annotate
        a, b = pool[i]
        pool[i] = rng.choice([("", b), (a, ""), (" ", b), (a, "\t"), ("", "")])
        return Case("empty-sentence", {"pool.txt": _input(pool)}, argv, Reject(("pool.txt",)))
    if kind == 4:  # a line without a tab, or an empty line
        lines = _input(pool).split(b"\n")
        lines[i] = rng.choice([b"only one sentence", b""])
        return Case("no-tab", {"pool.txt": b"\n".join(lines)}, argv, Reject(("pool.txt",)))
    if kind == 5:  # an empty pool
        return Case(
            "empty-pool", {"pool.txt": rng.choice([b"", b"\n"])}, argv, Reject(("pool.txt",))
        )
    if kind == 6:  # more pairs asked for than the pool holds: fewer given, and said so
        argv[argv.index("--size") + 1] = str(len(set(pool)) + rng.randint(1, 50))
        return Case("short-pool", {"pool.txt": _input(pool)}, argv, Reject(("pool.txt", "--size")))
    if kind == 7:  # bad options
        option, value = rng.choice([("--by", "cosine"), ("--bands", "0"), ("--size", "0"),
                                    ("--size", "-3"), ("--size", "x")])  # fmt: skip
        return Case("option", {"pool.txt": _input(pool)}, [*argv, option, value], Reject((option,)))
    if kind == 8:  # the output folder exists already
        files = {"pool.txt": _input(pool), "S/keep.txt": b"mine\n"}
        return Case("out-exists", files, argv, Reject(("S",)))
    if kind == 9:  # another encoding, or NUL/control characters in a sentence
        if rng.random() < 0.5:
            text = _input([("кошка сидит", "кот сидит"), *pool]).decode()
            data = text.encode("cp1251", errors="replace")
            return Case("cp1251", {"pool.txt": data}, argv, Reject(("pool.txt",)))
        a, b = pool[i]
        pool[i] = (a + "\x00", b)
        return Case("nul", {"pool.txt": _input(pool)}, argv, Reject(("pool.txt",)))
    if kind == 10:  # a pool file that is not there
        argv[argv.index("pool.txt")] = "nothere.txt"
        return Case("no-file", {"pool.txt": _input(pool)}, argv, Reject(("nothere.txt",)))
    label, data = damage(rng, _input(pool))
    return Case(f"damage-{label}", {"pool.txt": data}, argv, Either())


SURFACES = [
    Surface("sts-files", draw_files),
    Surface("sts-folder", draw_folder),
    Surface("sts-sample", draw_sample),
]
