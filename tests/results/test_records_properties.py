"""Properties of results records read back (issue 44, "one funnel for every input"): a results
folder written by simeval itself, then one line of its ``results.jsonl`` changed (a metric set
to a string, NaN, 1e308, -2, a boolean, a list; a field deleted; the line cut, torn or
replaced by random bytes; a blank line added) is read by ``load_results``,
``results_frame``, ``results_table``, ``leaderboard`` and the commands ``simeval results`` and
``simeval leaderboard``: each gives the figures as written (the change included, when it is a
valid record), or simeval's own error naming ``results.jsonl`` and the changed line (exit 2
and ``results.jsonl:LINE:`` for a command, no traceback); and no read changes, adds or
deletes a file of the folder.

What is valid is decided here, by hand: correlations lie in [-1, 1], rates in [0, 1], counts
are at least 0; a metric is a finite number or null; ``benchmark``, ``task``, ``main_metric``
and ``metrics`` are required."""

from __future__ import annotations

import json
import math
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import simeval
from simeval.api.results import keep_results
from simeval.cli import app
from simeval.errors import InputError

runner = CliRunner()
GOLD = [("car", "automobile", 3.92), ("gem", "jewel", 3.84), ("journey", "voyage", 3.84),
        ("boy", "lad", 3.76), ("noon", "string", 0.08), ("rooster", "voyage", 0.04)]  # fmt: skip
QRELS = {"q1": {"d1": 1}, "q2": {"d7": 1, "d3": 0}, "q3": {"d2": 2}}
BOUNDS = {"spearman": (-1, 1), "pearson": (-1, 1), "recip_rank": (0, 1), "success_1": (0, 1),
          "success_5": (0, 1), "success_10": (0, 1), "num_q": (0, math.inf),
          "num_ret": (0, math.inf), "num_rel": (0, math.inf),
          "num_rel_ret": (0, math.inf),
          **dict.fromkeys(("map", "Rprec", "P_5", "P_10", "recall_5", "recall_10", "ndcg_cut_5",
                           "ndcg_cut_10"), (0, 1))}  # fmt: skip
