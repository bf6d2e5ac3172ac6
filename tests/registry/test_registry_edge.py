"""A user's registry TOML at the hard edge (issue 30, hole 3): every wrong file is refused in one
line naming the file, the line of the key at fault and the key, never with a traceback or a
silent accept; a benchmark or suite name can never make ``predict`` write outside ``--out``.

Each case is one registry file (made-up content) and where its error must point; the line is
counted by hand in the TOML text of the case."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from simeval.cli import app
from simeval.errors import InputError

runner = CliRunner()

PAIRS = "word1\tword2\tsim\ncat\tcar\t2.0\ndog\tdot\t1.0\nsun\tsum\t3.0\nmoon\tmood\t4.0\n"
WORDS = '[benchmark.a]\ngold = "gold.tsv"\n'  # lines 1-2: a valid pair benchmark
STS = '[benchmark.x]\nkind = "sts"\ninput = "in.txt"\ngold = "gs.txt"\n'  # lines 1-4

# (case, registry text, line of the error, text the message must hold: the key or the name)
CASES = [
    # wrong types: a number, list or table where text is expected (accepted, or a traceback)
    ("gold-list", '[benchmark.a]\ngold = ["x.tsv"]\n', 2, "'gold' must be text"),
    ("column-number", WORDS + "column = 3\n", 3, "'column' must be text"),
    ("description-table", WORDS + "description = { a = 1 }\n", 3, "'description' must be text"),
    ("layout-list", WORDS + '[suite.s]\nmembers = ["a"]\nlayout = ["x"]\n', 5, "'layout'"),
    ("template-number", WORDS + '[suite.s]\nmembers = ["a"]\ntemplate = 3\n', 5, "'template'"),
    ("member-number", WORDS + '[suite.s]\nmembers = ["a", 1]\n', 4, "members must be a list"),
    ("dataset-number", STS + "dataset = 3\n", 5, "'dataset' must be text"),
    (
        "view-name-number",
        WORDS + 'views = [{ name = 1, how = "column", columns = ["x"] }]\n',
        3,
        "a view is",
    ),
    ("score-range-reversed", WORDS + "score_range = [5, 0]\n", 3, "'score_range'"),
    ("score-range-bool", WORDS + "score_range = [true, 5]\n", 3, "'score_range'"),
    # suite cycles (a RecursionError or KeyError when loaded)
    ("cycle", '[suite.s]\nmembers = ["t"]\n[suite.t]\nmembers = ["s"]\n', 2, "member 't'"),
    ("self-cycle", '[suite.s]\nmembers = ["s"]\n', 2, "member 's' is a group"),
    # names that would become paths outside --out
    ("name-climbs", '[benchmark."../escaped"]\ngold = "gold.tsv"\n', 1, "'../escaped'"),
    ("name-absolute", '[benchmark."/tmp/abs"]\ngold = "gold.tsv"\n', 1, "'/tmp/abs'"),
    ("name-empty", '[benchmark.""]\ngold = "gold.tsv"\n', 1, "benchmark name ''"),
    ("suite-name-climbs", WORDS + '[suite."../up"]\nmembers = ["a"]\n', 3, "suite name '../up'"),
    ("sts-dataset-climbs", STS + 'dataset = "../../evil"\n', 5, "dataset '../../evil'"),
    # names that differ only in case: one file on many file systems (predict writes NAME.csv)
    ("case-in-file", WORDS + '[benchmark.A]\ngold = "gold.tsv"\n', 3, "differs only in case"),
    (
        "case-of-catalog",
        '[benchmark.SimLex999]\ngold = "gold.tsv"\n',
        1,
        "'SimLex999' differs only in case from 'simlex999' (the catalog's)",
    ),
    # silent accepts
    ("missing-policy", WORDS + 'missing = "sometimes"\n', 3, "missing must be zero, skip"),
    ("member-twice", WORDS + '[suite.s]\nmembers = ["a", "a"]\n', 4, "['a'] named more than"),
    (
        "sts-aggregate-over-words",
        WORDS + '[suite.s]\nmembers = ["a"]\naggregate = "sts"\n',
        4,
        "aggregate sts combines sts",
    ),
    ("sts-format", STS + 'format = "csv"\n', 5, "'format' must be sts or stsb"),
    ("split", WORDS + 'split = "holdout"\n', 3, "'split' must be test, train, dev or full"),
    (
        "one-file-of-sts",
        WORDS
        + STS.replace("[benchmark.x]", "\n[benchmark.x]")
        + '[suite.s]\nmembers = ["a", "x"]\nlayout = "one-file"\n',
        9,
        "member 'x' is a sts benchmark; one file (layout) holds word pairs only",
    ),
    (
        "benchmark-and-suite",
        WORDS + '[suite.a]\nmembers = ["mc30"]\n',
        3,
        "'a' is declared as a benchmark and a suite",
    ),
]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "gold.tsv").write_text(PAIRS)
    (tmp_path / "in.txt").write_text("a b\tc d\ne f\tg h\n")
    (tmp_path / "gs.txt").write_text("1.0\n2.0\n")
    return tmp_path


def _refused(args: list[str], where: str, fragment: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    assert lines[0].startswith(f"error: {where}:"), lines[0]
    assert fragment in lines[0], lines[0]


@pytest.mark.parametrize(
    ("text", "line", "fragment"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_registry_file_refused(folder: Path, text: str, line: int, fragment: str) -> None:
    registry = folder / "lab.toml"
    registry.write_text(text)
    _refused(["benchmarks", "--registry", str(registry)], f"{registry}:{line}", fragment)


def test_name_declared_in_two_files(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The second declaration of a name is refused (it replaced the first, silently), and the
    message names both files; the same file given twice is read once."""
    first, second = folder / "one.toml", folder / "two.toml"
    first.write_text(WORDS)
    second.write_text('\n[benchmark.a]\ngold = "gold.tsv"\ncolumn = "sim"\n')
    args = ["benchmarks", "--registry", str(first), "--registry", str(second)]
    _refused(args, f"{second}:2", f"'a' is declared in {first} too")
    monkeypatch.setenv("SIMEVAL_REGISTRY", str(first))
    listed = runner.invoke(app, ["benchmarks", "--registry", str(first)])
    rows = [r for r in listed.output.splitlines() if r.startswith("│ a ")]
    assert listed.exit_code == 0 and len(rows) == 1, listed.output


