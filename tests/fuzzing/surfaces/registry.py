"""Registry files: a user's TOML (``--registry FILE`` or ``SIMEVAL_REGISTRY``) declaring a pair
benchmark and suites, reached by ``score pairs --benchmark``, ``evaluate``, ``predict`` and
``benchmarks``.

The independent number is scipy's Spearman of a system file (``score pairs``) or of the
longest-common-prefix ratio computed here (``evaluate orthographic:kind=prefix``) against the
gold file the registry names."""

from __future__ import annotations

import random

from fuzzing.harness import (
    Accept,
    Case,
    Either,
    Reject,
    Surface,
    damage,
    pair_rows,
    pair_text,
    prefix_ratio,
    spearman_check,
)

REGISTRY = "reg.toml"
GOOD = '[benchmark.lab]\ngold = "gold.tsv"\n'
# names a careful reader calls wrong: they climb, are absolute, hold spaces or control
# characters, look like ASCII and are not, or are empty
BAD_NAMES = ["../escaped", "/tmp/abs", "a b", ".hidden", "ſimlex", "lab\x1b[31m", "", "a/b",
             "lab\u200b", "ｌａｂ", "-lab", "..", "lab\\x"]  # fmt: skip
# values of the wrong type for a text key
WRONG_TYPES = ["3", "true", '["gold.tsv"]', "{ a = 1 }", "1.5", "1979-05-27"]


def _toml_key(name: str) -> str:
    """``name`` as a TOML key (a basic string, escaped)."""
    escaped = name.replace("\\", "\\\\").replace('"', '\\"')
    escaped = "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in escaped)
    return f'"{escaped}"'


def _score(
    label: str, registry: str, gold: bytes, pred: bytes, expect: object, *extra: str
) -> Case:
    files = {REGISTRY: registry.encode(), "gold.tsv": gold, "pred.tsv": pred}
    argv = ["score", "pairs", "--benchmark", "lab", "--pred", "pred.tsv", "--registry",
            REGISTRY, "--json", *extra]  # fmt: skip
    return Case(label, files, argv, expect)  # type: ignore[arg-type]


def _refused(label: str, registry: str, gold: bytes, pred: bytes, *names: str) -> Case:
    return _score(label, registry, gold, pred, Reject(names or (REGISTRY,), warning_ok=False))


