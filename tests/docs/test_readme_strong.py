"""The docs' "Strong baselines": its commands are run as shown (models and results in a
temporary folder) and what `simeval results` prints is compared with the page's tables.

The figures that are cheap at full size are checked at full size: the graph rows (trained in
seconds) and the dictionary rows (no training). The three trained encoders' figures need the
full runs (about ten minutes on 2 cores; the page's figures come from them), so here those
commands run end to end on reduced settings: each model is fine-tuned for one epoch on
:data:`KEEP` of its training pairs (evenly spaced; :func:`_thinned`) and the STS models are
evaluated on :data:`STS_SET` only. What stays checked of them: every command runs, the
printed table holds their rows, the training data's counts the page quotes (2,234 STS pairs;
5,363 word pairs, less 170 SimVerb and 1 RW pair) are those of the full training sets, and
the tuned encoder's Pearson is recomputed here with sentence-transformers and scipy from the
model folder the command wrote. The rows that need the fastText model of "Models trained
from the corpora" are not re-run here (that model takes several minutes to train)."""

from __future__ import annotations

import json
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
KEEP = 32  # training pairs each encoder and combination is fitted on here
STS_SET = ("sts12-msrvid", "MSRvid")  # the STS models' reduced evaluation: one set, its file
TRAINED = (  # the measures of models whose figures need the full training
    "encoder:model=models/sts12-minilm",
    "learned:model=models/sts12-combined",
    "encoder:model=models/words-minilm",
)


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


def _reduced(args: list[str]) -> list[str]:
    """A command on the reduced settings: an encoder trained for one epoch (on :data:`KEEP`
    pairs: :func:`_thinned`), an STS model evaluated on :data:`STS_SET` alone; the rest as
    shown."""
    if args[:2] == ["train", "encoder"]:
        if "--epochs" in args:
            at = args.index("--epochs")
            args = args[:at] + args[at + 2 :]
        return [*args, "--epochs", "1"]
    if args[0] == "evaluate" and args[1] in TRAINED and "-s" in args and "sts12" in args:
        targets = {"-s", "-b"}
        kept = [a for i, a in enumerate(args) if a not in targets and args[i - 1] not in targets]
        return [*kept, "-b", STS_SET[0]]
    return args


def _thinned(monkeypatch: pytest.MonkeyPatch, keep_pairs: int = KEEP) -> list:
    """Make `simeval train encoder|combine` fit ``keep_pairs`` evenly spaced pairs of their
    training data; returns the list the full training sets are appended to (their counts,
    exclusions and sources are the full run's)."""
    from simeval.train import examples

    full_sets: list = []
    real = examples.training_pairs

    def thinned(*args, **kwargs):
        full = real(*args, **kwargs)
        full_sets.append(full)
        keep = np.linspace(0, len(full.a) - 1, keep_pairs).round().astype(int)
        return examples.TrainingPairs(
            [full.a[i] for i in keep], [full.b[i] for i in keep], full.gold[keep], full.sources
        )

    monkeypatch.setattr(examples, "training_pairs", thinned)
    return full_sets


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


def _quoted(text: str, pattern: str) -> list[int]:
    """The numbers (thousands commas read) of ``pattern``'s groups in ``text``."""
    found = re.search(pattern, " ".join(text.split()))
    assert found, pattern
    return [int(g.replace(",", "")) for g in found.groups()]


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
    full_sets = _thinned(monkeypatch)
    printed: dict[tuple[str, str], dict[str, str]] = {}
    for args in commands:
        if args[0] == "results":
            _printed(_run(_reduced(args)), printed)
        else:
            _run(_reduced(args))

    # the figures of the untrained and the quickly trained: as the page shows them
    checked = 0
    shown: set[tuple[str, str]] = set()  # a figure two tables quote is one figure
    for table in readme_text.tables(text):
        header = table[0]
        if header[:2] != ["benchmark", "metric"]:
            continue
        for row in table[2:]:
            found = printed.get((row[0], row[1]), {})
            for column, cell in zip(header[2:], row[2:], strict=True):
                column = column.strip("`")
                if column not in found or not re.fullmatch(r"-?\d\.\d{4}", cell):
                    continue
                if column in TRAINED:  # reduced: the row is printed, a figure of its own
                    if column.startswith("encoder:model=models/words") or row[0] == STS_SET[0]:
                        assert re.fullmatch(r"-?\d\.\d{4}", found[column]), (row, column)
                        shown.add((row[0], column))
                    continue
                assert float(cell) == pytest.approx(float(found[column]), abs=1e-4), (row, column)
                checked += 1
    assert checked == 17  # 4 graph rows, 13 dictionary rows
    assert len(shown) == 2 + 3  # the STS models on STS_SET, the words model on its three sets

    # the training sets the page describes are the full ones (the models saw KEEP of them)
    sts_encoder, sts_combine, words = full_sets
    (sts_pairs,) = _quoted(text, r"fine-tuned on the ([\d,]+) pairs of STS-2012 train")
    assert len(sts_encoder.a) == len(sts_combine.a) == sts_pairs
    simverb_out, rw_out = _quoted(text, r"less the (\d+) SimVerb pairs and (\d+) RW pair")
    (word_pairs,) = _quoted(text, r"`--exclude simlex999`.*?: ([\d,]+) pairs")
    assert len(words.a) == word_pairs
    record = json.loads((tmp_path / "models/words-minilm/simeval-train.json").read_text())
    assert record["pairs"] == KEEP and record["config"]["on"] == ["simverb3500", "rw"]
    assert record["data"]["simverb3500"]["excluded"] == simverb_out
    assert record["data"]["rw"]["excluded"] == rw_out
    assert sum(d["pairs"] for d in record["data"].values()) == word_pairs

    # simeval's Pearson of the model folder the command wrote, recomputed independently
    model = tmp_path / "models" / "sts12-minilm"
    assert float(
        printed[(STS_SET[0], "pearson")]["encoder:model=models/sts12-minilm"]
    ) == pytest.approx(_pearson_here(model, data_dir, STS_SET[1]), abs=1e-4)
