"""The hard edge: bad input gets a clear error or the right number (one category a test)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from simeval.data.textio import parse_float
from simeval.errors import InputError
from simeval.metrics import pearson, sts_allnrm


@pytest.mark.parametrize(
    "text", ["1_0", "١", "0x10", "nan", "inf", "-Infinity", "1e400", "--1", "1.2.3", "", "1 0"]
)
def test_numbers_outside_ascii_decimal_are_refused(text: str) -> None:
    with pytest.raises(InputError, match="f:3: score"):
        parse_float(text, "f", 3, "score")


@pytest.mark.parametrize(
    ("text", "value"), [("1", 1.0), (" -.5 ", -0.5), ("2.", 2.0), ("+3e-4", 3e-4), ("1E2", 100.0)]
)
def test_ascii_decimals_are_read(text: str, value: float) -> None:
    assert parse_float(text, "f", 1, "score") == value


def test_a_long_bad_field_is_not_echoed_whole() -> None:
    with pytest.raises(InputError) as info:
        parse_float("x" * 5000, "f", 1, "score")
    assert len(str(info.value)) < 200 and "5,000 chars" in str(info.value)


def _exact_r_squared(x: list[float], y: list[float]) -> Fraction:
    """r² in exact rational arithmetic (floats convert to fractions without rounding)."""
    fx, fy = [Fraction(v) for v in x], [Fraction(v) for v in y]
    mx, my = sum(fx) / len(fx), sum(fy) / len(fy)
    sxy = sum((a - mx) * (b - my) for a, b in zip(fx, fy, strict=True))
    sxx = sum((a - mx) ** 2 for a in fx)
    syy = sum((b - my) ** 2 for b in fy)
    return sxy * sxy / (sxx * syy)


def test_pearson_of_an_extreme_score_is_the_true_value() -> None:
    rng = np.random.default_rng(7)
    x, y = rng.normal(size=30), rng.normal(size=30)
    x[4] = 1e308  # one absurd score: the sums of squares used to overflow (-0.0000 printed)
    r = pearson(x, y)
    exact = float(_exact_r_squared(x.tolist(), y.tolist()))
    assert r * r == pytest.approx(exact, rel=1e-12)
    assert np.sign(r) == np.sign(y[4] - y.mean())  # the outlier decides the sign
    # ALLnrm's least-squares fit on the same data stays finite
    assert np.isfinite(sts_allnrm([y, y], [x, x]))


def test_scaling_by_powers_of_two_changes_no_bit() -> None:
    from scipy.stats import pearsonr

    rng = np.random.default_rng(3)
    x, y = rng.normal(size=200) * 3.7, rng.normal(size=200)
    r = pearson(x, y)
    assert pearson(x * 2.0**40, y * 2.0**-30) == r
    assert r == pytest.approx(pearsonr(x, y)[0], abs=1e-14)


def _record(benchmark: str, score: float) -> str:
    import json

    return json.dumps(
        {
            "benchmark": benchmark,
            "task": "graded-pairs",
            "main_metric": "spearman",
            "metrics": {"spearman": score},
            "system": {"name": "s"},
        }
    )


def test_a_torn_last_record_is_skipped_then_set_aside(tmp_path, capsys) -> None:
    from simeval.api import evaluate
    from simeval.results.store import load_results

    folder = tmp_path / "res"
    folder.mkdir()
    path = folder / "results.jsonl"
    path.write_text(_record("a", 0.5) + "\n" + _record("b", 0.25)[:40])  # killed mid-write
    records = load_results(folder)
    assert [r["benchmark"] for r in records] == ["a"]
    assert "results.jsonl:2: a torn record" in capsys.readouterr().err
    evaluate("random:seed=1", "mc30", results_dir=folder)
    records = load_results(folder)
    assert [r["benchmark"] for r in records] == ["a", "mc30"]  # nothing landed on the torn line
    assert (folder / "results.jsonl.torn").read_text() == _record("b", 0.25)[:40] + "\n"
    assert path.read_text().endswith("\n")


def test_a_bad_line_in_the_middle_is_an_error_naming_it(tmp_path) -> None:
    from simeval.results.store import load_results

    (tmp_path / "results.jsonl").write_text(
        _record("a", 0.5) + "\n{oops\n" + _record("b", 1) + "\n"
    )
    with pytest.raises(InputError, match=r"results\.jsonl:2: not a JSON record"):
        load_results(tmp_path)


EVIL = 'ev[/]il <b onclick="x()">|_*=1'


@pytest.fixture
def evil_results(tmp_path, data_dir):
    """Two systems on mc30, one named with markup of every output format."""
    from simeval.api import evaluate

    folder = tmp_path / "res"
    for spec, name in (("orthographic:kind=dice", EVIL), ("orthographic:kind=levenshtein", "=cmd")):
        results = evaluate(spec, "mc30")
        for r in results:
            r.system["name"] = name
        from simeval.results.store import save_results

        save_results(folder, results)
    return folder


def test_names_are_escaped_in_every_output(evil_results, tmp_path) -> None:
    import csv
    import html
    import io
    from html.parser import HTMLParser

    from typer.testing import CliRunner

    from simeval.cli import app

    runner = CliRunner()
    shown = runner.invoke(app, ["results", str(evil_results)])
    assert shown.exit_code == 0, shown.output
    assert EVIL in shown.stdout  # printed as text, not parsed as rich markup

    md = runner.invoke(
        app, ["leaderboard", str(evil_results), "-f", "markdown", "--keep-dominated"]
    ).stdout
    assert r"ev\[/\]il \<b onclick=\"x()\"\>\|\_\*=1".replace('\\"', '"') in md
    latex = runner.invoke(
        app, ["leaderboard", str(evil_results), "-f", "latex", "--keep-dominated"]
    ).stdout
    assert r"\_" in latex and "|_" not in latex
    table = runner.invoke(
        app, ["leaderboard", str(evil_results), "-f", "csv", "--keep-dominated"]
    ).stdout
    names = [row[1] for row in csv.reader(io.StringIO(table))][1:]
    assert sorted(names) == sorted([EVIL, "'=cmd"])  # a formula is not left to run
    board = runner.invoke(
        app, ["leaderboard", str(evil_results), "-f", "html", "--keep-dominated"]
    ).stdout
    assert html.escape(EVIL) in board and "<b " not in board

    page = tmp_path / "r.html"
    made = runner.invoke(app, ["report", str(evil_results), "--html", str(page), "-B", "50"])
    assert made.exit_code == 0, made.output
    attributes: list[str] = []

    class Attrs(HTMLParser):
        def handle_starttag(self, tag, attrs):
            attributes.extend(k for k, _ in attrs)

    Attrs().feed(page.read_text())
    assert "onclick" not in attributes  # the name never became an attribute


def test_results_table_stays_legible_at_80_columns(tmp_path) -> None:
    from typer.testing import CliRunner

    from simeval.api import evaluate
    from simeval.cli import app

    specs = (
        [f"random:seed={s}" for s in range(1, 5)]
        + [f"orthographic:kind={k}" for k in ("prefix", "dice", "levenshtein")]
        + ["jaccard"]
    )
    for spec in specs:
        evaluate(spec, "mc30", "russe-hj", results_dir=tmp_path)
    shown = CliRunner().invoke(app, ["results", str(tmp_path)], env={"COLUMNS": "80"})
    assert shown.exit_code == 0, shown.output
    lines = shown.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    for word in ("russe-hj", "mc30", "spearman", "random:seed=4", "jaccard"):
        assert word in shown.stdout  # never cut to "russ…"
    assert "[7] orthographic:kind=levenshtein" in lines


def _cli(*args: str):
    from typer.testing import CliRunner

    from simeval.cli import app

    return CliRunner().invoke(app, list(args))


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("word1,word2,sim\n", "only a header line"),
        ("", "empty file"),
        ("x,y,1\nz,w,2\n", "none of its 2 pairs is in mc30 (first: 'x','y')"),
        (
            "word1,word2,sim\ncar,automobile,1_0\ngem,jewel,x\n",
            "2 problems:\n  line 2: sim: expected",
        ),
    ],
)
def test_bad_pair_submissions_exit_2_with_one_line(tmp_path, content, expected) -> None:
    f = tmp_path / "sub.csv"
    f.write_text(content)
    result = _cli("score", "pairs", "--benchmark", "mc30", "--pred", str(f))
    assert result.exit_code == 2
    assert expected in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == (3 if "problems" in expected else 1)  # a line per problem


def test_a_russe_file_of_other_pairs_is_refused_not_scored_075(tmp_path) -> None:
    f = tmp_path / "sub.csv"
    f.write_text("word1,word2,sim\nx,y,1\n")
    result = _cli("score", "russe", str(f))
    assert result.exit_code == 2 and "none of its 1 pairs is in the suite" in result.stderr


@pytest.mark.parametrize("args", [["--missing", "bogus"], ["--kind", "ranked"]])
def test_bad_option_values_are_refused_by_their_choices(tmp_path, args) -> None:
    f = tmp_path / "sub.csv"
    f.write_text("a,b,1\n")
    result = _cli("score", "pairs", "--gold", str(f), "--pred", str(f), *args)
    assert result.exit_code == 2 and "is not one of" in result.output


def test_kind_that_contradicts_the_benchmark_is_an_error(tmp_path) -> None:
    f = tmp_path / "sub.csv"
    f.write_text("a,b,1\n")
    result = _cli("score", "pairs", "--benchmark", "mc30", "--pred", str(f), "--kind", "related")
    assert result.exit_code == 2 and "--kind related conflicts with mc30" in result.stderr


def test_sts_blank_lines_where_the_gold_is_empty_and_space_confidence(tmp_path) -> None:
    from scipy.stats import pearsonr

    from simeval.data.sts import read_sts_output
    from simeval.kinds.sts import STSBenchmark

    gold = np.array([1.0, np.nan, 3.0, 4.5, np.nan, 2.0])
    bench = STSBenchmark("toy", "toy", [], gold)
    out = tmp_path / "STS.output.toy.txt"
    out.write_text("1.5 90\n\n2.5 80\n4.0 70\n\n1.0 60\n")  # 2015/16 style
    (result,) = bench.evaluate(bench.read_submission(out))
    keep = ~np.isnan(gold)
    assert result.metrics["pearson"] == pytest.approx(
        pearsonr([1.5, 2.5, 4.0, 1.0], gold[keep])[0], abs=1e-12
    )
    assert "weighted_pearson" in result.metrics
    out.write_text("1.5\n2\n\n4.0\n\n1.0\n")  # a blank where the gold has a score
    with pytest.raises(InputError, match=":3: expected a score, the line is empty"):
        read_sts_output(out, 6, np.isnan(gold))


def test_sts_gold_without_a_scored_pair_is_an_error(tmp_path) -> None:
    from simeval.data.sts import read_sts_gold

    f = tmp_path / "STS.gs.x.txt"
    f.write_text("\n\n\n")
    with pytest.raises(InputError, match="no scored pair"):
        read_sts_gold(f)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("vectors:path=/dev/zero", "not a regular file"),
        ("vectors:path=/no/such/file.vec", "vector file not found"),
        ("vectors:path=/tmp", "not a model folder"),
        ("vectors:path=/tmp/" + "a" * 300, "File name too long"),
        ("encoder:model=/etc", "not a sentence-transformers model folder"),
        ("encoder:model=/no/such/model", "model folder not found"),
    ],
)
def test_unusable_vector_and_model_paths_exit_2(spec, expected) -> None:
    result = _cli("evaluate", spec, "-b", "mc30", "--no-save")
    assert result.exit_code == 2
    assert expected in result.stderr and len(result.stderr) < 400


def test_constant_scores_are_flagged_not_crowned(tmp_path) -> None:
    """A constant ranking of a half-related set gets the 2015 AP 0.75: flagged, never best."""
    from sklearn.metrics import auc, precision_recall_curve

    gold = tmp_path / "rel.csv"
    labels = [1, 0, 1, 0, 1, 0, 1, 0]
    words = [(f"a{i}", f"b{i}") for i in range(8)]
    gold.write_text("".join(f"{a},{b},{y}\n" for (a, b), y in zip(words, labels, strict=True)))
    weak = [0.2, 0.9, 0.8, 0.3, 0.1, 0.7, 0.6, 0.4]
    for name, scores in (("flat", [0.5] * 8), ("weak", weak)):
        f = tmp_path / f"{name}.csv"
        f.write_text("".join(f"{a},{b},{s}\n" for (a, b), s in zip(words, scores, strict=True)))
        result = _cli(
            "score",
            "file",
            str(gold),
            str(f),
            "--kind",
            "related",
            "--results",
            str(tmp_path / "res"),
            "--name",
            name,
        )
        assert result.exit_code == 0, result.output
    # the 2015 trapezoid AP of the constant ranking, by scikit-learn 0.16's definition
    precision, recall, _ = precision_recall_curve(labels, [0.5] * 8)
    assert auc(recall, precision) == pytest.approx(0.75)
    board = _cli("leaderboard", str(tmp_path / "res"), "-f", "markdown", "--keep-dominated").stdout
    flat = next(line for line in board.splitlines() if "| flat |" in line)
    weak_line = next(line for line in board.splitlines() if "| weak |" in line)
    # flagged, not bold though highest (the sum column keeps RUSSE's ranking rule)
    assert flat.split("|")[3].strip() == "0.7500 †"
    assert weak_line.split("|")[3].strip().startswith("**")
    assert "† constant scores" in board
    verdict = _cli(
        "compare", "flat", "weak", "-b", str(gold), "--results", str(tmp_path / "res"), "-B", "60"
    ).stdout
    assert "verdict: none: the scores of flat are constant" in verdict


def test_trec_huge_relevance_long_ids_and_strict_scores(tmp_path) -> None:
    from simeval.data.trec import read_qrels, read_run

    f = tmp_path / "qrels"
    f.write_text("q1 0 d1 1\nq1 0 d2 99999999999999999999999\n")
    with pytest.raises(InputError, match=r":2: relevance \(field 4\): expected an integer below"):
        read_qrels(f)
    # used to cost 3.4 GB for 750k rows (a 3 MB docno); lines over 1 MiB now stop at the line cap
    f.write_text("q1 0 " + "d" * 300_000 + " 1\n")
    with pytest.raises(InputError, match=r":1: docno of 300,000 bytes"):
        read_qrels(f)
    run = tmp_path / "run"
    run.write_text("q1 Q0 d1 1 1_0 r\nq1 Q0 d2 2 0x1 r\nq1 Q0 d3 3 nan r\n")
    with pytest.raises(InputError, match="3 problems:\n  line 1: score"):
        read_run(run)


def test_a_member_named_beside_its_suite_is_evaluated_once(tmp_path) -> None:
    from simeval.api import evaluate

    found = evaluate("random:seed=1", "russe", "russe-hj")
    assert [r.benchmark for r in found].count("russe-hj") == 1


def test_predict_out_must_be_a_file_for_a_one_file_target(tmp_path) -> None:
    result = _cli("predict", "jaccard", "-s", "mc30", "--out", str(tmp_path) + "/")
    assert result.exit_code == 2 and "mc30 is one file" in result.stderr
    result = _cli("predict", "jaccard", "-s", "mc30", "--out", str(tmp_path / "mc30.csv"))
    assert result.exit_code == 0 and (tmp_path / "mc30.csv").is_file()