def draw(rng: random.Random) -> Case:
    gold, pred = pair_rows(rng)
    g, p = pair_text(gold), pair_text(pred)
    kind = rng.randrange(19)
    if kind == 0:  # a valid registry: the system file's number
        return _score("valid", GOOD, g, p, Accept(spearman_check(gold, pred)))
    if kind == 1:  # the same, named by SIMEVAL_REGISTRY instead of --registry
        case = _score("env", GOOD, g, p, Accept(spearman_check(gold, pred)))
        case.argv = [*case.argv[: case.argv.index("--registry")], "--json"]
        case.env = {"SIMEVAL_REGISTRY": REGISTRY}
        return case
    if kind == 2:  # valid unusual spellings: quoted name, comments, CRLF, optional keys
        text = rng.choice([
            '# lab\n["benchmark"."lab"]  # quoted\ngold = "gold.tsv"\n',
            '[benchmark.lab]\r\ngold = "gold.tsv"\r\ndescription = "ü\\tx"\r\n',
            'benchmark.lab.gold = "gold.tsv"\n',
            '[benchmark]\nlab = { gold = "gold.tsv", kind = "graded", column = "sim" }\n',
            GOOD + 'missing = "error"\nsplit = "test"\nscore_range = [0, 10]\nsource = "x"\n',
            GOOD + "[suite.s]\nmembers = ['lab', 'simlex999']\naggregate = 'mean'\n",
            "[benchmark.lab]\ngold = './sub/../gold.tsv'\n",
        ])  # fmt: skip
        return _score("unusual", text, g, p, Accept(spearman_check(gold, pred)))
    if kind == 3:  # missing = "zero": an unscored gold pair scores 0, as --missing zero
        i = rng.randrange(len(pred))
        zeroed = [*pred[:i], (gold[i][0], gold[i][1], "0"), *pred[i + 1 :]]
        text = GOOD + 'missing = "zero"\n'
        del pred[i]
        expect = Accept(spearman_check(gold, zeroed))
        return _score("missing-zero", text, g, pair_text(pred), expect)
    if kind == 4:  # a text key of the wrong type
        key = rng.choice(["gold", "kind", "description", "column", "missing"])
        value = rng.choice(WRONG_TYPES)
        text = "[benchmark.lab]\n" + (f"{key} = {value}\n" if key == "gold" else
                                      f'gold = "gold.tsv"\n{key} = {value}\n')  # fmt: skip
        return _refused(f"type-{key}", text, g, p, REGISTRY, key)
    if kind == 5:  # an unknown key, or a known one misspelt
        key = rng.choice(["colum", "Gold", "missing_policy", "weight", "kind ", "gold\u0430"])
        text = GOOD + f'{_toml_key(key)} = "x"\n'
        return _refused("unknown-key", text, g, p)
    if kind == 6:  # a name that is not a safe file name
        name = rng.choice(BAD_NAMES)
        table = rng.choice(["benchmark", "suite"])
        body = 'gold = "gold.tsv"\n' if table == "benchmark" else 'members = ["lab"]\n'
        text = GOOD + f"[{table}.{_toml_key(name)}]\n{body}"
        return _refused(f"name-{table}", text, g, p)
    if kind == 7:  # a name the catalog has, or one given twice over two files (in any case)
        if rng.random() < 0.5:
            name = rng.choice(["simlex999", "SimLex999", "RUSSE", "Lab"])
            text = GOOD + f'[benchmark.{name}]\ngold = "gold.tsv"\n'
            return _refused("catalog-name", text, g, p)
        case = _refused("twice", GOOD, g, p, "two.toml")
        case.files["two.toml"] = GOOD.replace("lab", rng.choice(["lab", "LAB"])).encode()
        case.argv += ["--registry", "two.toml"]
        return case
    if kind == 8:  # suites: cycles, duplicates, unknown or empty members, bad aggregates
        suite = rng.choice([
            '[suite.s]\nmembers = ["t"]\n[suite.t]\nmembers = ["s"]\n',
            '[suite.s]\nmembers = ["s"]\n',
            '[suite.s]\nmembers = ["lab", "lab"]\n',
            '[suite.s]\nmembers = ["nosuch"]\n',
            '[suite.s]\nmembers = []\n',
            '[suite.s]\nmembers = "lab"\n',
            '[suite.s]\nmembers = ["lab"]\naggregate = "median"\n',
            '[suite.s]\nmembers = ["lab"]\naggregate = "sts"\n',
            '[suite.s]\nmembers = ["lab"]\nlayout = "zip"\n',
            '[suite.s]\naggregate = "mean"\n',
            '[suite.s]\nmembers = ["lab", "LAB"]\n',
            '[suite.s]\nmembers = ["lab", "simlex999", "SIMLEX999"]\n',
        ])  # fmt: skip
        return _refused("suite", GOOD + suite, g, p)
    if kind == 9:  # a missing-value policy that is none of zero, skip, error
        value = rng.choice(["sometimes", "Zero", "", " zero", "none", "0"])
        return _refused("missing-policy", GOOD + f'missing = "{value}"\n', g, p)
    if kind == 10:  # the gold path: absent, a folder, empty, climbing to a file not there
        path = rng.choice(["nothere.tsv", ".", "", "../../nothere.tsv", "/nonexistent/g.tsv"])
        text = f'[benchmark.lab]\ngold = "{path}"\n'
        return _score("gold-path", text, g, p, Reject((REGISTRY, "gold", "nothere"), False))
    if kind == 11:  # TOML that does not parse
        text = rng.choice([
            GOOD + "gold = 'again.tsv'\n",
            "[benchmark.lab\ngold = 'gold.tsv'\n",
            GOOD + "[benchmark.lab]\n",
            "[benchmark.lab]\ngold = gold.tsv\n",
            GOOD + 'description = """open\n',
        ])  # fmt: skip
        return _refused("syntax", text, g, p)
    if kind == 12:  # tables the grammar does not have
        text = rng.choice([
            GOOD + '[dataset.x]\nfiles = ["a"]\n',
            'benchmark = 3\n',
            'benchmark = ["lab"]\n',
            '[benchmark]\nlab = "gold.tsv"\n',
            'suite = 1\n' + GOOD,
            '[[benchmark.lab]]\ngold = "gold.tsv"\n',
        ])  # fmt: skip
        return _refused("table", text, g, p)
    if kind == 13:  # the registry file is not there, is a folder, or is not UTF-8
        how = rng.choice(["absent", "folder", "cp1251", "utf-16"])
        if how == "absent":
            case = _refused("no-registry", GOOD, g, p)
            del case.files[REGISTRY]
            return case
        if how == "folder":
            case = _refused("registry-folder", GOOD, g, p)
            del case.files[REGISTRY]
            case.files[f"{REGISTRY}/x"] = b""
            return case
        text = GOOD + 'description = "кошка"\n'
        case = _refused(f"registry-{how}", "", g, p)
        case.files[REGISTRY] = text.encode(how)
        return case
    if kind == 14:  # `evaluate` of a measure computed here, by the registry name
        scored = [(a, b, repr(prefix_ratio(a, b))) for a, b, _ in gold]
        expect = Accept(spearman_check(gold, scored))
        argv = ["evaluate", "orthographic:kind=prefix,lower=false", "-b", "lab", "--registry",
                REGISTRY, "--no-save", "--json"]  # fmt: skip
        return Case("evaluate", {REGISTRY: GOOD.encode(), "gold.tsv": g}, argv, expect)
    if kind == 15:  # `benchmarks` lists the registry's names
        argv = ["benchmarks", "--registry", REGISTRY]
        text = GOOD + '[suite.labs]\nmembers = ["lab"]\naggregate = "mean"\n'

        def listed(outcome: object) -> str | None:
            shown = outcome.stdout  # type: ignore[attr-defined]
            return None if "lab" in shown and "labs" in shown else "names not listed"

        return Case("list", {REGISTRY: text.encode(), "gold.tsv": g}, argv, Accept(listed))
    if kind == 16:  # `predict` of a suite: never outside --out, one file per member
        text = GOOD + '[benchmark.lab2]\ngold = "gold.tsv"\n[suite.s]\nmembers = ["lab", "lab2"]\n'
        argv = ["predict", "jaccard", "--suite", "s", "--out", "out", "--registry", REGISTRY]

        def written(outcome: object) -> str | None:
            folder = outcome.folder  # type: ignore[attr-defined]
            found = sorted(p.name for p in (folder / "out").iterdir())
            return None if found == ["lab.csv", "lab2.csv"] else f"wrote {found}"

        return Case("predict", {REGISTRY: text.encode(), "gold.tsv": g}, argv, Accept(written))
    if kind == 17:  # files beyond gold: exclude, marks, subset, an STS pair, a suite template
        text = rng.choice([
            GOOD + 'exclude = "nothere.tsv"\n',
            GOOD + 'marks = { flag = "nothere.tsv" }\n',
            GOOD + 'subset = { split = "nothere.tsv" }\n',
            GOOD + 'exclude = "."\n',
            GOOD + 'marks = { flag = 3 }\n',
            GOOD + 'subset = { split = "gold.tsv", extra = "gold.tsv" }\n',
            GOOD + 'views = { name = "v" }\n',
            GOOD + "score_range = [0, nan]\n",
            GOOD + 'score_range = [0, "10"]\n',
            '[benchmark.lab]\nkind = "sts"\ninput = "nothere.txt"\ngold = "gold.tsv"\n',
            '[benchmark.lab]\nkind = "sts"\ngold = "gold.tsv"\n',
            '[benchmark.lab]\nkind = "linking"\nfolder = "nothere"\n',
            '[benchmark.lab]\nkind = "linking"\nfolder = "gold.tsv"\n',
            '[benchmark.lab]\nkind = "linking"\nbuilder = "bucc"\noptions = 3\n',
            '[benchmark.lab]\nkind = "related"\ngold = "gold.tsv"\n',
        ])  # fmt: skip
        if rng.random() < 0.15:  # a one-file suite's template, read when the suite is
            text = GOOD + "[suite.s]\nmembers = ['lab']\nlayout = 'one-file'\ntemplate = '"
            text += rng.choice(["nothere.csv", ".", "gold.tsv/x"]) + "'\n"
            argv = ["predict", "jaccard", "-s", "s", "--registry", REGISTRY, "--out", "out"]
            files = {REGISTRY: text.encode(), "gold.tsv": g}
            return Case("template", files, argv, Reject((REGISTRY, "template"), False))
        return _score("extra-files", text, g, p, Reject((REGISTRY, "gold.tsv", "lab"), False))
    label, data = damage(rng, GOOD.encode() + b'description = "x"\n')
    # damage that leaves no [benchmark.lab]: "unknown benchmark or suite 'lab'"
    case = _score(f"damage-{label}", "", g, p, Either((REGISTRY, "'lab'")))
    case.files[REGISTRY] = data
    return case


SURFACES = [Surface("registry", draw)]
