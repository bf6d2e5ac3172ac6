"""The README's "Strong baselines": its commands are run as shown (models and results in a
temporary folder), every number of its tables is compared with what `simeval results` prints,
and the fine-tuned encoder's STS-2012 Pearson is recomputed here with sentence-transformers and
scipy from the model folder the command wrote. The graph rows are run and compared the same
way; the rows that need the fastText model of "Models trained from the corpora" are not re-run
here (that model takes several minutes to train)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import pearsonr
from typer.testing import CliRunner

import readme_text
from simeval.cli import app

SECTION = "## Strong baselines"
STS12 = {
    "sts12-msrpar": "MSRpar",
    "sts12-msrvid": "MSRvid",
    "sts12-smteuroparl": "SMTeuroparl",
    "sts12-onwn": "surprise.OnWN",
    "sts12-smtnews": "surprise.SMTnews",
}


def _run(args: list[str]) -> str:
    done = CliRunner().invoke(app, args, env={"COLUMNS": "250"})
    assert done.exit_code == 0, (args, done.output)
    return done.stdout


def _commands(block: str, data_dir: Path) -> list[list[str]]:
    """The block's `simeval` lines, with its `NAME="..."` variables expanded and
    ``../shared/data`` read as ``data_dir``."""
    values: dict[str, str] = {}
    out = []
    for line in block.strip().splitlines():
        line = line.split("  #")[0].strip()
        assigned = re.fullmatch(r'([A-Z0-9_]+)="(.*)"', line)
        if assigned:
            values[assigned.group(1)] = assigned.group(2)
        elif line.startswith("simeval "):
            for name, value in values.items():
                line = line.replace(f"${name}", value)
            line = line.replace("../shared/data", str(data_dir))
            out.append(shlex.split(line)[1:])
        else:
            assert line.startswith("export "), line
    return out


def _printed(output: str, into: dict[tuple[str, str], dict[str, str]]) -> None:
    """Add `simeval results`' tables to ``into``: (benchmark, metric) -> system spec -> cell
    (the `[n]` columns named by the legend under the table)."""
    header: list[str] = []
    legend = dict(re.findall(r"^(\[\d+\]) (\S+)$", output, flags=re.M))
    for line in output.splitlines():
        parts = re.split(r"[│┃]", line)
        cells = [c.strip() for c in parts[1:-1]]  # a system without this benchmark: ""
        if cells[:2] == ["benchmark", "metric"]:
            header = [legend.get(c, c) for c in cells]
        elif header and len(cells) == len(header):
            row = into.setdefault((cells[0], cells[1]), {})
            row.update(zip(header[2:], cells[2:], strict=True))


def _pearson_here(model: Path, data_dir: Path, name: str) -> float:
    from sentence_transformers import SentenceTransformer

    folder = data_dir / "sts2012" / "test"
    lines = (folder / f"STS.input.{name}.txt").read_text(encoding="utf-8").splitlines()
    gold = np.array((folder / f"STS.gs.{name}.txt").read_text(encoding="utf-8").split(), float)
    encoder = SentenceTransformer(str(model), device="cpu")
    a = encoder.encode([line.split("\t")[0] for line in lines], normalize_embeddings=True)
    b = encoder.encode([line.split("\t")[1] for line in lines], normalize_embeddings=True)
    return float(pearsonr(gold, np.sum(a * b, axis=1))[0])


@pytest.mark.slow
def test_strong_baselines_come_from_their_commands(
    data_dir: Path, monkeypatch, tmp_path: Path
) -> None:
    pytest.importorskip("sentence_transformers")
    monkeypatch.chdir(tmp_path)
    text = readme_text.section(SECTION)
    first = readme_text.blocks(text, "bash")[0]
    commands = _commands(first, data_dir)
    assert [c[:2] for c in commands if c[0] == "train"] == [
        ["train", "encoder"],
        ["train", "combine"],
        ["train", "encoder"],
        ["train", "graph"],
    ]
    printed: dict[tuple[str, str], dict[str, str]] = {}
    for args in commands:
        if args[0] == "results":
            _printed(_run(args), printed)
        else:
            _run(args)
    checked = 0
    for table in readme_text.tables(text):
        header = table[0]
        if header[:2] != ["benchmark", "metric"]:
            continue
        for row in table[2:]:
            found = printed[(row[0], row[1])]
            for column, cell in zip(header[2:], row[2:], strict=True):
                column = column.strip("`")
                if column not in found or not re.fullmatch(r"-?\d\.\d{4}", cell):
                    continue
                # a trained model's last digit may differ with the CPU's vector unit
                assert float(cell) == pytest.approx(float(found[column]), abs=2e-3), (row, column)
                checked += 1
    assert checked >= 30
    model = tmp_path / "models" / "sts12-minilm"
    for bench, name in STS12.items():
        assert float(
            printed[(bench, "pearson")]["encoder:model=models/sts12-minilm"]
        ) == pytest.approx(_pearson_here(model, data_dir, name), abs=1e-4)
