"""Vector files at the edge (issue 30, hole 8): a file with NaN/inf, a header that disagrees
with its rows, a compressed or junk file is refused with the file and line named; a repeated
word keeps its first vector, as gensim's reader does, and says so. Expected cosines are
computed by hand from the rows written here."""

from __future__ import annotations

import gzip
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from simeval.cli import app
from simeval.errors import InputError
from simeval.measures import create_measure

ROWS = ["cat 1 0 0", "dog 0.6 0.8 0", "car 0 0 1"]


def _text(tmp_path: Path, lines: list[str], name: str = "v.vec") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _score(path: Path, fmt: str = "auto", pairs=(("cat", "dog"),)) -> np.ndarray:
    return create_measure(f"vectors:path={path},format={fmt}").score_words(list(pairs))


@pytest.mark.parametrize("bad", ["nan", "inf", "-inf", "1e39"])
@pytest.mark.parametrize("fmt", ["word2vec", "glove"])
def test_non_finite_values_are_refused_with_the_line(tmp_path: Path, bad: str, fmt: str) -> None:
    rows = [ROWS[0], f"dog 0.6 {bad} 0", ROWS[2]]
    lines = ["3 3", *rows] if fmt == "word2vec" else rows
    path = _text(tmp_path, lines)
    line = 3 if fmt == "word2vec" else 2
    with pytest.raises(InputError, match=rf"v\.vec:{line}: expected finite numbers"):
        _score(path, fmt)


def test_non_finite_values_in_a_binary_file_are_refused(tmp_path: Path) -> None:
    body = b"2 2\n" + b"cat " + np.array([1, 0], "<f4").tobytes() + b"\n"
    body += b"dog " + np.array([np.nan, 1], "<f4").tobytes() + b"\n"
    path = tmp_path / "v.bin"
    path.write_bytes(body)
    with pytest.raises(InputError, match=r"v\.bin: word 2 of 2: expected finite numbers"):
        _score(path, "word2vec-bin")


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ("5 3", r"v\.vec:1: the header says 5 words, but 3 rows follow it"),
        ("2 3", r"v\.vec:1: the header says 2 words, but 3 rows follow it"),
        ("3 4", r"v\.vec:2: expected 4 numbers after the word, got 3"),
        ("3 0", r"v\.vec:1: expected a dimension of at least 1"),
    ],
)
def test_a_header_that_disagrees_with_the_rows_is_refused(
    tmp_path: Path, header: str, message: str
) -> None:
    path = _text(tmp_path, [header, *ROWS])
    with pytest.raises(InputError, match=message):
        _score(path, "auto", [("car", "cat")])  # the wrong dimension is found on line 2


def test_a_binary_file_longer_than_its_header_is_refused(tmp_path: Path) -> None:
    rows = [w + b" " + np.array(v, "<f4").tobytes() + b"\n" for w, v in
            [(b"cat", [1, 0]), (b"dog", [0, 1]), (b"car", [1, 1])]]  # fmt: skip
    path = tmp_path / "v.bin"
    path.write_bytes(b"2 2\n" + b"".join(rows))
    with pytest.raises(InputError, match=r"v\.bin: the header says 2 words, but more data"):
        _score(path, "word2vec-bin")


def test_a_repeated_word_keeps_its_first_vector_and_warns(tmp_path: Path) -> None:
    """gensim's load_word2vec_format keeps the first of a repeated word; so does simeval,
    and the result says so. Expected cosines by hand: cat·dog = 0.6 (first dog), not 0."""
    path = _text(tmp_path, ["4 3", *ROWS, "dog 0 0 1"])
    measure = create_measure(f"vectors:path={path}")
    assert measure.score_words([("cat", "dog")])[0] == pytest.approx(0.6)
    (warning,) = measure.warnings()
    assert "1 repeated word(s): 'dog' (lines 3 and 5)" in warning
    assert "the first vector of each is used" in warning


