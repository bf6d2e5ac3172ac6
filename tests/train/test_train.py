"""Training: exact window counts against a brute-force counter, PPMI by hand, text handling."""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from simeval.train.count import (
    build_vocabulary,
    cooccurrence,
    count_chunk,
    ppmi,
    svd_vectors,
    word_counts,
)

TEXT = [
    "the cat sat on the mat",
    "the dog sat",
    "a cat and a dog and a cat",
    "mat",
    "cat zebra okapi dog",  # zebra, okapi occur once: below min_count, but keep their positions
]


def brute_force(sentences: list[list[str]], words: set[str], contexts: set[str], window: int):
    counts: Counter[tuple[str, str]] = Counter()
    for s in sentences:
        for i, w in enumerate(s):
            for j, c in enumerate(s):
                if i != j and abs(i - j) <= window and w in words and c in contexts:
                    counts[(w, c)] += 1
    return counts


def as_counter(matrix, words, contexts) -> Counter[tuple[str, str]]:
    m = matrix.tocoo()
    return Counter(
        {(words[r], contexts[c]): int(v) for r, c, v in zip(m.row, m.col, m.data, strict=True)}
    )


@pytest.mark.parametrize("window", [1, 2, 5])
def test_window_counts_match_brute_force(window: int) -> None:
    sentences = [line.split() for line in TEXT]
    counts = Counter(t for s in sentences for t in s)
    words = build_vocabulary(counts, min_count=2)
    # by frequency, ties by word; with window 2, cat and dog of the last line are not neighbours
    assert words == ["cat", "a", "dog", "the", "and", "mat", "sat"]
    contexts = [w for w in words if w not in ("the", "a", "and")]
    got = as_counter(
        count_chunk(
            TEXT,
            {w: i for i, w in enumerate(words)},
            {c: i for i, c in enumerate(contexts)},
            window,
        ),
        words,
        contexts,
    )
    assert got == brute_force(sentences, set(words), set(contexts), window)


