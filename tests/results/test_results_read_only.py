"""Reading a results folder never deletes or rewrites (issue 44): ``results``, ``leaderboard``
and ``compare`` and their Python functions, over a ``results.jsonl`` that is empty, holds a
cut line, or is valid, leave every file byte for byte, and a bad file is simeval's own error
naming the file and the line. Records are validated when read: a metric that is not a finite
number within its declared bounds, or a missing field, is refused with the line and the key.
Only a writer holding the lock removes what a killed writer left."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import simeval
from simeval.api import evaluate
from simeval.cli import app
from simeval.errors import InputError
from simeval.results.store import load_results, save_records

runner = CliRunner()
SYSTEMS = ("overlap", "orthographic:kind=prefix", "random:seed=1")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three systems on mc30 and rg65: six records, six items files."""
    folder = tmp_path_factory.mktemp("read") / "results"
    for spec in SYSTEMS:
        evaluate(spec, "mc30", "rg65", results_dir=folder)
    return folder


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _lines(folder: Path) -> list[str]:
    return (folder / "results.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)


def _copy(recorded: Path, tmp_path: Path, lines: list[str] | None = None) -> Path:
    folder = tmp_path / "copy"
    shutil.copytree(recorded, folder)
    if lines is not None:
        (folder / "results.jsonl").write_text("".join(lines), encoding="utf-8")
    return folder


def _cut(recorded: Path) -> list[str]:
    """Line 2 cut in the middle (before its items file is named), the lines after it whole."""
    lines = _lines(recorded)
    return [lines[0], lines[1][:60] + "\n", *lines[2:]]


COMMANDS: dict[str, Callable[[Path], list[str]]] = {
    "results": lambda f: ["results", str(f)],
    "leaderboard": lambda f: ["leaderboard", str(f)],
    "compare": lambda f: (
        ["compare", "overlap", "prefix", "-b", "mc30", "--results", str(f), "-B", "50"]
    ),
}
API: dict[str, Callable[[Path], Any]] = {
    "results_frame": simeval.results_frame,
    "results_table": simeval.results_table,
    "leaderboard": simeval.leaderboard,
    "compare_systems": lambda f: simeval.compare_systems(f, "overlap", "prefix", "mc30", 50),
}
BAD = {"empty": lambda r: [], "cut": _cut}
WHERE = {"empty": r"results\.jsonl: no result records", "cut": r"results\.jsonl:2: not a JSON"}


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("bad", list(BAD))
def test_a_command_over_a_bad_file_fails_and_deletes_nothing(
    recorded: Path, tmp_path: Path, command: str, bad: str
) -> None:
    folder = _copy(recorded, tmp_path, BAD[bad](recorded))
    before = _files(folder)
    assert sum(name.startswith("items/") for name in before) == 6

    done = runner.invoke(app, COMMANDS[command](folder))

    assert done.exit_code == 2, (done.output, done.exception)
    assert _files(folder) == before
    shown = " ".join(done.output.split())
    assert "Traceback" not in shown and "removed" not in shown
    assert re.search(WHERE[bad], shown), shown


@pytest.mark.parametrize("call", list(API))
@pytest.mark.parametrize("bad", list(BAD))
def test_a_function_over_a_bad_file_fails_and_deletes_nothing(
    recorded: Path, tmp_path: Path, call: str, bad: str
) -> None:
    folder = _copy(recorded, tmp_path, BAD[bad](recorded))
    before = _files(folder)
    with pytest.raises(InputError, match=WHERE[bad]) as caught:
        API[call](folder)
    assert caught.value.path == str(folder / "results.jsonl")
    assert caught.value.line == (None if bad == "empty" else 2)
    assert _files(folder) == before


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_command_over_a_valid_folder_with_a_leftover_changes_nothing(
    recorded: Path, tmp_path: Path, command: str
) -> None:
    """An items file no record names (a killed writer's) stays while the folder is read."""
    folder = _copy(recorded, tmp_path)
    (folder / "items" / "fedcba9876543210.tsv.gz").write_bytes(b"x")
    before = _files(folder)
    done = runner.invoke(app, COMMANDS[command](folder))
    assert done.exit_code == 0, (done.output, done.exception)
    assert _files(folder) == before
    for call in API.values():
        call(folder)
    assert _files(folder) == before


def test_a_writer_removes_only_items_no_record_names(recorded: Path, tmp_path: Path) -> None:
    folder = _copy(recorded, tmp_path)
    left = folder / "items" / "fedcba9876543210.tsv.gz"
    left.write_bytes(b"x")
    named = set(_files(folder)) - {str(left.relative_to(folder))}
    save_records(folder, [])
    assert not left.exists()
    assert named <= set(_files(folder))


def test_a_writer_over_a_cut_line_removes_no_items_file(recorded: Path, tmp_path: Path) -> None:
    """The cut record's items file is named by nothing readable: it is not judged unused."""
    folder = _copy(recorded, tmp_path, _cut(recorded))
    items = {n: b for n, b in _files(folder).items() if n.startswith("items/")}
    save_records(folder, [])
    assert {n: b for n, b in _files(folder).items() if n.startswith("items/")} == items


# -- records validated when read ----------------------------------------------------------


def _with(recorded: Path, tmp_path: Path, line: int, change: Callable[[dict], None]) -> Path:
    lines = _lines(recorded)
    record = json.loads(lines[line - 1])
    change(record)
    lines[line - 1] = json.dumps(record) + "\n"
    return _copy(recorded, tmp_path, lines)


def _metric(value: Any) -> Callable[[dict], None]:
    def change(record: dict) -> None:
        record["metrics"]["spearman"] = value

    return change


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("abc", "not a number"),
        (True, "not a number"),
        ([0.5], "not a number"),
        (1e308, r"outside \[-1, 1\]"),
        (1.0000001, r"outside \[-1, 1\]"),
        (-2, r"outside \[-1, 1\]"),
    ],
    ids=["string", "bool", "list", "1e308", "above-1", "below-minus-1"],
)
def test_a_metric_that_is_not_a_bounded_finite_number_is_refused(
    recorded: Path, tmp_path: Path, value: Any, said: str
) -> None:
    folder = _with(recorded, tmp_path, 3, _metric(value))
    with pytest.raises(InputError, match=rf"results\.jsonl:3: .*'spearman'.*{said}") as caught:
        load_results(folder)
    assert caught.value.line == 3
    done = runner.invoke(app, ["results", str(folder)])
    assert done.exit_code == 2 and "results.jsonl:3" in done.output, done.output


