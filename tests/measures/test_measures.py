"""Measures: spec strings, lexical baselines by hand, vector formats, OOV policies, evaluate."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import pearsonr, spearmanr
from typer.testing import CliRunner

from simeval.api import evaluate, load_results, predict, results_frame
from simeval.cli import app
from simeval.data.pair_files import ScoredPairs
from simeval.errors import InputError
from simeval.kinds.graded import GRADED
from simeval.kinds.pairs import PairBenchmark
from simeval.measures import create_measure, parse_spec
from simeval.measures.lexical import levenshtein, ngram_dice, prefix_similarity

runner = CliRunner()


# -- spec strings ---------------------------------------------------------------------------


def test_spec_parsing_and_resolved_params() -> None:
    spec = parse_spec("orthographic:kind=dice, n=2")
    assert spec.name == "orthographic" and spec.params == {"kind": "dice", "n": "2"}
    m = create_measure("orthographic:kind=dice,n=2")
    assert m.params == {"kind": "dice", "n": 2, "lower": True}  # defaults filled in
    assert m.describe()["spec"] == "orthographic:kind=dice,n=2"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("orthographic:kind=soundex", "expected one of levenshtein, prefix, dice"),
        ("random:seed=x", "expected int"),
        ("random:colour=red", "unknown parameter(s) colour"),
        ("random:seed", "'seed' is not key=value"),
        ("nosuch", "unknown measure 'nosuch'"),
        ("vectors", "needs path=FILE"),
    ],
)
def test_bad_specs_are_input_errors(spec: str, message: str) -> None:
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        create_measure(spec)


# -- lexical baselines, by hand ---------------------------------------------------------------


def test_orthographic_by_hand() -> None:
    assert levenshtein("kitten", "sitting") == 3  # the textbook example
    m = create_measure("orthographic:kind=levenshtein")
    assert m.score_words([("kitten", "sitting")])[0] == pytest.approx(1 - 3 / 7)
    # common prefix "конь" of "коньки" (6 letters) and "конь" (4): 4/6
    assert prefix_similarity("коньки", "конь") == pytest.approx(4 / 6)
    # " ab " -> {" ab", "ab "}, " ac " -> {" ac", "ac "}: no common trigram; bigrams share " a"
    assert ngram_dice("ab", "ac") == 0.0
    assert ngram_dice("ab", "ac", n=2) == pytest.approx(2 * 1 / (3 + 3))
    lower = create_measure("orthographic:kind=prefix")
    assert lower.score_words([("Дом", "дом")])[0] == 1.0
    assert (
        create_measure("orthographic:kind=prefix,lower=false").score_words([("Дом", "дом")])[0] == 0
    )


def test_overlap_jaccard_random() -> None:
    pairs = [("a b c", "b c d"), ("x", "")]
    assert create_measure("overlap").score_texts(pairs).tolist() == [2 / 3, 0.0]
    assert create_measure("jaccard").score_texts(pairs).tolist() == [2 / 4, 0.0]
    r = create_measure("random:seed=5")
    first = r.score_words([("a", "b"), ("c", "d")])
    assert r.score_words([("c", "d"), ("a", "b")]).tolist() == first[::-1].tolist()
    assert ((first >= 0) & (first < 1)).all()
    assert create_measure("random:seed=6").score_words([("a", "b")])[0] != first[0]


# -- word vectors in every format ------------------------------------------------------------


def fixture_vectors(dim: int = 5) -> tuple[list[str], np.ndarray]:
    rng = np.random.default_rng(0)
    words = ["cat", "dog", "car", "Ёлка", "кошка", "tree", "house"]
    return words, rng.normal(size=(len(words), dim)).astype(np.float32)


def write_formats(folder: Path) -> dict[str, Path]:
    """The same vectors as word2vec text (by hand), GloVe (by hand), word2vec binary and
    gensim KeyedVectors (both written by gensim)."""
    from gensim.models import KeyedVectors

    words, m = fixture_vectors()
    rows = [w + " " + " ".join(repr(float(x)) for x in v) for w, v in zip(words, m, strict=True)]
    text = folder / "v.vec"
    text.write_text(f"{len(words)} {m.shape[1]}\n" + "\n".join(rows) + "\n", encoding="utf-8")
    glove = folder / "v.glove.txt"
    glove.write_text("\n".join(rows) + "\n", encoding="utf-8")
    kv = KeyedVectors(m.shape[1])
    kv.add_vectors(words, m)
    binary = folder / "v.bin"
    kv.save_word2vec_format(str(binary), binary=True)
    native = folder / "v.kv"
    kv.save(str(native))
    return {"word2vec": text, "glove": glove, "word2vec-bin": binary, "gensim": native}


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


PAIRS = [("cat", "dog"), ("cat", "car"), ("dog", "tree"), ("house", "cat"), ("cat", "unicorn")]


@pytest.mark.parametrize("fmt", ["word2vec", "glove", "word2vec-bin", "gensim"])
def test_every_format_gives_the_same_scores(tmp_path: Path, fmt: str) -> None:
    files = write_formats(tmp_path)
    words, m = fixture_vectors()
    row = dict(zip(words, m, strict=True))
    expected = [cosine(row[a], row[b]) for a, b in PAIRS[:4]]
    for given in (fmt, "auto") if fmt != "gensim" else (fmt,):  # auto never unpickles
        trusted = ",allow_pickle=true" if given == "gensim" else ""  # a pickle: opted in
        measure = create_measure(f"vectors:path={files[fmt]},format={given}{trusted}")
        got = measure.score_words(PAIRS)
        assert got[:4] == pytest.approx(expected, abs=1e-6)
        assert math.isnan(got[4])  # unicorn is not in the file
    assert measure.params.get("format_detected") == (None if fmt == "gensim" else fmt)


def test_fasttext_bin_subwords_give_unknown_words_a_vector(tmp_path: Path) -> None:
    from gensim.models import FastText
    from gensim.models.fasttext import save_facebook_model

    sentences = [["кошка", "кошки", "кошку", "собака", "собаки"]] * 50
    model = FastText(vector_size=8, min_count=1, min_n=2, max_n=4, epochs=2, seed=1, workers=1)
    model.build_vocab(sentences)
    model.train(sentences, total_examples=len(sentences), epochs=2)
    path = tmp_path / "ft.bin"
    save_facebook_model(model, str(path))
    # neither "кошкой" nor "собачонка" is in the vocabulary; the lemma of the first is
    pairs = [("кошка", "собака"), ("кошкой", "собака"), ("собачонка", "кошка")]
    exact = create_measure(f"vectors:path={path},oov=skip").score_words(pairs)
    assert exact[0] == pytest.approx(float(model.wv.similarity("кошка", "собака")), abs=1e-5)
    assert np.isnan(exact[1:]).all()
    back = create_measure(f"vectors:path={path},oov=backoff").score_words(pairs)
    assert back[1] == pytest.approx(exact[0], abs=1e-6)  # lemma before subwords
    assert back[2] == pytest.approx(float(model.wv.similarity("собачонка", "кошка")), abs=1e-5)


def test_oov_policies_and_exact_coverage(tmp_path: Path) -> None:
    files = write_formats(tmp_path)
    words, m = fixture_vectors()
    row = dict(zip(words, m, strict=True))
    # "елка" is "Ёлка" lowercased with ё->е; "кошки" has the lemma "кошка"; "unicorn" is unknown
    pairs = [("cat", "dog"), ("cat", "car"), ("dog", "tree"), ("елка", "кошки"), ("cat", "unicorn")]
    gold = np.array([7.0, 2.0, 3.0, 5.0, 1.0])
    bench = PairBenchmark(
        "toy", GRADED.name, ScoredPairs("toy.csv", pairs, gold, np.arange(1, 6)), "hand-made"
    )
    base = [cosine(row[a], row[b]) for a, b in pairs[:3]]
    tree = cosine(row["Ёлка"], row["кошка"])

    def run(oov: str):
        spec = f"vectors:path={files['word2vec']},oov={oov}"
        (result,) = evaluate(create_measure(spec), bench)
        return result

    zero = run("zero")
    assert zero.coverage == {"gold": 5, "scored": 3, "missing": 2, "extra": 0}
    assert zero.metrics["spearman"] == pytest.approx(spearmanr([*base, 0, 0], gold)[0])
    skip = run("skip")
    assert skip.coverage["scored"] == 3
    assert skip.metrics["spearman"] == pytest.approx(spearmanr(base, gold[:3])[0])
    back = run("backoff")
    assert back.coverage == {"gold": 5, "scored": 4, "missing": 1, "extra": 0}
    assert back.metrics["pearson"] == pytest.approx(pearsonr([*base, tree], gold[:4])[0])
    official = run("backoff,fallback=zero")  # look-ups first, then RUSSE's 0 for the rest
    assert official.coverage["scored"] == 4
    assert official.metrics["pearson"] == pytest.approx(pearsonr([*base, tree, 0], gold)[0])


def test_texts_are_averaged_word_vectors(tmp_path: Path) -> None:
    files = write_formats(tmp_path)
    words, m = fixture_vectors()
    unit = {w: v / np.linalg.norm(v) for w, v in zip(words, m, strict=True)}
    got = create_measure(f"vectors:path={files['word2vec']}").score_texts(
        [("cat dog", "the car"), ("unicorn", "cat")]
    )
    assert got[0] == pytest.approx(cosine(unit["cat"] + unit["dog"], unit["car"]), abs=1e-6)
    assert math.isnan(got[1])


def test_bad_vector_file_names_line(tmp_path: Path) -> None:
    f = tmp_path / "bad.vec"
    f.write_text("2 3\ncat 1 2 3\ndog 1 2\n")
    with pytest.raises(InputError, match=r"bad.vec:3: expected 3 numbers"):
        create_measure(f"vectors:path={f},format=word2vec").score_words([("cat", "dog")])


# -- evaluate, predict, results -----------------------------------------------------------------


def test_evaluate_overlap_gives_the_sts_baseline(store) -> None:
    results = {r.benchmark: r for r in evaluate("overlap", "sts12", store=store)}
    paper = {  # Agirre et al. 2012, baseline row
        "sts12-msrpar": 0.4334,
        "sts12-msrvid": 0.2996,
        "sts12-smteuroparl": 0.4542,
        "sts12-smtnews": 0.3908,
    }
    for name, value in paper.items():
        assert results[name].metrics["pearson"] == pytest.approx(value, abs=5e-5)
    assert results["sts12"].metrics["all"] == pytest.approx(0.3110, abs=1e-4)
    assert results["sts12"].metrics["allnrm"] == pytest.approx(0.6732, abs=1e-4)


def test_predict_round_trips_through_score(store, tmp_path: Path) -> None:
    spec = "orthographic:kind=prefix"
    evaluated = {r.benchmark: r.metrics for r in evaluate(spec, "russe", store=store)}
    (f,) = predict(spec, "russe", tmp_path / "russe.csv", store=store)
    assert len(f.read_text(encoding="utf-8").splitlines()) == 14_836  # header + 14,835 pairs
    result = runner.invoke(app, ["score", "russe", str(f), "--json"])
    assert result.exit_code == 0, result.output
    scored = {r["benchmark"]: r["metrics"] for r in map(json.loads, result.stdout.splitlines())}
    assert scored.keys() == evaluated.keys()
    for name, metrics in evaluated.items():
        assert scored[name] == pytest.approx(metrics, abs=1e-12)
    folder = tmp_path / "sts"
    predict("jaccard", "sts12", folder, store=store)
    result = runner.invoke(app, ["score", "sts12", str(folder), "--json"])
    back = json.loads(result.stdout.splitlines()[-1])["metrics"]
    direct = evaluate("jaccard", "sts12", store=store)[-1].metrics
    assert back == pytest.approx(direct, abs=1e-12)


def test_results_are_appended_and_framed(store, tmp_path: Path) -> None:
    evaluate("random:seed=1", "rg65", "mc30", store=store, results_dir=tmp_path)
    evaluate("overlap", "words", store=store, results_dir=tmp_path)
    records = load_results(tmp_path)
    assert [r["benchmark"] for r in records] == [
        "rg65",
        "mc30",
        "simlex999",
        "wordsim353",
        "rg65",
        "mc30",
    ]
    assert records[0]["system"]["params"] == {"seed": 1}
    assert records[0]["data"] and records[0]["versions"]["numpy"] and records[0]["machine"]
    frame = results_frame(tmp_path)
    assert len(frame) == 6 and set(frame["measure"]) == {"random:seed=1", "overlap"}
    # every record names its items file, and the file is there
    assert all((tmp_path / r["items_file"]).is_file() for r in records)
    good = (
        '{"benchmark": "x", "task": "sts", "main_metric": "pearson", "metrics": {"pearson": 0.5}}'
    )
    (tmp_path / "results.jsonl").write_text(good + "\nnot json\n")
    with pytest.raises(InputError, match=r"results.jsonl:2: not a JSON record"):
        load_results(tmp_path)
    (tmp_path / "results.jsonl").write_text('{"benchmark": 1}\n')
    with pytest.raises(InputError, match=r"results.jsonl:1: the record has no 'task'"):
        load_results(tmp_path)


def test_sif_weights_come_from_wordfreq(tmp_path: Path) -> None:
    from wordfreq import word_frequency

    files = write_formats(tmp_path)
    words, m = fixture_vectors()
    unit = {w: v / np.linalg.norm(v) for w, v in zip(words, m, strict=True)}

    def weight(w: str) -> float:  # Arora et al. 2017: a / (a + p(w)), a = 1e-3
        return 1e-3 / (1e-3 + word_frequency(w, "en"))

    left = weight("cat") * unit["cat"] + weight("house") * unit["house"]
    right = weight("dog") * unit["dog"]
    got = create_measure(f"vectors:path={files['word2vec']},sif=true").score_texts(
        [("cat house", "dog")]
    )
    assert got[0] == pytest.approx(cosine(left, right), abs=1e-6)


def test_top_level_api_mirrors_the_command_line(store) -> None:
    import simeval

    (result,) = simeval.evaluate("jaccard", "mc30", store=store)
    assert result.benchmark == "mc30" and result.system["spec"] == "jaccard"
    with pytest.raises(AttributeError):
        _ = simeval.no_such_thing