def test_predict_never_writes_outside_out(folder: Path) -> None:
    """A member named ``../escaped`` made ``predict`` write ``out/../escaped.csv``."""
    registry = folder / "lab.toml"
    registry.write_text(
        '[benchmark."../escaped"]\ngold = "gold.tsv"\n[suite.s]\nmembers = ["../escaped"]\n'
    )
    out = folder / "deep" / "out"
    args = ["predict", "orthographic:kind=levenshtein", "-s", "s", "--registry", str(registry)]
    _refused([*args, "--out", f"{out}/"], f"{registry}:1", "benchmark name '../escaped'")
    assert not (folder / "deep" / "escaped.csv").exists() and not out.exists()


def test_predict_checks_member_paths(folder: Path) -> None:
    """A suite built in Python from a path-named benchmark (its name an absolute path) is
    refused before anything is written, rather than written at that absolute path."""
    from simeval.api import load_target, predict
    from simeval.kinds.base import Suite

    member = load_target(str(folder / "gold.tsv"))
    out = folder / "out"
    with pytest.raises(InputError, match="would be written outside --out"):
        predict("orthographic:kind=levenshtein", Suite("s", [member]), out)
    assert not (folder / "gold.tsv.csv").exists() and not out.exists()


@pytest.mark.parametrize(("column", "said"), [('"score"', "no column named 'score'"),
                                             ('"7"', "column 7 does not exist")])  # fmt: skip
def test_a_column_the_gold_lacks_points_at_the_registry_line(
    folder: Path, column: str, said: str
) -> None:
    """The fix is in the registry, so the error names its line (line 3: ``column``) as well
    as the gold file; before, it named the gold file's header alone."""
    registry = folder / "lab.toml"
    registry.write_text(WORDS + f"column = {column}\n")
    args = ["evaluate", "overlap", "-b", "a", "--registry", str(registry), "--no-save"]
    _refused(args, f"{registry}:3", f"benchmark a: column {column.strip(chr(34))!r}: ")
    _refused(args, f"{registry}:3", f"{folder / 'gold.tsv'}")
    _refused(args, f"{registry}:3", said)


def test_load_error_points_at_the_table(folder: Path) -> None:
    """What only loading finds (a builder no one registered) named no file; now the table."""
    registry = folder / "lab.toml"
    registry.write_text('\n[benchmark.links]\nkind = "linking"\nbuilder = "nope"\n')
    args = ["evaluate", "overlap", "-b", "links", "--registry", str(registry), "--no-save"]
    _refused(args, f"{registry}:2", "unknown builder 'nope'")