@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_a_metric_written_as_nan_or_infinity_is_refused(
    recorded: Path, tmp_path: Path, text: str
) -> None:
    """Python's json reads NaN, Infinity and 1e400 (inf) as floats: none is a finite number."""
    lines = _lines(recorded)
    lines[0] = lines[0].replace('"pearson": null', f'"pearson": {text}', 1)
    assert text in lines[0]
    folder = _copy(recorded, tmp_path, lines)
    with pytest.raises(InputError, match=r"results\.jsonl:1: .*'pearson'.*not finite"):
        load_results(folder)


def test_null_and_bounded_metrics_are_read(recorded: Path, tmp_path: Path) -> None:
    folder = _with(recorded, tmp_path, 3, _metric(-1))
    assert load_results(folder)[2]["metrics"]["spearman"] == -1


@pytest.mark.parametrize("key", ["benchmark", "task", "main_metric", "metrics"])
def test_a_record_without_a_required_field_is_refused(
    recorded: Path, tmp_path: Path, key: str
) -> None:
    folder = _with(recorded, tmp_path, 2, lambda r: r.pop(key))
    with pytest.raises(InputError, match=rf"results\.jsonl:2: the record has no '{key}'"):
        load_results(folder)


@pytest.mark.parametrize(
    ("key", "value", "said"),
    [
        ("benchmark", 3, "'benchmark': expected a string"),
        ("metrics", [1], "'metrics': expected an object"),
        ("main_metric", "ap", "'main_metric' 'ap' is not one of its metrics"),
        ("items_file", "../../outside.tsv.gz", "'items_file': expected a path inside"),
    ],
)
def test_a_field_of_the_wrong_type_is_refused(
    recorded: Path, tmp_path: Path, key: str, value: Any, said: str
) -> None:
    folder = _with(recorded, tmp_path, 2, lambda r: r.update({key: value}))
    with pytest.raises(InputError, match=rf"results\.jsonl:2: .*{said}"):
        load_results(folder)
