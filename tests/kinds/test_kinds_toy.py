"""A new task kind is one module: a toy kind, defined here and nowhere else, goes through
``evaluate`` (a Python measure), ``score`` (a submission file), ``simeval report`` (its row with
an interval) and a server upload, with no other file changed (issue 29, item 1).

The toy: pairs labelled 1 (same) or 0 (different); a system's score of 0.5 or more says 1;
the main metric is accuracy. Expected values are counted here by hand from the labels.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from simeval.api import evaluate, score
from simeval.cli import app
from simeval.errors import InputError
from simeval.kinds import KINDS, kind
from simeval.kinds.base import Aligned, Benchmark, KindEntry, TaskKind
from simeval.measures.base import WordPairs
from simeval.results.store import load_results

N = 40
PAIRS = [(f"w{i}", f"v{i}") for i in range(N)]
LABELS = [int(i % 3 != 0) for i in range(N)]  # 27 ones, 13 zeros


@dataclass
class Labelled:
    """A toy submission: a label per pair (None: not answered), and where it was read."""

    labels: dict[tuple[str, str], int]
    path: Path | None = None


def read_labelled(path: Path) -> list[tuple[str, str, int]]:
    """``word1 TAB word2 TAB label`` lines, label 0 or 1 (the gold and submissions alike)."""
    rows = []
    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        parts = line.split("\t")
        if len(parts) != 3 or parts[2] not in ("0", "1"):
            raise InputError(path, line_no, "expected word1<TAB>word2<TAB>label (0 or 1)")
        rows.append((parts[0], parts[1], int(parts[2])))
    return rows


@dataclass
class ToyBenchmark(Benchmark):
    name: str
    pairs: list[tuple[str, str]]
    gold: np.ndarray
    description: str = ""
    data: dict[str, str] = field(default_factory=dict)
    kind = "toy-binary"
    submission_name = "{name}.tsv"

    def request(self) -> WordPairs:
        return WordPairs(list(self.pairs))

    def from_answers(self, request: WordPairs, answers: Any, measure: Any = None) -> Labelled:
        scores = np.asarray(answers, dtype=float)
        return Labelled({p: int(s >= 0.5) for p, s in zip(request.pairs, scores, strict=True)})

    def read_submission(self, path: Path, **_: Any) -> Labelled:
        return Labelled({(a, b): y for a, b, y in read_labelled(path)}, path)

    def align(self, submission: Labelled, **_: Any) -> Aligned:
        got = [submission.labels.get(p) for p in self.pairs]
        covered = np.array([g is not None for g in got])
        return Aligned(
            {
                "word1": np.array([a for a, _ in self.pairs]),
                "word2": np.array([b for _, b in self.pairs]),
                "gold": self.gold.astype(float),
                "score": np.array([np.nan if g is None else g for g in got], dtype=float),
                "covered": covered.astype(np.int64),
                "counted": covered.astype(np.int64),
            },
            {
                "gold": len(self.pairs),
                "scored": int(covered.sum()),
                "missing": int((~covered).sum()),
                "extra": len(set(submission.labels) - set(self.pairs)),
            },
        )

    def write_submission(self, submission: Labelled, out: Path) -> list[Path]:
        lines = [f"{a}\t{b}\t{y}\n" for (a, b), y in submission.labels.items()]
        out.write_text("".join(lines), encoding="utf-8")
        return [out]


class ToyBinary(TaskKind):
    name = "toy-binary"
    toml = ("toy-binary",)
    main = "accuracy"
    columns = ("word1", "word2", "gold", "score", "covered", "counted")

    def metrics(self, c: Any, main_only: bool) -> dict[str, float]:
        right = (c["score"] >= 0.5) == (c["gold"] == 1)
        accuracy = float(right.mean()) if len(right) else float("nan")
        if main_only:
            return {"accuracy": accuracy}
        said = c["score"] >= 0.5
        caught = float(said[c["gold"] == 1].mean()) if (c["gold"] == 1).any() else float("nan")
        return {"accuracy": accuracy, "recall": caught}

    def entry(self, source: Path, name: str, spec: dict[str, Any], rel: Any) -> KindEntry:
        description = str(spec.pop("description", ""))
        return KindEntry(name, self.name, description, (("gold", rel("gold")),))

    def load(self, entry: KindEntry, files: Any, build: Any = None) -> ToyBenchmark:
        path, digest = files(dict(entry.files)["gold"])
        rows = read_labelled(path)
        gold = np.array([y for _, _, y in rows])
        pairs = [(a, b) for a, b, _ in rows]
        return ToyBenchmark(entry.name, pairs, gold, entry.description, {str(path): digest})

    def as_submission(self, target: Any, predictions: Any) -> Labelled:
        return Labelled({(a, b): int(y) for (a, b), y in predictions.items()})


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The toy kind in KINDS, and a registry file naming a benchmark of it."""
    monkeypatch.setitem(KINDS, ToyBinary.name, ToyBinary())
    lines = [f"{a}\t{b}\t{y}\n" for (a, b), y in zip(PAIRS, LABELS, strict=True)]
    (tmp_path / "gold.tsv").write_text("".join(lines), encoding="utf-8")
    registry = tmp_path / "toy.toml"
    registry.write_text(
        '[benchmark.toy-bench]\nkind = "toy-binary"\ngold = "gold.tsv"\n', encoding="utf-8"
    )
    return registry


