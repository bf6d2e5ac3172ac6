"""The building commands at the edge: words holding separators survive a campaign whole, ranges
must be finite, and every hostile input gives one line naming the file and line or the option
(exit 2), never a traceback or a silent accept."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simeval.cli import app

ODD = ["com,ma", "t\tab", 'quo"te', "new\nline"]


def _write_csv(path: Path, rows: list[list[str]]) -> Path:
    with open(path, "w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows(rows)
    return path


def _read_csv(path: Path, delimiter: str = ",") -> list[list[str]]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.reader(f, delimiter=delimiter))


def _run(*args: str | Path) -> object:
    return CliRunner().invoke(app, [str(a) for a in args])


def test_words_with_a_comma_a_tab_a_quote_and_a_newline_round_trip(tmp_path: Path) -> None:
    pairs = [(w, "plain") for w in ODD] + [("a", w) for w in ODD]
    pair_file = _write_csv(tmp_path / "pairs.csv", [["word1", "word2"], *map(list, pairs)])
    made = _run(
        "build",
        "annotation",
        "assign",
        tmp_path / "a",
        "--pairs",
        pair_file,
        "--assignments",
        "1",
        "--size",
        str(len(pairs)),
    )
    assert made.exit_code == 0, made.output
    handed = _read_csv(tmp_path / "a" / "assignments.csv")
    assert handed[0] == ["assignment", "word1", "word2"]
    assert sorted((r[1], r[2]) for r in handed[1:]) == sorted(pairs)
    assert all(r[0] == "1" for r in handed[1:])
    # two raters answer every pair handed out: r1 rates k, r2 rates k + 2 (k: the pair's index)
    answers = [["rater", "word1", "word2", "rating"]]
    for k, (w1, w2) in enumerate(pairs):
        answers += [["r1", w1, w2, str(k)], ["r2", w1, w2, str(k + 2)]]
    answer_file = _write_csv(tmp_path / "answers.csv", answers)
    made = _run(
        "build",
        "annotation",
        "aggregate",
        tmp_path / "b",
        "--pairs",
        pair_file,
        "--answers",
        answer_file,
        "--min-gain",
        "1",
    )
    assert made.exit_code == 0, made.output
    rows = _read_csv(tmp_path / "b" / "benchmark.csv")
    assert rows[0] == ["word1", "word2", "sim", "sd", "n"]
    got = {(r[0], r[1]): (float(r[2]), float(r[3]), int(r[4])) for r in rows[1:]}
    # mean (k + k + 2) / 2 = k + 1; sample SD of {k, k + 2} = sqrt(2)
    assert got == {p: (pytest.approx(k + 1), pytest.approx(2**0.5), 2) for k, p in enumerate(pairs)}
    raters = _read_csv(tmp_path / "b" / "raters.tsv", "\t")
    assert [r[:3] for r in raters[1:]] == [
        ["r1", str(len(pairs)), "kept"],
        ["r2", str(len(pairs)), "kept"],
    ]


@pytest.fixture
def files(tmp_path: Path) -> Path:
    """Small campaign inputs, good and bad, in ``tmp_path``."""
    t = tmp_path
    (t / "pairs.csv").write_text("word1,word2\ncat,dog\nhouse,garden\nwood,field\n")
    (t / "ans.csv").write_text(
        "rater,word1,word2,rating\nr1,cat,dog,3\nr2,cat,dog,2\nr1,house,garden,1\n"
        "r2,house,garden,2\nr1,wood,field,0\nr2,wood,field,1\n"
    )
    (t / "one_answer.csv").write_text("rater,word1,word2,rating\nr1,cat,dog,1\n")
    (t / "nocol.csv").write_text("rater,word1,word2\nr1,cat,dog\n")
    (t / "nonnum.csv").write_text("rater,word1,word2,rating\nr1,cat,dog,abc\n")
    (t / "unknown.csv").write_text("rater,word1,word2,rating\nr1,cat,cow,1\n")
    (t / "dup.csv").write_text("rater,word1,word2,rating\nr1,cat,dog,1\nr1,cat,dog,2\n")
    (t / "badquote.csv").write_text('rater,word1,word2,rating\nr1,"cat,dog,3\n')
    (t / "empty.csv").write_text("")
    (t / "pos.csv").write_text("word1,word2,sim\ncat,dog,1\n")
    (t / "corpus.txt").write_text("the cat and the dog. the dog sees the cat.\n" * 5)
    (t / "binary.txt").write_bytes(bytes(range(256)) * 8)
    (t / "afile").write_text("x")
    (t / "junk.tar.gz").write_bytes(b"\x1f\x8b\x08\x00" + b"not a gzip stream" * 4)
    (t / "xquad.json").write_text('{"data": 5}')
    (t / "dupcol.csv").write_text("rater,word1,word2,rating,rater\nr1,cat,dog,3,r2\n")
    (t / "ids.tsv").write_text("a\nb\na\n")  # document a again after b
    (t / "three.txt").write_text("one.\ntwo.\nthree.\n")
    (t / "other.txt").write_text("lorem ipsum.\n" * 3)
    (t / "cut.tar.gz").write_bytes(_cut_archive("a.txt", b"the cat and the dog.\n" * 400))
    return t


def _cut_archive(member: str, data: bytes) -> bytes:
    """A .tar.gz holding ``member``, cut in the middle (a download that stopped)."""
    import io
    import tarfile

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        info = tarfile.TarInfo(member)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()[: len(buf.getvalue()) // 2]


# build negatives on the good inputs; each case below changes one thing
NEGATIVES = [
    "build",
    "negatives",
    "{t}/o",
    "--positives",
    "{t}/pos.csv",
    "--corpus",
    "{t}/corpus.txt",
    "--lang",
    "en",
]
# (name, arguments, what the one-line error must say); {t}: the folder of the files
HOSTILE = [
    (
        "scale to infinity",
        ["build", "annotation", "assign", "{t}/o", "--pairs", "{t}/pairs.csv", "--scale", "0:inf"],
        "--scale: LOW and HIGH must be finite",
    ),
    (
        "rescale to infinity",
        [
            "build",
            "annotation",
            "aggregate",
            "{t}/o",
            "--pairs",
            "{t}/pairs.csv",
            "--answers",
            "{t}/ans.csv",
            "--rescale",
            "0:inf",
        ],
        "--rescale: LOW and HIGH must be finite",
    ),
    (
        "rescale wider than a float",
        [
            "build",
            "annotation",
            "aggregate",
            "{t}/o",
            "--pairs",
            "{t}/pairs.csv",
            "--answers",
            "{t}/ans.csv",
            "--rescale",
            "-1e308:1e308",
        ],
        "--rescale: LOW and HIGH must be finite",
    ),
    (
        "a single answer",
        [
            "build",
            "annotation",
            "aggregate",
            "{t}/o",
            "--pairs",
            "{t}/pairs.csv",
            "--answers",
            "{t}/one_answer.csv",
        ],
        None,
    ),
    (
        "min gain not a number",
        [
            "build",
            "annotation",
            "aggregate",
            "{t}/o",
            "--pairs",
            "{t}/pairs.csv",
            "--answers",
            "{t}/ans.csv",
            "--min-gain",
            "nan",
        ],
        "--min-gain must be a finite number",
    ),
    (
        "missing rating column",
        [
            "build",
            "annotation",
            "aggregate",
            "{t}/o",
            "--pairs",
            "{t}/pairs.csv",
            "--answers",
            "{t}/nocol.csv",
        ],
        "nocol.csv:1: missing column(s) rating",
    ),
    (
        "rating not a number",
        [
            "build",
            "annotation",
            "aggregate",
            "{t}/o",
            "--pairs",
            "{t}/pairs.csv",
            "--answers",
            "{t}/nonnum.csv",
        ],
        "nonnum.csv:2: rating",
    ),
    (
        "unknown pair",
        [
            "build",
            "annotation",
            "aggregate",
            "{t}/o",
            "--pairs",
            "{t}/pairs.csv",
            "--answers",
            "{t}/unknown.csv",
        ],
        "unknown.csv:2: pair 'cat','cow' is not in the campaign",
    ),
    (
        "duplicate rater",
        [
            "build",
            "annotation",
            "aggregate",
            "{t}/o",
            "--pairs",
            "{t}/pairs.csv",
            "--answers",
            "{t}/dup.csv",
        ],
        "dup.csv:3: rater 'r1' rated this pair",
    ),
    (
        "an unclosed quote",
        [
            "build",
            "annotation",
            "assign",
            "{t}/o",
            "--pairs",
            "{t}/pairs.csv",
            "--answers",
            "{t}/badquote.csv",
        ],
        "badquote.csv:2: malformed CSV",
    ),
    (
        "empty pairs",
        ["build", "annotation", "assign", "{t}/o", "--pairs", "{t}/empty.csv"],
        "empty.csv: no pairs",
    ),
    (
        "output is a file",
        ["build", "annotation", "assign", "{t}/afile", "--pairs", "{t}/pairs.csv"],
        "afile: exists and is not empty",
    ),
    (
        "zero-size assignments",
        ["build", "annotation", "assign", "{t}/o", "--pairs", "{t}/pairs.csv", "--size", "0"],
        "--size",
    ),
    (
        "simulate to a zero width",
        ["build", "annotation", "simulate", "{t}/o", "--target", "0", "--replays", "1"],
        "--target 0: expected a width above 0",
    ),
    (
        "simulate to a negative width",
        ["build", "annotation", "simulate", "{t}/o", "--target", "-1", "--replays", "1"],
        "--target -1: expected a width above 0",
    ),
    (
        "PMI smoothing not a number",
        [
            *NEGATIVES,
            "--alpha",
            "nan",
        ],
        "--alpha must be a number above 0",
    ),
    (
        "a corpus that is not text",
        [
            "build",
            "negatives",
            "{t}/o",
            "--positives",
            "{t}/pos.csv",
            "--corpus",
            "{t}/binary.txt",
            "--lang",
            "en",
        ],
        "binary.txt",
    ),
    (
        "negative source count",
        [
            *NEGATIVES,
            "--sources",
            "-1",
        ],
        "--sources",
    ),
    (
        "empty linking input",
        [
            "build",
            "linking",
            "{t}/o",
            "--lang",
            "de",
            "--input",
            "marked-lines:{t}/empty.csv,{t}/empty.csv",
        ],
        "empty.csv: no document pairs in it",  # the reader refuses it before the builder
    ),
    (
        "a corpus archive that is junk",
        [
            "build",
            "negatives",
            "{t}/o",
            "--positives",
            "{t}/pos.csv",
            "--corpus",
            "{t}/junk.tar.gz",
            "--lang",
            "en",
        ],
        "junk.tar.gz: not a readable tar archive",
    ),
    (
        "a window past any sentence",
        [
            *NEGATIVES,
            "--window",
            "1000000000000",
        ],
        "--window must be 1 to 1000",
    ),
    (
        "SQuAD JSON of the wrong shape",
        [
            "build",
            "linking",
            "{t}/o",
            "--lang",
            "de",
            "--input",
            "xquad:{t}/xquad.json,{t}/xquad.json",
        ],
        "xquad.json: not SQuAD JSON",
    ),
    (
        "a wiki archive that is junk",
        ["build", "linking", "{t}/o", "--lang", "zh", "--input", "wiki-tsv:{t}/junk.tar.gz,a.tsv"],
        "junk.tar.gz: not a readable tar archive",
    ),
    (
        "empty sts pool",
        ["build", "sts-sample", "{t}/o", "--pool", "{t}/empty.csv"],
        "empty.csv: empty file",
    ),
]


# found by the fuzzer (tests/fuzzing/surfaces): on main each was a traceback or a silent accept
ASSIGN = ["build", "annotation", "assign", "{t}/o", "--pairs", "{t}/pairs.csv"]
AGGREGATE = ["build", "annotation", "aggregate", "{t}/o", "--pairs", "{t}/pairs.csv"]
NTREX = "ntrex:{t}/ids.tsv,{t}/three.txt,{t}/three.txt"
HOSTILE += [
    (
        "a negative seed drawing sources",  # main: numpy's ValueError
        [*NEGATIVES, "--sources", "1", "--seed", "-1"],
        "Invalid value for '--seed'",
    ),
    (
        "assignments with a negative seed",  # main: numpy's ValueError
        [*ASSIGN, "--seed", "-1"],
        "Invalid value for '--seed'",
    ),
    (
        "a linking build with a negative seed",  # main: numpy's ValueError
        ["build", "linking", "{t}/o", "--lang", "de", "--input", NTREX, "--seed", "-1"],
        "Invalid value for '--seed'",
    ),
    (
        "answers naming the rater column twice",  # main: the first column used, silently
        [*ASSIGN, "--answers", "{t}/dupcol.csv"],
        "dupcol.csv:1: column(s) rater named twice",
    ),
    (
        "an empty rescale",  # main: taken as no rescale
        [*AGGREGATE, "--answers", "{t}/ans.csv", "--rescale", ""],
        "--rescale: expected LOW:HIGH",
    ),
    (
        "a linking language that is a path",  # main: query ids '../de:...' written
        ["build", "linking", "{t}/o", "--lang", "../de", "--input", "xquad:{t}/afile,{t}/afile"],
        "--lang '../de'",
    ),
    (
        "an NTREX document id back after another document",  # main: read as two documents
        ["build", "linking", "{t}/o", "--lang", "de", "--input", NTREX],
        "ids.tsv:3: document 'a' again after other documents",
    ),
    (
        "negatives from a corpus that shares no word with the positives",  # main: 0 pairs, exit 0
        [*NEGATIVES[:6], "{t}/other.txt", "--lang", "en", "--min-count", "1", "--any-word"],
        "other.txt: no negative found",
    ),
    (
        "a corpus archive cut short",  # main: gzip's EOFError, printed as "Aborted!", exit 1
        [*NEGATIVES[:6], "{t}/cut.tar.gz", "--lang", "en"],
        "cut.tar.gz: not a readable tar archive",
    ),
    (
        "a wiki archive cut short",  # main: gzip's EOFError, printed as "Aborted!", exit 1
        ["build", "linking", "{t}/o", "--lang", "zh", "--input", "wiki-tsv:{t}/cut.tar.gz,a.txt"],
        "cut.tar.gz: not a readable tar archive",
    ),
    (
        "an empty corpus",  # main: named the tokenized copy in the cache
        [*NEGATIVES[:6], "{t}/empty.csv", "--lang", "en"],
        "empty.csv: no word occurs",
    ),
]


@pytest.mark.parametrize(("name", "args", "expected"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_a_hostile_build_input_gets_one_line_naming_it(
    files: Path, name: str, args: list[str], expected: str | None
) -> None:
    made = CliRunner().invoke(app, [a.format(t=files) for a in args])
    assert made.exception is None or isinstance(made.exception, SystemExit), repr(made.exception)
    if expected is None:  # the right figure rather than an error (see the test below)
        assert made.exit_code == 0, made.output
        return
    assert made.exit_code == 2, made.output
    assert "Traceback" not in made.output
    # one error line (a usage error of the option parser also prints its usage above it)
    lines = [line for line in made.output.splitlines() if line.lower().startswith("error:")]
    assert len(lines) == 1, made.output
    assert expected in lines[0], lines[0]
    assert not (files / "o").exists()


def test_one_answer_aggregates_with_undefined_agreement_as_null(files: Path) -> None:
    import json

    made = _run(
        "build",
        "annotation",
        "aggregate",
        files / "o",
        "--pairs",
        files / "pairs.csv",
        "--answers",
        files / "one_answer.csv",
    )
    assert made.exit_code == 0, made.output
    manifest = json.loads((files / "o" / "manifest.json").read_text())
    agreement = manifest["counts"]["agreement"]
    # one rating: no pair is rated twice, so no agreement figure is defined
    assert agreement == dict.fromkeys(agreement, None)
    word1, word2, sim, sd, n = _read_csv(files / "o" / "benchmark.csv")[1]
    assert (word1, word2, float(sim), sd, n) == ("cat", "dog", 1.0, "", "1")


def test_a_manifest_pointing_outside_its_folder_is_refused(tmp_path: Path) -> None:
    """A built folder's manifest names its pair file; one that climbs out of the folder (a
    hostile or hand-edited manifest) would make evaluate read any file."""
    import json

    from typer.testing import CliRunner

    from simeval.cli import app

    outside = tmp_path / "secret.csv"
    outside.write_text("word1,word2,sim\na,b,1\nc,d,0\n")
    built = tmp_path / "built"
    built.mkdir()
    manifest = {"benchmark": {"file": "../secret.csv", "kind": "related"}}
    (built / "manifest.json").write_text(json.dumps(manifest))
    done = CliRunner().invoke(app, ["evaluate", "overlap", "-b", str(built), "--no-save"])
    assert done.exit_code == 2, done.output
    assert "expected a file inside the folder" in done.output