def test_parallel_chunked_counting_equals_one_pass(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    vocab = [f"w{i}" for i in range(40)]
    lines = [" ".join(rng.choice(vocab, size=rng.integers(1, 12))) for _ in range(500)]
    f = tmp_path / "corpus.txt"
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    counts = word_counts(f)
    words = build_vocabulary(counts, min_count=20)
    contexts = words[:15]
    m = cooccurrence(f, words, contexts, window=3, workers=2, chunk_lines=37)
    expected = brute_force([s.split() for s in lines], set(words), set(contexts), 3)
    assert as_counter(m, words, contexts) == expected
    # every word a context: the shared look-up path
    m = cooccurrence(f, words, words, window=3, workers=2, chunk_lines=37)
    expected = brute_force([s.split() for s in lines], set(words), set(words), 3)
    assert as_counter(m, words, words) == expected


def test_ppmi_by_hand() -> None:
    counts = np.array([[2.0, 1.0], [0.0, 3.0]])
    # alpha = 1, shift 1: PMI = log(#(w,c) * D / (#w * #c)), D = 6, rows 3 3, cols 2 4
    m = ppmi(counts, alpha=1.0).toarray()
    assert m[0, 0] == pytest.approx(math.log(2 * 6 / (3 * 2)))
    assert m[0, 1] == 0.0  # log(1*6/(3*4)) < 0
    assert m[1, 1] == pytest.approx(math.log(3 * 6 / (3 * 4)))
    # alpha = 0.75: columns smoothed, #c^a / sum #c^a
    s = 2**0.75 + 4**0.75
    m = ppmi(counts, alpha=0.75).toarray()
    assert m[0, 0] == pytest.approx(math.log((2 / 6) / ((3 / 6) * (2**0.75 / s))))
    # shift k = 2 subtracts log 2 before clipping at 0
    shifted = ppmi(counts, alpha=1.0, shift=2.0).toarray()
    assert shifted[0, 0] == pytest.approx(max(math.log(2) - math.log(2), 0))


def test_svd_weighting() -> None:
    rng = np.random.default_rng(1)
    a = rng.random((30, 20))
    u, s, _ = np.linalg.svd(a, full_matrices=False)
    for p in (0.0, 0.5, 1.0):
        got = svd_vectors(a, 5, p)
        want = u[:, :5] * s[:5] ** p
        # columns are defined up to sign
        signs = np.sign((got * want).sum(axis=0))
        assert got * signs == pytest.approx(want, abs=1e-4)


# -- corpus reading and text handling -----------------------------------------------------------


def test_ruslit_archive_with_its_cp1251_work(data_dir: Path) -> None:
    from simeval.text.corpus import iter_documents

    docs = list(iter_documents(data_dir / "corpora" / "ruslit.tar.xz"))
    assert len(docs) == 373  # works in the corpus (its README and info.csv are not documents)
    cp1251 = [d for d in docs if d.encoding == "cp1251"]
    assert [d.source.rsplit("/", 1)[-1] for d in cp1251] == ["Руслан и Людмила.txt"]
    assert "Людмила" in cp1251[0].text


def test_gutenberg_markers_folders_and_lines(tmp_path: Path) -> None:
    from simeval.errors import InputError
    from simeval.text.corpus import iter_documents

    book = (
        "The Project Gutenberg EBook of X\nlicence text\n"
        "*** START OF THIS PROJECT GUTENBERG EBOOK X ***\nThe story.\nSecond line.\n"
        "*** END OF THIS PROJECT GUTENBERG EBOOK X ***\nmore licence\n"
    )
    (tmp_path / "b.txt").write_text(book)
    (tmp_path / "a.txt").write_text("first\n\nsecond\n")
    (tmp_path / ".hidden.txt").write_text("no")
    docs = list(iter_documents(tmp_path))
    assert [Path(d.source).name for d in docs] == ["a.txt", "b.txt"]
    assert docs[1].text.strip() == "The story.\nSecond line."
    lines = list(iter_documents(tmp_path / "a.txt", one_per_line=True))
    assert [d.text for d in lines] == ["first", "second"]
    (tmp_path / "bad.txt").write_bytes("日本語".encode("utf-16"))
    with pytest.raises(InputError, match=r"bad\.txt: neither UTF-8 nor cp1251"):
        list(iter_documents(tmp_path / "bad.txt"))


def read_conllu(path: Path):
    """(text, [(form, lemma, upos)]) per sentence of a CoNLL-U file, multiword ranges skipped."""
    sentences, text, rows = [], None, []
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line.startswith("# text = "):
            text = line[len("# text = ") :]
        elif line and not line.startswith("#"):
            cols = line.split("\t")
            if cols[0].isdigit():
                rows.append((cols[1], cols[2], cols[3]))
        elif not line and rows:
            sentences.append((text, rows))
            text, rows = None, []
    return sentences


def test_russian_tokens_and_lemmas_on_ud_gsd(data_dir: Path) -> None:
    from simeval.text.normalize import lemma, normalize
    from simeval.text.tokenize import words

    sentences = read_conllu(data_dir / "corpora" / "ru_ud_gsd" / "ru_gsd-ud-test.conllu")
    assert len(sentences) > 500
    gold_tokens = found = lemma_right = lemma_total = 0
    for text, rows in sentences:
        gold = [normalize(f) for f, _, upos in rows if upos not in ("PUNCT", "SYM")]
        ours = [normalize(w) for w in words(text, "ru")]
        gold_tokens += len(gold)
        found += sum((Counter(gold) & Counter(ours)).values())
        for form, gold_lemma, upos in rows:
            if upos not in ("PUNCT", "SYM", "NUM", "X"):
                lemma_total += 1
                lemma_right += lemma(form) == normalize(gold_lemma)
    # Token recall: UD splits a few things razdel keeps whole (and the reverse)
    assert found / gold_tokens > 0.97
    # pymorphy3's most probable lemma against the treebank's (README quotes the figure)
    accuracy = lemma_right / lemma_total
    assert (lemma_right, lemma_total) == (8379, 8885)  # README: 94.31 % of 8,885 tokens
    assert f"{100 * accuracy:.2f}" == "94.31"
    print(f"lemma accuracy {accuracy:.4f} on {lemma_total} tokens")


def test_sentence_boundaries_in_english_and_russian() -> None:
    from simeval.text.tokenize import sentences

    assert sentences("Mr. Smith came. He sat down!\n\nNew paragraph", "en") == [
        "Mr. Smith came.",
        "He sat down!",
        "New paragraph",
    ]
    assert sentences("Он пришёл. Т. е. сел. «Кто там?» — спросил он.", "ru")[0] == "Он пришёл."


def test_train_command_writes_readable_model_folders(tmp_path: Path, monkeypatch) -> None:
    import json

    from typer.testing import CliRunner

    from simeval.cli import app
    from simeval.measures import create_measure

    monkeypatch.setenv("SIMEVAL_CACHE_DIR", str(tmp_path / "cache"))
    rng = np.random.default_rng(3)
    animals, tools = ["cat", "dog", "cow", "horse"], ["hammer", "saw", "drill", "wrench"]
    lines = []
    for _ in range(400):  # animals co-occur with "farm", tools with "shed"
        group, place = (animals, "farm") if rng.random() < 0.5 else (tools, "shed")
        lines.append(" ".join([*rng.choice(group, 3), place, *rng.choice(group, 2)]) + ".")
    corpus = tmp_path / "toy.txt"
    corpus.write_text("\n\n".join(lines))
    runner = CliRunner()
    folders = {}
    for kind, extra in [
        ("ppmi", []),
        ("svd", ["--dim", "3"]),
        ("word2vec", ["--dim", "10"]),
        ("fasttext", ["--dim", "10"]),
    ]:
        out = tmp_path / kind
        args = [
            "train",
            kind,
            "--corpus",
            str(corpus),
            "--lang",
            "en",
            "--out",
            str(out),
            "--min-count",
            "1",
            "--window",
            "2",
            "--workers",
            "1",
            *extra,
        ]
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        record = json.loads((out / "config.json").read_text())
        assert record["config"]["kind"] == kind
        assert record["corpus"]["sha256"] == hashlib.sha256(corpus.read_bytes()).hexdigest()
        assert record["corpus"]["sentences"] == 400
        folders[kind] = out
    result = runner.invoke(
        app,
        [
            "train",
            "ppmi",
            "--corpus",
            str(corpus),
            "--lang",
            "en",
            "--out",
            str(tmp_path / "p2"),
            "--min-count",
            "1",
            "--workers",
            "1",
            "--evaluate",
            "mc30",
            "--measure-options",
            "oov=skip",
            "--results",
            str(tmp_path / "results"),
        ],
    )
    assert result.exit_code == 0, result.output
    (record,) = [json.loads(x) for x in (tmp_path / "results" / "results.jsonl").open()]
    assert record["system"]["spec"] == f"vectors:path={tmp_path / 'p2'},oov=skip"
    assert record["coverage"]["scored"] == 0  # no MC-30 pair in a toy farm-and-shed corpus
    pairs = [("cat", "dog"), ("cat", "hammer"), ("cats", "dog")]
    for kind in ("ppmi", "svd"):
        s = create_measure(f"vectors:path={folders[kind]}").score_words(pairs)
        assert s[0] > s[1]  # same group more similar than across groups
        assert np.isnan(s[2])
    ft = create_measure(f"vectors:path={folders['fasttext']},oov=backoff").score_words(pairs)
    w2v = create_measure(f"vectors:path={folders['word2vec']},oov=backoff").score_words(pairs)
    # "cats" is unseen: fastText's subwords give it a vector under backoff, word2vec cannot
    plain_ft = create_measure(f"vectors:path={folders['fasttext']},oov=skip").score_words(pairs)
    assert not np.isnan(ft[2]) and np.isnan(w2v[2]) and np.isnan(plain_ft[2])


def test_train_defaults_lemmas_and_the_tokenization_cache(tmp_path, monkeypatch) -> None:
    """What the README states of `simeval train` without options (window 5, 300 dimensions,
    skip-gram with 5 negatives, PPMI α 0.75 and no shift, SVD p 0.5, seed 1, 2 workers);
    --lemmatize keeps pymorphy3 lemmas, not forms; the tokenized corpus is cached by sha256 and
    reused (a second training does not read the corpus again)."""
    from typer.testing import CliRunner

    import simeval.train.prepared as prepared
    from simeval.cli import app

    monkeypatch.setenv("SIMEVAL_CACHE_DIR", str(tmp_path / "cache"))
    corpus = tmp_path / "ru.txt"
    corpus.write_text("Кошки спят дома.\n\nКошка спала дома.\n\nСобаки бегали, собака бегает.\n")
    runner = CliRunner()
    base = ["--corpus", str(corpus), "--lang", "ru", "--lemmatize", "--min-count", "1"]
    done = runner.invoke(app, ["train", "ppmi", *base, "--out", str(tmp_path / "ppmi")])
    assert done.exit_code == 0, done.output
    config = json.loads((tmp_path / "ppmi" / "config.json").read_text())["config"]
    stated = {
        "window": 5,
        "dim": 300,
        "sg": 1,
        "negative": 5,
        "alpha": 0.75,
        "shift": 1.0,
        "power": 0.5,
        "seed": 1,
        "workers": 2,
        "lemmatize": True,
    }
    assert {k: config[k] for k in stated} == stated
    vocab = set((tmp_path / "ppmi" / "vocab.txt").read_text(encoding="utf-8").split("\n"))
    assert {"кошка", "спать", "собака", "бегать", "дом"} <= vocab
    assert not {"кошки", "спят", "собаки", "бегали"} & vocab
    cached = list((tmp_path / "cache" / "corpora").glob("*-ru-lemma-*.txt"))
    assert len(cached) == 1

    def refuse(*_a, **_k):
        raise AssertionError("the corpus was tokenized again")

    monkeypatch.setattr(prepared, "iter_documents", refuse)
    again = runner.invoke(
        app, ["train", "svd", *base, "--dim", "2", "--out", str(tmp_path / "svd")]
    )
    assert again.exit_code == 0, again.output