def test_a_repeated_word_is_a_warning_on_the_command_line(tmp_path: Path) -> None:
    path = _text(tmp_path, ["3 2", "car 1 0", "automobile 1 1", "car 0 1"])  # MC-30's first pair
    done = CliRunner().invoke(
        app, ["evaluate", f"vectors:path={path}", "-b", "mc30", "--json", "--no-save"]
    )
    assert done.exit_code == 0, done.output
    assert "'car' (lines 2 and 4)" in done.stderr
    assert "'car' (lines 2 and 4)" in done.stdout  # recorded in the result's warnings


@pytest.mark.parametrize("fmt", ["auto", "word2vec", "glove", "word2vec-bin"])
def test_a_gzipped_file_is_refused(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "v.vec.gz"
    path.write_bytes(gzip.compress(("3 3\n" + "\n".join(ROWS) + "\n").encode()))
    with pytest.raises(InputError, match=r"v\.vec\.gz: gzip-compressed: decompress it first"):
        _score(path, fmt)


@pytest.mark.parametrize("junk", ["text", "bytes"])
def test_a_junk_file_is_refused_not_read_as_no_coverage(tmp_path: Path, junk: str) -> None:
    path = tmp_path / "junk.vec"
    if junk == "text":  # words, no numbers: once read as GloVe of dimension 1, 0 coverage
        path.write_text("Some notes\nabout vectors\nand more\n", encoding="utf-8")
    else:
        path.write_bytes(np.random.default_rng(1).integers(1, 256, 5000, np.uint8).tobytes())
    done = CliRunner().invoke(app, ["evaluate", f"vectors:path={path}", "-b", "mc30", "--no-save"])
    assert done.exit_code == 2, done.output
    assert "junk.vec:1:" in done.stderr and "Traceback" not in done.output


def test_the_good_file_still_gives_the_hand_computed_cosines(tmp_path: Path) -> None:
    path = _text(tmp_path, ["3 3", *ROWS])
    got = _score(path, "auto", [("cat", "dog"), ("dog", "car"), ("cat", "car"), ("cat", "x")])
    assert got[:3] == pytest.approx([0.6, 0.0, 0.0])
    assert math.isnan(got[3])


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"3 3\n" + "\n".join(ROWS).encode() + b"\n", "not a fastText .bin model"),
        (np.array([793712314, 12], "<i4").tobytes() + b"xx", "cannot load as fasttext-bin"),
    ],
    ids=["text-said-fasttext", "cut-fasttext"],
)
def test_a_file_that_is_not_fasttext_is_refused(tmp_path: Path, data: bytes, message: str) -> None:
    """``format=fasttext-bin`` on a text file, or on a fastText file cut after its magic
    number, gave gensim's ``struct.error`` traceback (fuzz: vector-file)."""
    path = tmp_path / "v.bin"
    path.write_bytes(data)
    with pytest.raises(InputError, match=message):
        _score(path, "fasttext-bin")


# every cut of a fastText model, loaded in a child process (a cut dictionary made gensim loop
# forever): the kind of error and its text, by cut length
_CUTS = """
import json, sys
from pathlib import Path
from simeval.measures import create_measure
whole = Path(sys.argv[1]).read_bytes()
cut = Path(sys.argv[2])
out = {}
for n in [*range(4, len(whole)), len(whole) + 1]:
    cut.write_bytes(whole[:n] if n <= len(whole) else whole + b"x")
    try:
        create_measure(f"vectors:path={cut},format=fasttext-bin").score_words([("a", "b")])
        out[n] = ["ok", ""]
    except Exception as exc:
        out[n] = [type(exc).__name__, str(exc)]
print(json.dumps(out))
"""


def _fasttext_model(path: Path) -> None:
    from gensim.models import FastText
    from gensim.models.fasttext import save_facebook_model

    sentences = [["кошка", "кошки", "собака"]] * 5
    model = FastText(vector_size=2, min_count=1, min_n=2, max_n=3, bucket=8, epochs=1, seed=1,
                     workers=1)  # fmt: skip
    model.build_vocab(sentences)
    model.train(sentences, total_examples=len(sentences), epochs=1)
    save_facebook_model(model, str(path))


