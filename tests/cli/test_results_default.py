"""Where `evaluate` appends when no --results is given: a folder of one's own runs
(results/mine, or SIMEVAL_RESULTS), never the README's main job's results/main, whose
leaderboard one's experiments used to join; the folder is named after every write, with how
to change it (issue 33, stumble 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simeval.api.training import TrainSettings
from simeval.cli import app

EVALUATE = ["evaluate", "orthographic:kind=prefix", "-b", "mc30"]


def _records(folder: Path) -> list[dict]:
    return [json.loads(x) for x in (folder / "results.jsonl").read_text().splitlines()]


def test_evaluate_without_results_keeps_out_of_the_main_jobs_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SIMEVAL_RESULTS", raising=False)
    done = CliRunner().invoke(app, EVALUATE)
    assert done.exit_code == 0, done.output
    assert not (tmp_path / "results" / "main").exists()
    (record,) = _records(tmp_path / "results" / "mine")
    assert record["benchmark"] == "mc30"
    said = "appended 1 record(s) to results/mine (--results or SIMEVAL_RESULTS to change)"
    assert said in done.stderr


def test_simeval_results_names_the_folder_for_writing_and_reading(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SIMEVAL_RESULTS", str(tmp_path / "lab"))
    done = CliRunner().invoke(app, EVALUATE)
    assert done.exit_code == 0, done.output
    said = " ".join(done.stderr.split())
    assert f"appended 1 record(s) to {tmp_path / 'lab'}" in said
    assert "(--results or" not in said  # the user chose the folder: no hint
    assert len(_records(tmp_path / "lab")) == 1 and not (tmp_path / "results").exists()
    shown = CliRunner().invoke(app, ["results"], env={"COLUMNS": "200"})  # reads it back
    assert shown.exit_code == 0, shown.output
    assert "orthographic:kind=prefix" in shown.stdout and "mc30" in shown.stdout
    assert TrainSettings().results == tmp_path / "lab"  # train --evaluate's folder too


def test_the_main_job_names_its_folder_and_gets_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SIMEVAL_RESULTS", str(tmp_path / "lab"))
    done = CliRunner().invoke(app, [*EVALUATE, "--results", "results/main"])
    assert done.exit_code == 0, done.output
    assert len(_records(tmp_path / "results" / "main")) == 1
    assert not (tmp_path / "lab").exists()
    assert "appended 1 record(s) to results/main" in done.stderr
    assert "--results or SIMEVAL_RESULTS" not in done.stderr  # named: no hint (a new user's trial)


@pytest.mark.parametrize("command", ["evaluate", "train", "results", "compare"])
def test_help_shows_the_default_folder_and_its_variable(command: str) -> None:
    shown = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "200"})
    text = " ".join(shown.stdout.split())
    assert "env var: SIMEVAL_RESULTS; default: results/mine" in text, text


def test_naming_the_default_folder_gets_no_hint(tmp_path, monkeypatch):
    """--results given, even naming the default folder itself: the user chose it, so no
    "to change" hint (issue 47, stumble 4)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SIMEVAL_RESULTS", raising=False)
    done = CliRunner().invoke(app, [*EVALUATE, "--results", "results/mine"])
    assert done.exit_code == 0, done.output
    assert len(_records(tmp_path / "results" / "mine")) == 1
    assert "appended 1 record(s) to results/mine" in done.stderr
    assert "to change" not in done.stderr
