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
    block = readme_text.blocks(text, "bash")[0]
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


@pytest.mark.slow
def test_the_negatives_example_runs_and_its_numbers_hold(
    data_dir: Path, monkeypatch, tmp_path: Path
) -> None:
    """The README's negatives build and its measures without a model (the SVD line needs the
    model of "Models trained from the corpora", minutes to train: its options are checked in
    test_readme.py). The balance is recounted from pairs.csv; every negative is a pair of the
    positives' source words with a target that is not one of its positives."""
    monkeypatch.chdir(tmp_path)
    text = readme_text.section(SECTION)
    flat = " ".join(text.split())
    block = readme_text.blocks(text, "bash")[1]
    lines = [line.strip() for line in block.strip().splitlines()]
    assert len(lines) == 3
    build = [w.replace("../shared/data", str(data_dir)) for w in shlex.split(lines[0])[1:]]
    printed = " ".join(run(build).split())
    summary = re.search(r"prints `(.*?)`", flat).group(1)
    assert summary in printed
    loop = re.fullmatch(r"for m in (.*); do simeval (.*); done", lines[1])
    found = {}
    for spec in loop.group(1).split():
        args = shlex.split(loop.group(2).replace("$m", spec))
        run(args)
    from simeval.results.store import load_results

    for r in load_results("results/built"):
        found[(r["system"]["spec"], r["benchmark"])] = r["metrics"]["ap_trapezoid"]
    for spec in ("orthographic", "random"):
        built, official = found[(spec, "built/ae2-neg")], found[(spec, "russe-ae2")]
        assert f"{spec} {built:.4f} and {official:.4f}" in flat, spec
    rows = [x.split(",") for x in Path("built/ae2-neg/pairs.csv").read_text().splitlines()[1:]]
    pos = defaultdict(set)
    neg = defaultdict(set)
    for w1, w2, sim in rows:
        (pos if sim == "1" else neg)[w1].add(w2)
    assert pos.keys() == neg.keys()
    assert all(len(pos[w]) == len(neg[w]) for w in pos)
    kept = re.search(r"kept (\d+) positives and (\d+) negatives of (\d+) sources", summary)
    assert (sum(map(len, pos.values())), sum(map(len, neg.values())), len(pos)) == tuple(
        int(x) for x in kept.groups()
    )
    positives = defaultdict(set)
    for line in (data_dir / "russe/ae2-train.csv").read_text(encoding="utf-8").splitlines()[1:]:
        w1, w2, _, sim = line.split(",")
        if sim.strip() == "1":  # assoc rows; the random (0) rows are not positives
            positives[w1].add(w2)
    assert all(not (neg[w] & positives[w]) for w in neg)  # no negative is a known positive
    targets = [t for w in neg for t in neg[w]]
    assert len(targets) == len(set(targets))  # a target taken once is never offered again
