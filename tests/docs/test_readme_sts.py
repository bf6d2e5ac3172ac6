"""The README's section on every STS year, STS-B and the English word sets: its commands are
run as shown (results in a temporary folder) and every number of its tables is compared with
what `simeval results` prints."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

import readme_text
from simeval.cli import app

SECTION = "## Every STS year, the STS Benchmark and the English word sets"


def blocks(kind: str) -> list[str]:
    return readme_text.blocks(readme_text.section(SECTION), kind)


def tables() -> list[list[list[str]]]:
    return readme_text.tables(readme_text.section(SECTION))


def printed_table(output: str, columns: int) -> dict[str, list[str]]:
    rows = {}
    for line in output.splitlines():
        cells = [c.strip() for c in re.split(r"[│┃]", line) if c.strip()]
        if len(cells) >= columns and cells[0] != "benchmark":
            rows[cells[0]] = cells
    return rows


def run(args: list[str]) -> str:
    done = CliRunner().invoke(app, args, env={"COLUMNS": "250"})
    assert done.exit_code == 0, (args, done.output)
    return done.stdout


@pytest.mark.slow
def test_the_sts_section_tables_come_from_its_commands(
    encoder_cache: Path, monkeypatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SIMEVAL_CACHE_DIR", str(encoder_cache))
    results = tmp_path / "sts"
    (commands,) = blocks("bash")
    lines = commands.strip().splitlines()
    assert len(lines) == 3
    loop = re.fullmatch(r"for m in (.*); do simeval (.*); done", lines[0])
    assert loop, lines[0]
    specs = loop.group(1).split()
    assert specs == ["random:seed=1", "overlap", "orthographic:kind=prefix", "encoder"]
    for spec in specs:
        args = shlex.split(loop.group(2).replace("$m", spec))
        run([a if a != "results/sts" else str(results) for a in args])
    for line in lines[1:]:
        args = shlex.split(line)[1:]
        run([a if a != "results/sts" else str(results) for a in args])
    printed = printed_table(run(["results", str(results)]), 3)

    per_set, encoder_only, mteb = tables()
    header = per_set[0]
    assert header[2:] == specs
    for row in per_set[2:]:
        assert printed[row[0]][1:] == row[1:], row[0]
    for row in encoder_only[2:]:
        assert printed[row[0]][1] == row[1]
        assert printed[row[0]][-1] == row[2], row[0]
    assert len(per_set) - 2 == 4 + 1 + 6 + 1 + 5 + 1 + 5 + 1
    assert len(encoder_only) - 2 == 10

    # the MTEB comparison: official figures, pooled Spearman, STS-B's Spearman
    pooled = printed_table(run(["results", str(results), "--metric", "pooled_spearman"]), 3)
    spearman = printed_table(run(["results", str(results), "--metric", "spearman"]), 3)
    for year, official, mine, _ in mteb[2:]:
        name = {"STSBenchmark": "stsb"}.get(year, year.lower())
        figure = official.split()[-1]
        assert printed[name][-1] == figure, year
        shown = (spearman if name == "stsb" else pooled)[name][-1]
        assert mine.startswith(shown), (year, mine, shown)
    (toml,) = blocks("toml")
    registry = tmp_path / "mteb.toml"
    registry.write_text(toml, encoding="utf-8")
    run(
        [
            "evaluate",
            "encoder",
            "-s",
            "sts13-mteb",
            "--registry",
            str(registry),
            "--results",
            str(results),
        ]
    )
    again = printed_table(run(["results", str(results), "--metric", "pooled_spearman"]), 3)
    assert "0.8060 (sts13-mteb)" in mteb[3][2] and again["sts13-mteb"][-1] == "0.8060"
    # the MTEB column agrees with simeval's pooled figure where the README says it does
    for year, _, mine, theirs in mteb[2:]:
        if year != "STS14":
            last = re.findall(r"0\.\d{4}", mine)[-1]
            assert f"{float(last) * 100:.2f}" == theirs, year


def test_the_python_snippet_runs_with_an_encoder_object_and_a_function(
    encoder_cache: Path, monkeypatch
) -> None:
    """The README's Python lines, with the model path set to the offline model and "sts"
    narrowed to one 2016 set (the full group is the slow test's work)."""
    from simeval.measures.encoder import default_model_path

    monkeypatch.setenv("SIMEVAL_CACHE_DIR", str(encoder_cache))
    (snippet,) = blocks("python")
    assert 'simeval.evaluate(model, "sts", fingerprint="my-model-v1")' in snippet
    code = snippet.replace("path/to/model", str(default_model_path())).replace(
        '"sts"', '"sts16-question-question"'
    )
    scope: dict = {}
    exec(compile(code, "README.md", "exec"), scope)
    (result,) = scope["results"]
    assert result.benchmark == "sts16-question-question"
    assert result.system["spec"] == "SentenceTransformer"
    assert result.system["params"]["fingerprint"] == "my-model-v1"
    per_set = tables()[0]
    row = next(r for r in per_set if r[0] == "sts16-question-question")
    assert f"{result.score:.4f}" == row[-1]  # the object scores as the `encoder` spec did
