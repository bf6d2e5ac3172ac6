"""STS 2014-2016 baselines, the STS Benchmark, the MEN and SimVerb-3500 splits, the pooled
(MTEB-style) view, the ``sts`` group, and Python objects as measures.

Expected values are computed here from the files, read with plain Python (no simeval reader),
and scipy; the token-overlap baseline is written here from its definition in the 2012 paper
(white-space tokens, binary bag of words, cosine).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import pearsonr, spearmanr

from simeval.api import evaluate, load_target, predict
from simeval.errors import InputError
from simeval.metrics.stats import Resampling

SCORED_2015 = {
    "answers-forums": 375,
    "answers-students": 750,
    "belief": 375,
    "headlines": 750,
    "images": 750,
}
YEAR_FILES = {  # year: (input pattern, gold pattern, sets)
    2014: (
        "sts/2014/test/STS.2014.test.input.{}.txt",
        "sts/2014/test/STS.2014.test.gs.{}.txt",
        ("deft-forum", "deft-news", "headlines", "images", "OnWN", "tweet-news"),
    ),
    2015: (
        "sts/2015/test/STS.2015.input.{}.txt",
        "sts/2015/test/STS.2015.gs.{}.txt",
        tuple(SCORED_2015),
    ),
    2016: (
        "sts/2016/test/STS.2016.input.{}.txt",
        "sts/2016/test/STS.2016.gs.{}.txt",
        ("answer-answer", "headlines", "plagiarism", "postediting", "question-question"),
    ),
}


def token_cosine(a: str, b: str) -> float:
    x, y = set(a.split()), set(b.split())
    return len(x & y) / math.sqrt(len(x) * len(y)) if x and y else 0.0


def read_year(data_dir: Path, year: int) -> dict[str, tuple[list[tuple[str, str]], list[float]]]:
    """{set: (scored pairs, gold)}: the lines whose gold line is not empty."""
    inp, gs, sets = YEAR_FILES[year]
    out = {}
    for s in sets:
        pairs = [
            tuple(line.split("\t")[:2])
            for line in (data_dir / inp.format(s)).read_text(encoding="utf-8").split("\n")[:-1]
        ]
        gold = (data_dir / gs.format(s)).read_text(encoding="utf-8").split("\n")[:-1]
        assert len(pairs) == len(gold), s
        kept = [(p, float(g)) for p, g in zip(pairs, gold, strict=True) if g.strip()]
        out[s] = ([p for p, _ in kept], [g for _, g in kept])
    return out


@pytest.mark.parametrize("year", [2014, 2015, 2016])
def test_overlap_baseline_per_set_mean_and_pooled_from_the_files(store, data_dir, year) -> None:
    """Per-set Pearson of the baseline, the year's Mean weighted by scored pairs and the pooled
    Spearman, recomputed from the raw files with the baseline written here."""
    sets = read_year(data_dir, year)
    found = {r.benchmark: r for r in evaluate("overlap", f"sts{str(year)[2:]}", store=store)}
    rs, ns, all_gold, all_score = [], [], [], []
    for s, (pairs, gold) in sets.items():
        score = [token_cosine(a, b) for a, b in pairs]
        r = pearsonr(score, gold)[0]
        result = found[f"sts{str(year)[2:]}-{s.lower()}"]
        assert result.score == pytest.approx(r, abs=1e-9), s
        assert result.metrics["spearman"] == pytest.approx(spearmanr(score, gold)[0], abs=1e-9)
        assert result.coverage["gold"] == len(gold)
        rs.append(r)
        ns.append(len(gold))
        all_gold += gold
        all_score += score
    suite = found[f"sts{str(year)[2:]}"]
    assert suite.metrics["mean"] == pytest.approx(np.average(rs, weights=ns), abs=1e-9)
    assert suite.metrics["pooled_spearman"] == pytest.approx(
        spearmanr(all_score, all_gold)[0], abs=1e-9
    )
    if year == 2015:
        assert {s: len(g) for s, (_, g) in sets.items()} == SCORED_2015


def test_evaluation_sends_only_scored_pairs_and_predict_writes_every_line(store, tmp_path):
    """2016 gives a gold score to 1,186 of its 9,183 pairs: evaluate asks the measure for those
    only; a written submission still has a line for every input pair."""
    seen: list[int] = []

    def overlap_count(pairs):
        seen.append(len(pairs))
        return [len(set(a.split()) & set(b.split())) for a, b in pairs]

    evaluate(overlap_count, "sts16", store=store)
    assert sum(seen) == 254 + 249 + 230 + 244 + 209
    seen.clear()
    predict(overlap_count, "sts16", tmp_path, store=store)
    assert sum(seen) == 1572 + 1498 + 1271 + 3287 + 1555
    lines = (tmp_path / "STS.output.question-question.txt").read_text().splitlines()
    assert len(lines) == 1555


def test_an_encoder_embeds_the_scored_texts_only_all_ahead(store, data_dir) -> None:
    """Evaluating sts16, an object encoder is asked for each distinct sentence of the 1,186
    scored pairs once, in one run over all five sets (``prepare``), and never for a sentence
    that only lines without gold hold."""
    asked: list[list[str]] = []

    class Recorder:
        def encode(self, texts: list[str]) -> np.ndarray:
            asked.append(list(texts))
            return np.array([[len(t), t.count(" ") + 1.0, 1.0] for t in texts])

    results = evaluate(Recorder(), "sts16", store=store)
    expected = {t for pairs, _ in read_year(data_dir, 2016).values() for p in pairs for t in p}
    texts = [t for batch in asked for t in batch]
    assert len(texts) == len(set(texts)) and set(texts) == expected
    assert max(map(len, asked)) == 64 and len(asked) == math.ceil(len(expected) / 64)
    assert results[-1].system["texts_encoded"] == len(expected)


def read_stsb(data_dir: Path, split: str) -> list[list[str]]:
    text = (data_dir / f"stsbenchmark/sts-{split}.csv").read_text(encoding="utf-8")
    return [line.split("\t") for line in text.split("\n") if line]


def test_sts_benchmark_splits_counts_and_scores_against_scipy(store, data_dir) -> None:
    counts = {s: len(read_stsb(data_dir, s)) for s in ("train", "dev", "test")}
    assert counts == {"train": 5749, "dev": 1500, "test": 1379}  # the data README's counts
    for name, split in (("stsb", "test"), ("stsb-dev", "dev"), ("stsb-train", "train")):
        bench = load_target(name, store)
        rows = read_stsb(data_dir, split)
        assert len(bench.gold) == len(rows)
        assert bench.pairs[-1] == (rows[-1][5], rows[-1][6])
    rows = read_stsb(data_dir, "test")
    extra = sum(len(r) > 7 for r in rows)
    assert extra > 0  # the quirk: trailing source columns on some rows, read past
    quoted = [r for r in rows if '"' in r[5] + r[6]]
    assert quoted  # quote marks inside sentences are text, not CSV quoting
    gold = [float(r[4]) for r in rows]
    score = [token_cosine(r[5], r[6]) for r in rows]
    (result,) = evaluate("overlap", "stsb", store=store)
    assert result.score == pytest.approx(pearsonr(score, gold)[0], abs=1e-9)
    assert result.metrics["spearman"] == pytest.approx(spearmanr(score, gold)[0], abs=1e-9)
    genres = {r[0] for r in rows}
    assert set(result.items["genre"]) == genres == {"main-captions", "main-forums", "main-news"}


def test_men_splits_map_the_lemma_form_split_to_natural_form(store, data_dir) -> None:
    """MEN's dev/test split is given in lemma form (bakery-n); row i of the lemma-form file
    is row i of the natural-form file, so a split is the natural-form rows at those lines."""
    lemma = (data_dir / "men/MEN_dataset_lemma_form_full").read_text().split("\n")[1:-1]
    natural = (data_dir / "men/MEN_dataset_natural_form_full").read_text().split("\n")[1:-1]
    assert len(lemma) == len(natural) == 3000
    for split, n in (("dev", 2000), ("test", 1000)):
        wanted = {
            tuple(x.split()[:2])
            for x in (data_dir / f"men/MEN_dataset_lemma_form.{split}")
            .read_text()
            .split("\n")[1:-1]
        }
        rows = [
            nat.split()
            for lem, nat in zip(lemma, natural, strict=True)
            if tuple(lem.split()[:2]) in wanted
        ]
        bench = load_target(f"men-{split}", store)
        assert len(bench) == len(rows) == n
        assert bench.gold.pairs == [(r[0], r[1]) for r in rows]
        assert bench.gold.scores.tolist() == [float(r[2]) for r in rows]
        score = [len(set(a) & set(b)) / len(set(a) | set(b)) for a, b, _ in rows]
        (result,) = evaluate(
            lambda pairs: [len(set(a) & set(b)) / len(set(a) | set(b)) for a, b in pairs],
            f"men-{split}",
            store=store,
        )
        assert result.score == pytest.approx(spearmanr(score, [float(r[2]) for r in rows])[0])


def test_simverb_splits_take_scores_and_relations_from_the_full_file(store, data_dir) -> None:
    full = {}
    for line in (data_dir / "simverb3500/SimVerb-3500.txt").read_text().split("\n")[1:-1]:
        w1, w2, _, score, rel = line.split("\t")
        full[(w1, w2)] = (float(score), rel)
    for split, file, n in (
        ("dev", "SimVerb-500-dev.txt", 500),
        ("test", "SimVerb-3000-test.txt", 3000),
    ):
        lines = (data_dir / f"simverb3500/{file}").read_text().split("\n")[:-1]
        assert lines[0] == lines[1]  # the quirk: the first pair stands where a header would
        pairs = list(dict.fromkeys(tuple(x.split("\t")[:2]) for x in lines))
        bench = load_target(f"simverb3500-{split}", store)
        assert len(bench) == len(pairs) == n
        assert set(bench.gold.pairs) == set(pairs)
        for p, score, rel in zip(
            bench.gold.pairs, bench.gold.scores, bench.gold.columns["wn"], strict=True
        ):
            assert (score, rel) == full[p]
    # the dev row without a relation field gets its relation from the full file
    assert full[("ensure", "secure")][1] == "SYNONYMS"


def test_the_sts_group_holds_each_year_with_its_official_figure(store) -> None:
    from simeval.registry import Registry

    reg = Registry.catalog()
    assert reg.expand("sts") == ["sts12", "sts13", "sts14", "sts15", "sts16"]
    found = {r.benchmark: r for r in evaluate("overlap", "sts", store=store)}
    mains = {y: found[y].main_metric for y in reg.expand("sts")}
    assert mains == {
        "sts12": "all",
        "sts13": "mean",
        "sts14": "mean",
        "sts15": "mean",
        "sts16": "mean",
    }
    assert f"{found['sts12'].score:.4f}" == "0.3110"  # the 2012 paper's baseline ALL
    assert f"{found['sts13'].score:.4f}" == "0.3639"  # the 2013 paper's baseline mean
    assert len(found) == 5 + 5 + 4 + 6 + 5 + 5


class CharacterEncoder:
    """A tiny encoder: letter counts a-z (deterministic; counts its calls)."""

    def __init__(self) -> None:
        self.texts = 0

    def encode(self, texts: list[str]) -> np.ndarray:
        self.texts += len(texts)
        out = np.zeros((len(texts), 26))
        for i, t in enumerate(texts):
            for ch in t.lower():
                if "a" <= ch <= "z":
                    out[i, ord(ch) - 97] += 1
        return out + 1e-3


def test_an_encoder_object_is_a_measure_with_a_fingerprinted_cache(store, data_dir) -> None:
    pairs, gold = read_year(data_dir, 2016)["question-question"]

    def cosine(a: str, b: str) -> float:
        (x, y) = CharacterEncoder().encode([a, b])
        return float(x @ y / np.linalg.norm(x) / np.linalg.norm(y))

    expected = pearsonr([cosine(a, b) for a, b in pairs], gold)[0]
    model = CharacterEncoder()
    (r,) = evaluate(model, "sts16-question-question", store=store, fingerprint="chars-v1")
    assert r.score == pytest.approx(expected, abs=1e-6)
    distinct = len({t for p in pairs for t in p})
    assert model.texts == distinct
    assert (
        r.system["spec"] == "CharacterEncoder" and r.system["params"]["fingerprint"] == "chars-v1"
    )
    again = CharacterEncoder()
    (r2,) = evaluate(again, "sts16-question-question", store=store, fingerprint="chars-v1")
    assert again.texts == 0 and r2.score == r.score  # every embedding from the cache
    fresh = CharacterEncoder()
    evaluate(fresh, "sts16-question-question", store=store)  # no fingerprint: no cache
    assert fresh.texts == distinct


def test_bad_python_measures_are_clear_errors(store) -> None:
    class Wrong:
        def encode(self, texts):
            return np.zeros((len(texts) + 1, 3))

    with pytest.raises(InputError, match=r"encode of \d+ texts gave an array of shape"):
        evaluate(Wrong(), "sts16-question-question", store=store)
    with pytest.raises(InputError, match="returned 1 scores for 209 pairs"):
        evaluate(lambda pairs: [0.5], "sts16-question-question", store=store)
    with pytest.raises(InputError, match="cannot use a int as a measure"):
        evaluate(3, "mc30", store=store)
    with pytest.raises(InputError, match="apply to Python objects"):
        evaluate("overlap", "mc30", store=store, fingerprint="x")


@pytest.mark.slow
def test_a_sentence_transformers_object_scores_as_the_encoder_spec(
    store, encoder_cache, monkeypatch
):
    """A loaded model passed as an object gives the numbers of ``encoder`` (same model)."""
    from sentence_transformers import SentenceTransformer

    from simeval.measures.encoder import default_model_path

    monkeypatch.setenv("SIMEVAL_CACHE_DIR", str(encoder_cache))
    model = SentenceTransformer(str(default_model_path()), device="cpu")
    (a,) = evaluate(model, "sts16-question-question", store=store)
    (b,) = evaluate("encoder", "sts16-question-question", store=store)
    assert a.score == pytest.approx(b.score, abs=1e-5)
    assert a.metrics["spearman"] == pytest.approx(b.metrics["spearman"], abs=1e-5)


def test_report_views_split_simverb_by_relation_and_stsb_by_genre(store, data_dir) -> None:
    """The report's subsets of SimVerb-3500 (WordNet relation, from the file's fifth column)
    and of STS-B (genre): sizes counted from the files, values from scipy."""
    from simeval.report.subsets import named_views, score_subsets

    def length_difference(pairs):
        return [-abs(len(a) - len(b)) for a, b in pairs]

    (r,) = evaluate(length_difference, "simverb3500", store=store)
    subsets = named_views("simverb3500", r.items)
    scores = {s.subset.label: s for s in score_subsets(r.task, r.items, subsets, Resampling(50))}
    rows = [
        x.split("\t")
        for x in (data_dir / "simverb3500/SimVerb-3500.txt").read_text().split("\n")[1:-1]
    ]
    for relation in ("SYNONYMS", "ANTONYMS", "HYPER/HYPONYMS", "COHYPONYMS", "NONE"):
        mine = [row for row in rows if row[4] == relation]
        expected = spearmanr(
            length_difference([(a[0], a[1]) for a in mine]), [float(a[3]) for a in mine]
        )[0]
        assert scores[relation].n == len(mine)
        assert scores[relation].value == pytest.approx(expected, abs=1e-12), relation
    (r,) = evaluate(length_difference, "stsb", store=store)
    views = {s.label: int(s.mask.sum()) for s in named_views("stsb", r.items) if s.view == "genre"}
    genres = [row[0] for row in read_stsb(data_dir, "test")]
    assert views == {g: genres.count(g) for g in set(genres)}
