"""The README's "Building datasets" section: its commands run as shown (in a temporary folder,
`../shared/data` pointed at the data) and every number it quotes checked against what they
print and against an independent computation from the raw files."""

from __future__ import annotations

import math
import re
import shlex
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import spearmanr
from typer.testing import CliRunner

import readme_text
from simeval.cli import app

SECTION = "## Building datasets: samples, campaigns, negatives"


def table(text: str) -> list[list[str]]:
    """The rows of the first table in ``text`` (header and separator left out)."""
    return readme_text.tables(text)[0][2:]


def run(args: list[str]) -> str:
    done = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert done.exit_code == 0, (args, done.output)
    return done.stdout


def token_cosine(a: str, b: str) -> float:
    x, y = set(a.split()), set(b.split())
    return len(x & y) / math.sqrt(len(x) * len(y)) if x and y else 0.0


@pytest.mark.slow
def test_the_building_section_runs_and_its_numbers_hold(
    data_dir: Path, encoder_cache: Path, monkeypatch, tmp_path: Path
) -> None:
    import krippendorff

    monkeypatch.setenv("SIMEVAL_CACHE_DIR", str(encoder_cache))
    monkeypatch.chdir(tmp_path)
    text = readme_text.section(SECTION)
    (block,) = readme_text.blocks(text, "bash")
    commands = [shlex.split(line) for line in block.strip().splitlines()]
    assert [c[:3] for c in commands] == [
        ["simeval", "build", "sts-sample"],
        ["simeval", "build", "campaign"],
        ["simeval", "build", "campaign"],
        ["simeval", "evaluate", "encoder"],
    ]
    printed = []
    for words in commands:
        args = [w.replace("../shared/data", str(data_dir)) for w in words[1:]]
        printed.append(run(args))

    # sts-sample: the band counts, available ones recomputed from the pool files here
    sims = []
    for name in ("MSRpar", "MSRvid"):
        for line in (data_dir / f"sts2012/train/STS.input.{name}.txt").read_text().splitlines():
            a, b = line.split("\t")[:2]
            sims.append((a, b))
    unique = list(dict.fromkeys(sims))
    bands = np.bincount(
        [min(int(token_cosine(a, b) * 5), 4) for a, b in unique], minlength=5
    ).tolist()
    quoted = re.search(r"per band ([\d/]+) of ([\d/]+)", text)
    assert quoted.group(2) == "/".join(map(str, bands))
    assert f"per band {quoted.group(1)} of {quoted.group(2)}" in printed[0]
    assert sum(map(int, quoted.group(1).split("/"))) == 500

    # simulate: the table as printed; the pool's size, alpha and mean SD from the files
    readme_rows = table(text[text.index("| target | mode |") :].split("\n\n")[0])
    for target, mode, done, ninety, capped in readme_rows:
        assert re.search(
            rf"│\s+{target} │\s+{mode} │\s+{re.escape(done)} │\s+{ninety} │\s+{capped} │",
            printed[1],
        ), (target, mode)
    pool, words, raters = [], [], []
    for k, name in enumerate(("set1", "set2"), 1):
        lines = (data_dir / f"wordsim353/{name}.tab").read_text().splitlines()[1:]
        cells = [line.split("\t") for line in lines if line.strip()]
        width = max(len([c for c in row[3:] if c.strip()]) for row in cells)
        raters += [f"set{k}-{j + 1}" for j in range(width)]
        for row in cells:
            words.append((row[0], row[1]))
            pool.append({f"set{k}-{j + 1}": float(c) for j, c in enumerate(row[3:]) if c.strip()})
    assert sum(len(p) for p in pool) == 5189 and len(raters) == 29
    assert "5,189 ratings" in text
    matrix = np.array([[p.get(r, np.nan) for r in raters] for p in pool])
    alpha = krippendorff.alpha(reliability_data=matrix.T, level_of_measurement="ordinal")
    mean_sd = np.mean([np.std(list(p.values()), ddof=1) for p in pool])
    assert f"α is {alpha:.2f} ordinal" in text.replace("\n  ", " ")
    assert f"mean SD per pair {mean_sd:.2f}" in text.replace("\n  ", " ")

    # the replay's answers are real ratings of the pool, one per rater and pair
    answers = [
        line.split(",") for line in Path("built/ws-sim/answers.csv").read_text().splitlines()[1:]
    ]
    rating_of = {}
    for (w1, w2), p in zip(words, pool, strict=True):
        for r, v in p.items():
            rating_of.setdefault((r, w1, w2), v)
    assert all(rating_of[(r, a, b)] == float(v) for r, a, b, v, _ in answers)
    assert len({(r, a, b) for r, a, b, _, _ in answers}) == len(answers)
    flat = text.replace("\n  ", " ")
    assert f"{len(answers):,} once a rater's second answer" in flat

    # aggregate: means and agreement of the kept raters, recomputed from the answers
    kept = [
        row.split("\t")[0]
        for row in Path("built/ws-campaign/raters.tsv").read_text().splitlines()[1:]
        if row.split("\t")[2] != "excluded"
    ]
    assert f"keep {len(kept)} of 29 raters" in flat
    by_pair: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    for r, a, b, v, _ in answers:
        if r in kept:
            by_pair[(a, b)][r] = float(v)
    bench = [
        line.split(",")
        for line in Path("built/ws-campaign/benchmark.csv").read_text().splitlines()[1:]
    ]
    assert len(bench) == len(by_pair) == int(re.search(r"give (\d+) pairs", flat).group(1))
    for w1, w2, sim, _, n in bench:
        values = list(by_pair[(w1, w2)].values())
        assert float(sim) == pytest.approx(np.mean(values)) and int(n) == len(values)
    m = np.array([[by_pair[p].get(r, np.nan) for r in kept] for p in by_pair])
    rhos = []
    for i in range(len(kept)):
        for j in range(i + 1, len(kept)):
            both = ~np.isnan(m[:, i]) & ~np.isnan(m[:, j])
            if both.sum() >= 3:
                rhos.append(spearmanr(m[both, i], m[both, j])[0])
    quoted = re.search(r"average\s+pairwise Spearman (0\.\d{4})", flat).group(1)
    assert f"{np.mean(rhos):.4f}" == quoted
    assert quoted in printed[2]
    alpha = krippendorff.alpha(reliability_data=m.T, level_of_measurement="interval")
    assert f"interval {alpha:.4f}" in flat

    # evaluate: Spearman of the encoder's item scores against the built gold, by scipy
    from simeval.results.store import load_items, load_results

    records = {r["benchmark"]: r for r in load_results("results/built")}
    items = load_items("results/built", records["built/ws-campaign"])
    assert f"{spearmanr(items['score'], items['gold'])[0]:.4f}" in flat
    for name in ("built/ws-campaign", "wordsim353"):
        value = records[name]["metrics"]["spearman"]
        assert f"{value:.4f}" in printed[3] and f"{value:.4f}" in flat