REQUIRED = ("benchmark", "task", "main_metric", "metrics")


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Five records written by simeval: three systems on a graded benchmark held in memory
    (one of them constant, its correlations null), two on a linking one."""
    folder = tmp_path_factory.mktemp("records") / "results"
    pairs = simeval.benchmark_from_pairs(GOLD, name="six")
    linking = simeval.benchmark_from_qrels(QRELS, name="links")
    for name, preds in (("A", [0.9, 0.8, 0.7, 0.1, 0.3, 0.2]), ("B", [1, 2, 3, 4, 5, 6]),
                        ("C", [0.5] * 6)):  # fmt: skip
        keep_results(simeval.score(pairs, preds), folder, name)
    for name, run in (("A", {"q1": {"d1": 0.9, "d2": 0.5}, "q2": {"d3": 0.8, "d7": 0.4}}),
                      ("B", {"q1": {"d4": 0.9}, "q3": {"d2": 0.1, "d9": 0.3}})):  # fmt: skip
        keep_results(simeval.score(linking, run), folder, name)
    assert len(_lines(folder)) == 5
    return folder


def _lines(folder: Path) -> list[str]:
    return (folder / "results.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


METRIC_VALUES: tuple[Any, ...] = ("0.5", math.nan, math.inf, 1e308, -2, True, False, [0.5],
                                  {"v": 1}, None, 0.25, 1, 0, -0.5, 1.0000001)  # fmt: skip


def _valid_metric(name: str, value: Any) -> bool:
    low, high = BOUNDS[name]
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return value is None or (number and math.isfinite(value) and low <= value <= high)


Change = tuple[str, int, Any]
CHANGES = st.one_of(
    st.tuples(
        st.just("metric"),
        st.integers(0, 4),
        st.tuples(st.integers(0, 9), st.sampled_from(METRIC_VALUES)),
    ),
    st.tuples(st.just("delete"), st.integers(0, 4), st.integers(0, 30)),
    st.tuples(st.just("cut"), st.integers(0, 4), st.integers(1, 400)),
    st.tuples(st.just("tear"), st.just(4), st.integers(0, 400)),
    st.tuples(
        st.just("bytes"),
        st.integers(0, 4),
        st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"")),
    ),
    st.tuples(st.just("blank"), st.integers(0, 4), st.sampled_from(["\n", "  \n", "\t\r\n"])),
    st.tuples(st.just("none"), st.just(0), st.none()),
)


def _changed(lines: list[str], change: Change) -> tuple[bytes, int | None, list[dict | None]]:
    """The file's new bytes; the line the readers must name (None: the file is valid); and
    the records they must give, in order (None for one left out: a torn last line)."""
    kind, i, how = change
    records: list[dict | None] = [json.loads(line) for line in lines]
    texts = [line.encode("utf-8") for line in lines]
    bad: int | None = None
    if kind == "metric":
        names = list(records[i]["metrics"])  # type: ignore[index]
        name, value = names[how[0] % len(names)], how[1]
        records[i]["metrics"][name] = value  # type: ignore[index]
        texts[i] = (json.dumps(records[i]) + "\n").encode()
        bad = None if _valid_metric(name, value) else i + 1
    elif kind == "delete":
        keys = list(records[i])  # type: ignore[arg-type]
        key = keys[how % len(keys)]
        del records[i][key]  # type: ignore[attr-defined]
        texts[i] = (json.dumps(records[i]) + "\n").encode()
        bad = i + 1 if key in REQUIRED else None
    elif kind == "cut":
        texts[i] = texts[i][: min(how, len(texts[i]) - 2)] + b"\n"
        bad = i + 1
    elif kind == "tear":  # a write cut short: the last line without its line end, skipped
        texts[i] = texts[i][: min(how, len(texts[i]) - 2)]
        records[i] = None
    elif kind == "bytes":
        texts[i] = how + b"\n"
        records[i] = None
        blank = not how.decode("utf-8", errors="replace").strip()
        bad = None if blank else i + 1
    elif kind == "blank":
        texts.insert(i, how.encode())
        records.insert(i, None)
    if kind == "cut" and texts[i] == b"\n":
        bad = None  # nothing left of the line: a blank line
        records[i] = None
    return b"".join(texts), bad, records


def _failure(call: Any) -> InputError | None:
    try:
        call()
    except InputError as exc:
        return exc
    return None


@given(change=CHANGES)
@settings(deadline=None)  # the first example imports pandas and the report modules
def test_a_record_read_back_is_as_written_or_simevals_error_and_nothing_changes(
    written: Path, change: Change
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "results"
        shutil.copytree(written, folder)
        data, bad, records = _changed(_lines(written), change)
        (folder / "results.jsonl").write_bytes(data)
        before = _files(folder)
        path = str(folder / "results.jsonl")
        calls = {
            "load_results": lambda: simeval.load_results(folder),
            "results_frame": lambda: simeval.results_frame(folder),
            "results_table": lambda: simeval.results_table(folder),
            "leaderboard": lambda: simeval.leaderboard(folder),
        }
        for name, call in calls.items():
            failure = _failure(call)
            if bad is None:
                assert failure is None, (name, failure)
            else:
                assert failure is not None, name
                assert (failure.path, failure.line) == (path, bad), (name, failure)
            assert _files(folder) == before, name
        for command in (["results", str(folder)], ["leaderboard", str(folder)]):
            done = runner.invoke(app, command)
            shown = " ".join(done.output.split())
            assert "Traceback" not in shown, shown
            assert done.exception is None or isinstance(done.exception, SystemExit), shown
            if bad is None:
                assert done.exit_code == 0, (command, done.output, done.exception)
            else:
                assert done.exit_code == 2, (command, done.output, done.exception)
                assert f"results.jsonl:{bad}:" in shown, (command, shown)
            assert _files(folder) == before, command
        if bad is None:
            _assert_figures(folder, [r for r in records if r is not None])


def _assert_figures(folder: Path, expected: list[dict]) -> None:
    """The records read back, and results_frame's rows, hold the figures as written."""
    got = simeval.load_results(folder)
    assert [r["metrics"] for r in got] == [r["metrics"] for r in expected]
    frame = simeval.results_frame(folder)
    for row, record in zip(frame.to_dict("records"), expected, strict=True):
        main = record["metrics"][record["main_metric"]]
        assert _same(row["score"], main), (row, record)
        for name, value in record["metrics"].items():
            assert _same(row[f"metric.{name}"], value), (name, row, record)


def _same(got: Any, written: Any) -> bool:
    if written is None:
        return got is None or (isinstance(got, float) and math.isnan(got))
    return got == written
