"""Properties of ``simeval score pairs --gold G --pred P`` over generated small files (issue
44, "one funnel for every input"): any header (none, ``word1,word2,sim``, ``w1,w2,score``, the
score column first), separator (comma, semicolon, tab, spaces), quoting, byte-order mark,
CRLF line ends, and any spelling of the numbers (``1_0``, ``１``, ``inf``, `` 3.5 ``,
``3,5``...). The command exits 0 with scipy's Spearman and Pearson on what a strict reader
reads (the grammar written in ``number_kit``, independently of simeval's), or exits 2 with
``file:line:`` of the first refused number; never a traceback.

Drawn by the suite's Hypothesis profile (tests/conftest.py: 40 derandomized examples a
property, 300 fresh ones under CI)."""

from __future__ import annotations

import csv
import io
import json
import math
import tempfile
import warnings
from pathlib import Path

from hypothesis import event, given, settings
from hypothesis import strategies as st
from scipy.stats import pearsonr, spearmanr
from typer.testing import CliRunner

from number_kit import number_text, read_strictly
from simeval.cli import app

runner = CliRunner()
WORDS = ["cat", "dog", "ёж", "字", "Straße", "x-y", "a'b", 'q"t', "e\u0301", "7"]
HEADERS = {"none": None, "sim": ("word1", "word2", "sim"), "score": ("w1", "w2", "score"),
           "first": ("sim", "word1", "word2")}  # fmt: skip


@st.composite
def layouts(draw: st.DrawFn) -> dict[str, object]:
    """How a file is written: separator, header, byte-order mark, line ends."""
    return {
        "sep": draw(st.sampled_from([",", ";", "\t", " "])),
        "header": draw(st.sampled_from(list(HEADERS))),
        "bom": draw(st.booleans()),
        "crlf": draw(st.booleans()),
        "quote_all": draw(st.booleans()),
    }


def _fits(text: str, sep: str) -> bool:
    """Whether a cell can be written unquoted in a file separated by ``sep`` (tab and space
    files have no quoting, and an empty cell vanishes between spaces; comma and semicolon
    files are written by the csv module)."""
    if sep == " ":
        return bool(text) and not any(c.isspace() for c in text)
    return not (sep == "\t" and "\t" in text)


def _write(path: Path, rows: list[tuple[str, str, str]], layout: dict[str, object]) -> None:
    sep, header = str(layout["sep"]), HEADERS[str(layout["header"])]
    end = "\r\n" if layout["crlf"] else "\n"
    lines = [header] if header else []
    lines += [(s, a, b) if header and header[0] == "sim" else (a, b, s) for a, b, s in rows]
    if sep in ",;":
        buf = io.StringIO()
        quoting = csv.QUOTE_ALL if layout["quote_all"] else csv.QUOTE_MINIMAL
        csv.writer(buf, delimiter=sep, lineterminator=end, quoting=quoting).writerows(lines)
        text = buf.getvalue()
    else:
        text = "".join(sep.join(line) + end for line in lines)
    path.write_bytes((b"\xef\xbb\xbf" if layout["bom"] else b"") + text.encode("utf-8"))


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[tuple[str, str, str, str]], dict, dict, list[int]]:
    """Distinct pairs with a gold and a predicted score's text each, the two files' layouts
    and the order of the pairs in the prediction file. The first row's numbers are plain
    (``repr``): a first row whose score is no number is a header by the readers' rule, and
    its text decides the separator (so no word holds a comma either)."""
    gold_layout, pred_layout = draw(layouts()), draw(layouts())
    pairs = draw(st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(WORDS)),
                          min_size=1, max_size=8, unique=True))  # fmt: skip
    plain = st.integers(-40, 40).map(lambda i: repr(i / 8))
    rows = []
    for i, (a, b) in enumerate(pairs):
        if i == 0:
            g, p = draw(plain), draw(plain)
        else:
            g = draw(st.one_of(plain, number_text()).filter(lambda t: _fits(t, gold_layout["sep"])))
            p = draw(st.one_of(plain, number_text()).filter(lambda t: _fits(t, pred_layout["sep"])))
        rows.append((a, b, g, p))
    order = [0, *draw(st.permutations(range(1, len(rows))))]  # the first row stays first
    return rows, gold_layout, pred_layout, order


def _first_bad(texts: list[str], line_of: list[int], *, empty_is_bad: bool) -> int | None:
    """The line of the first text the strict grammar refuses (an empty one too, when
    ``empty_is_bad``: a gold score is required; an empty prediction is a missing pair)."""
    for text, line in zip(texts, line_of, strict=True):
        if not text.strip(" \t\r\n"):
            if empty_is_bad:
                return line
        elif read_strictly(text) is None:
            return line
    return None


def _expected(gold: list[float], system: list[float]) -> tuple[float, float]:
    if len(gold) < 2:
        return math.nan, math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns on constant input and returns NaN
        return float(spearmanr(gold, system)[0]), float(pearsonr(gold, system)[0])


def _same(got: object, expected: float) -> bool:
    if math.isnan(expected):
        return got is None
    return isinstance(got, float) and math.isclose(got, expected, rel_tol=0, abs_tol=1e-9)


@given(case=cases())
@settings(deadline=None)  # the first example imports the command's modules
def test_score_pairs_gives_scipys_figures_or_exits_2_naming_the_line(
    case: tuple[list[tuple[str, str, str, str]], dict, dict, list[int]],
) -> None:
    rows, gold_layout, pred_layout, order = case
    with tempfile.TemporaryDirectory() as tmp:
        gold_file, pred_file = Path(tmp) / "gold.csv", Path(tmp) / "pred.csv"
        _write(gold_file, [(a, b, g) for a, b, g, _ in rows], gold_layout)
        shuffled = [rows[i] for i in order]
        _write(pred_file, [(a, b, p) for a, b, _, p in shuffled], pred_layout)
        done = runner.invoke(app, ["score", "pairs", "--gold", str(gold_file), "--pred",
                                   str(pred_file), "--json"])  # fmt: skip
    shown = " ".join(done.output.split())
    assert "Traceback" not in shown, shown
    assert done.exception is None or isinstance(done.exception, SystemExit), shown
    gold_skip = 1 if gold_layout["header"] != "none" else 0
    pred_skip = 1 if pred_layout["header"] != "none" else 0
    gold_bad = _first_bad([g for *_, g, _ in rows], [i + 1 + gold_skip for i in range(len(rows))],
                          empty_is_bad=True)  # fmt: skip
    pred_bad = _first_bad([p for *_, p in shuffled], [i + 1 + pred_skip for i in range(len(rows))],
                          empty_is_bad=False)  # fmt: skip
    if gold_bad is not None or pred_bad is not None:
        assert done.exit_code == 2, shown
        where = f"gold.csv:{gold_bad}:" if gold_bad is not None else f"pred.csv:{pred_bad}:"
        assert where in shown, (where, shown)
        return
    if any(not p.strip(" \t\r\n") for *_, p in rows):  # a pair without a score: --missing error
        assert done.exit_code == 2, shown
        assert "pred.csv" in shown and "no score" in shown, shown
        return
    assert done.exit_code == 0, shown
    event("scored")
    record = json.loads(next(line for line in done.stdout.splitlines() if line.startswith("{")))
    rho, r = _expected([float(g) for *_, g, _ in rows], [float(p) for *_, p in rows])
    assert _same(record["metrics"]["spearman"], rho), (record["metrics"], rho)
    assert _same(record["metrics"]["pearson"], r), (record["metrics"], r)
