"""`simeval train …` as the README's "Models trained from the corpora" shows it, then
`simeval evaluate vectors:path=DIR,…`: on a hand-made corpus against PPMI, SVD and cosines
computed here with numpy and scipy; on the real Gutenberg corpus (slow) against the README's
PPMI row, which it states to be exact."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from scipy import sparse
from scipy.stats import spearmanr
from typer.testing import CliRunner

from simeval.cli import app

WORDS = ["apple", "pear", "plum", "fig", "car", "bus", "train", "tram", "red", "fast", "old"]


def _corpus(path: Path) -> list[list[str]]:
    """200 seeded sentences of 3-9 words, fruit with colours and vehicles with speed mostly."""
    rng = np.random.default_rng(7)
    sentences = []
    for _ in range(200):
        group = [*WORDS[:4], "red"] if rng.random() < 0.5 else [*WORDS[4:8], "fast"]
        pool = [*group, "old"]
        sentences.append([str(w) for w in rng.choice(pool, rng.integers(3, 10))])
    path.write_text("\n\n".join(" ".join(s) + "." for s in sentences) + "\n")
    return sentences


def _ppmi_by_hand(sentences: list[list[str]], vocab: list[str], window: int, alpha: float):
    """Counts of c within ``window`` of w in the same sentence, then
    max(0, log(#(w,c) · Σ_c' #c'^α / (#w · #c^α))) with #w, #c the row and column sums."""
    index = {w: i for i, w in enumerate(vocab)}
    counts = np.zeros((len(vocab), len(vocab)))
    for s in sentences:
        for i, w in enumerate(s):
            for j in range(max(0, i - window), min(len(s), i + window + 1)):
                if j != i:
                    counts[index[w], index[s[j]]] += 1
    row, col = counts.sum(1), counts.sum(0) ** alpha
    with np.errstate(divide="ignore"):
        pmi = np.log(counts) + np.log(col.sum()) - np.log(row)[:, None] - np.log(col)[None, :]
    return np.where(counts > 0, np.maximum(pmi, 0), 0.0)


def _cos(m: np.ndarray, a: int, b: int) -> float:
    return float(m[a] @ m[b] / np.linalg.norm(m[a]) / np.linalg.norm(m[b]))


def test_train_ppmi_svd_and_evaluate_on_a_hand_made_corpus(tmp_path: Path, monkeypatch) -> None:
    """`simeval train ppmi|svd --corpus F --lang en --min-count N --out DIR` (defaults: window
    5, α 0.75, no shift, SVD p 0.5), then `simeval evaluate vectors:path=DIR,oov=backoff,
    fallback=zero -b PAIRS`: the PPMI matrix, the SVD vectors (up to each column's sign) and
    the Spearman of the pair scores equal a numpy/scipy computation from the sentences."""
    monkeypatch.setenv("SIMEVAL_CACHE_DIR", str(tmp_path / "cache"))
    corpus = tmp_path / "toy.txt"
    sentences = _corpus(corpus)
    runner = CliRunner()
    base = ["--corpus", str(corpus), "--lang", "en", "--min-count", "1"]
    for kind, extra in (("ppmi", []), ("svd", ["--dim", "4"])):
        done = runner.invoke(app, ["train", kind, *base, *extra, "--out", str(tmp_path / kind)])
        assert done.exit_code == 0, done.output
        tokens = sum(map(len, sentences))
        assert f"200 sentences, {tokens:,} tokens" in done.output
    vocab = (tmp_path / "ppmi" / "vocab.txt").read_text().split()
    assert sorted(vocab) == sorted(WORDS)
    expected = _ppmi_by_hand(sentences, vocab, window=5, alpha=0.75)
    got = sparse.load_npz(tmp_path / "ppmi" / "vectors.npz").toarray()
    assert got == pytest.approx(expected, rel=1e-6, abs=1e-6)

    u, s, _ = np.linalg.svd(expected)
    assert np.all(np.diff(s[:5]) < -1e-3)  # distinct singular values: columns defined up to sign
    want = u[:, :4] * s[:4] ** 0.5
    svd = np.load(tmp_path / "svd" / "vectors.npy")
    signs = np.sign((svd * want).sum(axis=0))
    assert svd * signs == pytest.approx(want, abs=1e-4)

    pairs = [("apple", "pear"), ("apple", "car"), ("bus", "tram"), ("fig", "old"),
             ("red", "fast"), ("plum", "train"), ("car", "fast"), ("pear", "red"),
             ("apple", "unknownword")]  # fmt: skip
    gold = [9.0, 1.0, 8.5, 3.0, 2.0, 0.5, 6.0, 7.0, 4.0]
    gold_file = tmp_path / "pairs.tsv"
    gold_file.write_text(
        "word1\tword2\tsim\n"
        + "".join(f"{a}\t{b}\t{g}\n" for (a, b), g in zip(pairs, gold, strict=True))
    )
    for kind, matrix in (("ppmi", expected), ("svd", want)):
        spec = f"vectors:path={tmp_path / kind},oov=backoff,fallback=zero"
        shown = runner.invoke(app, ["evaluate", spec, "-b", str(gold_file), "--json"])
        assert shown.exit_code == 0, shown.output
        (record,) = [json.loads(x) for x in shown.stdout.splitlines() if x.startswith("{")]
        at = {w: i for i, w in enumerate(vocab)}
        cosines = [_cos(matrix, at[a], at[b]) for a, b in pairs[:-1]] + [0.0]  # unknown: 0
        assert record["metrics"]["spearman"] == pytest.approx(spearmanr(cosines, gold)[0])
        assert (record["coverage"]["scored"], record["coverage"]["gold"]) == (
            8,
            9,
        )  # the unknown pair counts 0, unscored


def _readme_row(table_start: str, model: str) -> list[str]:
    import readme_text

    readme = readme_text.shown_text()
    lines = readme[readme.index(table_start) :].splitlines()
    (row,) = [line for line in lines[:8] if line.startswith(f"| {model} |")]
    return [c.strip() for c in row.strip("|").split("|")]


@pytest.mark.slow
def test_gutenberg_ppmi_row_of_the_readme(data_dir: Path, tmp_path: Path, monkeypatch) -> None:
    """`simeval train ppmi $EN --min-count 20 --contexts 2000 --out models/en-ppmi` on the real
    Gutenberg corpus, then `simeval evaluate vectors:path=…,oov=backoff,fallback=zero -s words`:
    the README's token count and its PPMI row (four Spearmans, pairs scored) exactly."""
    monkeypatch.setenv("SIMEVAL_CACHE_DIR", str(tmp_path / "cache"))
    corpus = data_dir / "corpora" / "gutenberg_5authors.tar.xz"
    model = tmp_path / "models" / "en-ppmi"
    runner = CliRunner()
    args = ["--corpus", str(corpus), "--lang", "en", "--min-count", "20", "--contexts", "2000"]
    done = runner.invoke(app, ["train", "ppmi", *args, "--out", str(model)])
    assert done.exit_code == 0, done.output
    assert "496 documents" in done.output and "27,220,127 tokens" in done.output  # README
    spec = f"vectors:path={model},oov=backoff,fallback=zero"
    results = tmp_path / "results" / "models"
    shown = runner.invoke(app, ["evaluate", spec, "-s", "words", "--results", str(results)])
    assert shown.exit_code == 0, shown.output
    table = runner.invoke(app, ["results", str(results)], env={"COLUMNS": "200"})
    assert table.exit_code == 0, table.output
    printed = {}
    for line in table.stdout.splitlines():
        cells = [c.strip() for c in re.split(r"[│┃]", line) if c.strip()]
        if len(cells) == 3:
            printed[cells[0]] = cells[2].removesuffix(" †")  # † marks partial coverage
    row = _readme_row("Gutenberg, five authors", "PPMI (2,000 contexts)")
    benchmarks = ["simlex999", "wordsim353", "rg65", "mc30"]
    assert [printed[b] for b in benchmarks] == row[1:5]
    records = [json.loads(x) for x in (results / "results.jsonl").open()]
    scored = sum(r["coverage"]["scored"] for r in records if r["benchmark"] in benchmarks)
    gold = sum(r["coverage"]["gold"] for r in records if r["benchmark"] in benchmarks)
    assert f"{scored:,} / {gold:,}" == row[5]