@pytest.mark.parametrize(
    ("gold", "problem"),
    [("nothere.tsv", "no such file"), ("", "not a file"), ("sub", "not a file")],
)
def test_missing_gold_points_at_the_table(folder: Path, gold: str, problem: str) -> None:
    """A gold path that names nothing, or a folder, said only ``PATH: file not found`` (for a
    folder that is there): now the registry file, the table's line and what is wrong there."""
    (folder / "sub").mkdir()
    registry = folder / "lab.toml"
    registry.write_text(f'\n[benchmark.lab]\ngold = "{gold}"\n')
    (folder / "pred.tsv").write_text(PAIRS)
    args = ["score", "pairs", "--benchmark", "lab", "--pred", str(folder / "pred.tsv")]
    _refused([*args, "--registry", str(registry)], f"{registry}:2", f"benchmark lab: {folder}")
    result = runner.invoke(app, [*args, "--registry", str(registry)])
    assert problem in result.output, result.output


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        (f'[benchmark.a]\ngold = "{"x" * 10_000}.tsv"\n', 1, "cannot use this path"),
        (WORDS + f'descript{"x" * 10_000} = "y"\n', 3, "unknown key(s) ["),
        (WORDS + f"[ben{'x' * 5_000}]\n", None, "expected [benchmark.NAME] or [suite.NAME]"),
    ],
    ids=["long-gold-path", "long-key", "long-table"],
)
def test_a_long_name_keeps_the_file_and_reason(
    folder: Path, text: str, line: int | None, reason: str
) -> None:
    """A gold path too long for the system gave ``PATH: File name too long`` without the
    registry; a long key or table was quoted whole and the message cut before its reason."""
    registry = folder / "lab.toml"
    registry.write_text(text)
    (folder / "pred.tsv").write_text(PAIRS)
    args = ["score", "pairs", "--benchmark", "a", "--pred", str(folder / "pred.tsv")]
    where = f"{registry}:{line}" if line else str(registry)
    _refused([*args, "--registry", str(registry)], where, reason)
    said = runner.invoke(app, [*args, "--registry", str(registry)]).output
    assert len(said) < 600, said[-300:]  # the name cut, not the message


def test_a_missing_template_points_at_the_suite(folder: Path) -> None:
    """A one-file suite's template that is not there said only ``PATH: file not found``."""
    registry = folder / "lab.toml"
    registry.write_text(
        WORDS + "[suite.s]\nmembers = ['a']\nlayout = 'one-file'\ntemplate = 'no.csv'\n"
    )
    args = [
        "predict",
        "jaccard",
        "-s",
        "s",
        "--registry",
        str(registry),
        "--out",
        str(folder / "o"),
    ]
    _refused(args, f"{registry}:3", f"suite s: {folder / 'no.csv'}: no such file")


@pytest.mark.parametrize(
    ("text", "line", "key"),
    [
        ('[benchmark.lab]\ngold = "loop.tsv"\n', 2, "gold"),
        ('[benchmark.lab]\ngold = "gold.tsv"\nexclude = "loop.tsv"\n', 3, "exclude"),
        (WORDS + '[suite.s]\nmembers = ["a"]\ntemplate = "loop.tsv"\n', 5, "template"),
    ],
    ids=["gold", "exclude", "template"],
)
def test_a_path_in_a_symlink_loop_is_refused_at_its_key(
    folder: Path, text: str, line: int, key: str
) -> None:
    """A path whose links lead back to themselves raised pathlib's RuntimeError ("Symlink
    loop") as a traceback while the registry was read: now one line at the key."""
    (folder / "loop.tsv").symlink_to(folder / "other.tsv")
    (folder / "other.tsv").symlink_to(folder / "loop.tsv")
    registry = folder / "lab.toml"
    registry.write_text(text)
    _refused(["benchmarks", "--registry", str(registry)], f"{registry}:{line}", f"{key} 'loop.tsv'")
    _refused(["benchmarks", "--registry", str(registry)], f"{registry}:{line}", "a symlink loop")


def test_a_registry_file_in_a_symlink_loop_is_refused(folder: Path) -> None:
    """``--registry LOOP`` raised pathlib's RuntimeError while the files were gathered."""
    (folder / "lab.toml").symlink_to(folder / "other.toml")
    (folder / "other.toml").symlink_to(folder / "lab.toml")
    registry = folder / "lab.toml"
    _refused(["benchmarks", "--registry", str(registry)], f"{registry}", "a symlink loop")