def even_index(pairs: list[tuple[str, str]]) -> list[float]:
    """A toy measure (a Python function): 1 for the pairs of even index, else 0."""
    return [float(int(a[1:]) % 2 == 0) for a, _ in pairs]


def expected_accuracy(says: list[int]) -> float:
    return sum(s == y for s, y in zip(says, LABELS, strict=True)) / N


def test_the_toy_is_a_kind(toy: Path) -> None:
    assert kind("toy-binary").main_metric() == "accuracy"


def test_evaluate_a_python_measure(toy: Path, tmp_path: Path) -> None:
    (r,) = evaluate(even_index, "toy-bench", registry=toy, results_dir=tmp_path / "res")
    says = [int(i % 2 == 0) for i in range(N)]
    assert r.task == "toy-binary" and r.main_metric == "accuracy"
    assert r.metrics["accuracy"] == pytest.approx(expected_accuracy(says), abs=1e-12)
    (record,) = load_results(tmp_path / "res")
    assert record["task"] == "toy-binary"


def test_score_a_submission_file_and_refuse_a_bad_one(toy: Path, tmp_path: Path) -> None:
    says = [1] * N
    path = tmp_path / "run.tsv"
    path.write_text(
        "".join(f"{a}\t{b}\t{s}\n" for (a, b), s in zip(PAIRS, says, strict=True)), "utf-8"
    )
    (r,) = score("toy-bench", path, registry=toy)
    assert r.metrics["accuracy"] == pytest.approx(expected_accuracy(says), abs=1e-12)
    assert r.coverage == {"gold": N, "scored": N, "missing": 0, "extra": 0}
    bad = tmp_path / "bad.tsv"
    bad.write_text("w0\tv0\t1\nw1\tv1\tmaybe\n", encoding="utf-8")
    with pytest.raises(InputError, match="label") as err:
        score("toy-bench", bad, registry=toy)
    assert err.value.line == 2


def test_predictions_in_memory_are_read_by_the_kind(toy: Path) -> None:
    """``score(target, predictions)`` asks the kind to read them (issue 45): the api names no
    kind, so a kind defined outside simeval reads its own."""
    says = [int(i % 2 == 0) for i in range(N)]
    (r,) = score("toy-bench", dict(zip(PAIRS, says, strict=True)), registry=toy)
    assert r.metrics["accuracy"] == pytest.approx(expected_accuracy(says), abs=1e-12)


def test_report_has_its_row_and_an_interval(toy: Path, tmp_path: Path) -> None:
    folder = tmp_path / "res"
    evaluate(even_index, "toy-bench", registry=toy, results_dir=folder)
    evaluate(lambda pairs: [1.0] * len(pairs), "toy-bench", registry=toy, results_dir=folder)
    out = tmp_path / "report.html"
    got = CliRunner().invoke(app, ["report", str(folder), "--html", str(out), "-B", "50"])
    assert got.exit_code == 0, got.output
    page = out.read_text(encoding="utf-8")
    assert "toy-bench" in page
    row = re.search(r'<tr><td data-sort="even_index">even_index</td>(.*?)</tr>', page)
    assert row is not None
    interval = re.search(r"\[(\d\.\d{4}), (\d\.\d{4})\]", row.group(1))
    assert interval is not None
    low, high = map(float, interval.groups())
    says = [int(i % 2 == 0) for i in range(N)]
    assert low <= expected_accuracy(says) <= high and low < high


def test_a_server_upload_is_scored(toy: Path, tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    from serve_kit import CAMPAIGN, OPENS, Clock, make_server, register, upload

    folder = tmp_path / "server"
    folder.mkdir()
    (folder / "toy.toml").write_text(toy.read_text(), encoding="utf-8")
    (folder / "gold.tsv").write_text((tmp_path / "gold.tsv").read_text(), encoding="utf-8")
    campaign = CAMPAIGN.replace('title = "', 'registry = ["toy.toml"]\ntitle = "', 1)
    campaign = campaign.replace(
        'targets = ["mc30", "rg65", "sts12-msrvid"]', 'targets = ["toy-bench"]'
    )
    clock = Clock(OPENS + timedelta(days=1))
    s = make_server(f"sqlite:///{tmp_path / 'serve.db'}", folder, clock, campaign=campaign)
    token = register(s.client, "alpha")
    says = [int(i < 30) for i in range(N)]
    data = "".join(f"{a}\t{b}\t{y}\n" for (a, b), y in zip(PAIRS, says, strict=True)).encode()
    r = upload(s.client, token, data, target="toy-bench", filename="run.tsv")
    assert r.status_code == 201, r.text
    (result,) = r.json()["results"]
    assert result["main_metric"] == "accuracy"
    assert result["score"] == pytest.approx(expected_accuracy(says), abs=1e-12)