def test_every_cut_of_a_fasttext_model_is_refused_with_the_file(tmp_path: Path) -> None:
    """A fastText ``.bin`` cut anywhere (or with a byte too many) gave gensim's
    AssertionError, struct.error, or an endless loop (issue 44): now an InputError naming
    the file, and the whole model still loads."""
    whole, cut = tmp_path / "whole.bin", tmp_path / "cut.bin"
    _fasttext_model(whole)
    done = subprocess.run(
        [sys.executable, "-c", _CUTS, str(whole), str(cut)],
        capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout)
    wrong = {n: v for n, v in found.items() if v[0] != "InputError" or f"{cut}: " not in v[1]}
    assert not wrong, list(wrong.items())[:5]
    assert len(found) == whole.stat().st_size - 3
    assert create_measure(f"vectors:path={whole}").score_words([("кошка", "собака")]).shape == (1,)


def test_a_supervised_fasttext_model_is_refused(tmp_path: Path) -> None:
    """A classifier's ``.bin`` (labels in its dictionary) raised gensim's NotImplementedError."""
    path = tmp_path / "labels.bin"
    _fasttext_model(path)
    data = bytearray(path.read_bytes())
    data[72:76] = np.array([1], "<i4").tobytes()  # after magic, version, 56 bytes of arguments,
    path.write_bytes(bytes(data))  # the dictionary's word and word-only counts: its labels
    with pytest.raises(InputError, match=r"labels\.bin: .*supervised"):
        _score(path, "fasttext-bin")


@pytest.mark.parametrize(
    ("oov", "said"),
    [
        ("zero", "their pairs are scored 0 (oov=zero); oov=skip leaves them unscored"),
        ("skip", "their pairs are left unscored (oov=skip); oov=zero scores them 0"),
    ],
)
def test_words_missing_from_the_file_are_counted_and_the_oov_option_named(
    tmp_path: Path, oov: str, said: str
) -> None:
    """Two of the four words asked (zebra, yak) are not in the file: the warning counts them,
    names the first and says what oov= does with their pairs and how to change it."""
    path = _text(tmp_path, ["3 3", *ROWS])
    measure = create_measure(f"vectors:path={path},oov={oov}")
    scores = measure.score_words([("cat", "dog"), ("zebra", "yak")])
    assert scores[0] == pytest.approx(0.6) and np.isnan(scores[1])
    (warning,) = measure.warnings()
    assert "2 of 4 words are not in its vocabulary (first: 'yak', 'zebra')" in warning
    assert said in warning


def test_no_vocabulary_warning_when_every_word_is_found(tmp_path: Path) -> None:
    measure = create_measure(f"vectors:path={_text(tmp_path, ['3 3', *ROWS])}")
    measure.score_words([("cat", "dog")])
    assert measure.warnings() == []


@pytest.mark.parametrize("scale", [1e20, 1e-30])
def test_huge_and_tiny_vectors_give_scipys_cosine(tmp_path: Path, scale: float) -> None:
    """Rows times 1e20 (squares overflow float32) or 1e-30 (squares underflow) scored 0 or
    NaN; the cosine does not depend on the scale, so it is scipy's on the float64 values."""
    from scipy.spatial.distance import cosine

    rows = {"cat": [1.0, 0.5, 0.0], "dog": [0.6, 0.8, 0.1], "car": [0.0, -0.2, 1.0]}
    lines = [f"{w} " + " ".join(repr(v * scale) for v in r) for w, r in rows.items()]
    path = _text(tmp_path, ["3 3", *lines])
    pairs = [("cat", "dog"), ("dog", "car"), ("cat", "car")]
    expected = [1 - cosine(np.array(rows[a]) * scale, np.array(rows[b]) * scale) for a, b in pairs]
    assert _score(path, "word2vec", pairs) == pytest.approx(expected, abs=1e-6)
