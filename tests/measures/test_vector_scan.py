"""The text scan's edges (issue 35, P1 against ``wc -l``): the scan finds lines by memchr and
compares words a batch at a time by a numpy key of their first 16 bytes, then parses the kept
rows' numbers in one numpy call. Each test compares what it keeps (words, vectors bit for bit,
first occurrence of a repeated word, rows counted) with a plain Python reading of the same
bytes written here: split at line ends, the word up to the first space, ``float32`` of each
number. Each test runs twice: the kept rows' numbers read by pyarrow (issue 48), and by
numpy alone, as where pyarrow is not installed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simeval.errors import InputError
from simeval.measures import vectors
from simeval.measures.vectors import Wanted, scan_text


@pytest.fixture(autouse=True, params=["pyarrow", "numpy"])
def reader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Which parser reads the kept rows' numbers: pyarrow from the first number on, or numpy
    (pyarrow not installed)."""
    if request.param == "pyarrow":
        pytest.importorskip("pyarrow")
        monkeypatch.setattr(vectors, "ARROW_FROM", 0)
    else:
        monkeypatch.setattr(vectors, "_arrow", lambda: None)
    return request.param


LONG = "a" * 16  # exactly the key's width
WORDS = ["cat", "cats", "ca", LONG, LONG + "b", LONG[:15], "ёж", "ёжик", "x" * 40, "x" * 41]


def reference(data: bytes, header: bool, wanted: set[bytes]) -> tuple[dict, int]:
    """Kept words -> vector (first occurrence), and the number of rows, read plainly."""
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    rows = lines[1:] if header else lines
    kept: dict[str, np.ndarray] = {}
    for line in rows:
        word, _, rest = line.partition(b" ")
        if word in wanted:
            text = word.decode("utf-8").rstrip("\r")
            kept.setdefault(text, np.array([float(x) for x in rest.split()], dtype=np.float32))
    return kept, len(rows)


def check(path: Path, header: bool, wanted_words: list[str]) -> None:
    wanted = {w.encode("utf-8") for w in wanted_words}
    expected, count = reference(path.read_bytes(), header, wanted)
    vocab = scan_text(path, header, Wanted(wanted, None))
    assert vocab.file_words == count
    assert set(vocab.exact) == set(expected)
    for word, vector in expected.items():
        got = vocab.rows[vocab.exact[word]]
        assert got.dtype == np.float32
        assert got.tobytes() == vector.tobytes(), word


def rows(words: list[str], dim: int = 3, seed: int = 0) -> list[str]:
    rng = np.random.default_rng(seed)
    return [w + " " + " ".join(repr(float(x)) for x in rng.normal(size=dim)) for w in words]


def write(tmp_path: Path, lines: list[str], end: str = "\n", last: bool = True) -> Path:
    path = tmp_path / "v.vec"
    path.write_bytes((end.join(lines) + (end if last else "")).encode("utf-8"))
    return path


@pytest.mark.parametrize("header", [True, False])
@pytest.mark.parametrize("wanted", [["cat"], ["cats"], [LONG], [LONG + "b"], WORDS, ["x" * 41]])
def test_a_word_that_is_a_prefix_of_another_is_told_apart(
    tmp_path: Path, header: bool, wanted: list[str]
) -> None:
    body = rows([*WORDS, "caterpillar", LONG + "c", "x" * 42])
    path = write(tmp_path, ([f"{len(body)} 3"] if header else []) + body)
    check(path, header, wanted)


@pytest.mark.parametrize("last_word", ["cat", "cats", LONG + "b"])
def test_a_last_line_without_a_line_end_is_read(tmp_path: Path, last_word: str) -> None:
    body = rows(["dog", "ca", last_word])
    path = write(tmp_path, ["3 3", *body], last=False)
    check(path, True, ["cat", "cats", "ca", LONG + "b"])
    assert scan_text(path, True, Wanted({last_word.encode()}, None)).exact == {last_word: 0}


def test_a_last_line_of_a_word_alone_is_a_row(tmp_path: Path) -> None:
    path = write(tmp_path, [*rows(["dog", "cat"]), "cat"], last=False)
    check(path, False, ["dog"])
    assert scan_text(path, False, Wanted({b"dog"}, None)).file_words == 3


def test_crlf_lines_keep_their_words_and_numbers(tmp_path: Path) -> None:
    path = write(tmp_path, ["4 3", *rows(["cat", "ёж", LONG, "cats"])], end="\r\n")
    check(path, True, ["cat", "ёж", LONG, "cats"])


def test_a_repeated_word_keeps_its_first_vector(tmp_path: Path) -> None:
    body = rows(["cat", "dog", "cat", "cat"], seed=1)
    path = write(tmp_path, ["4 3", *body])
    check(path, True, ["cat", "dog"])
    vocab = scan_text(path, True, Wanted({b"cat", b"dog"}, None))
    assert [(w, a, b) for w, a, b in vocab.duplicates] == [("cat", 2, 4), ("cat", 2, 5)]


def test_empty_lines_and_tabs_count_as_the_plain_reading_does(tmp_path: Path) -> None:
    cat, dog = rows(["cat", "dog"])
    dog = dog.replace(" ", "\t").replace("\t", " ", 1)  # tabs between the numbers
    path = write(tmp_path, [cat, "", dog, "dog\t1 2 3", "ca 1 2 3", ""])
    check(path, False, ["cat", "dog", "ca"])


def test_batches_and_a_line_longer_than_a_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Batches of 64 bytes: most lines cross a batch's end, some are longer than a batch;
    kept rows parsed three at a time."""
    monkeypatch.setattr(vectors, "CHUNK", 64)
    monkeypatch.setattr(vectors, "PARSED_AT_ONCE", 3)
    words = [f"w{i}" for i in range(200)]
    body = rows(words, dim=20, seed=2)
    path = write(tmp_path, ["200 20", *body], last=False)
    check(path, True, [*words[::7], "w199", "w0"])


@pytest.mark.parametrize("at_once", [1, 2, 4096])
def test_a_kept_row_with_a_wrong_count_names_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, at_once: int
) -> None:
    monkeypatch.setattr(vectors, "PARSED_AT_ONCE", at_once)
    body = rows(["cat", "dog", "car", "cow"])
    body[2] = body[2].rsplit(" ", 1)[0]
    body[3] += " 1"
    path = write(tmp_path, ["4 3", *body])
    with pytest.raises(InputError, match=r"v\.vec:4: expected 3 numbers after the word, got 2"):
        scan_text(path, True, Wanted({b"cat", b"car", b"cow"}, None))


@pytest.mark.parametrize(
    ("number", "message"), [("1x", "expected numbers"), ("nan", "expected finite numbers")]
)
def test_a_kept_row_with_a_bad_number_names_its_line(
    tmp_path: Path, number: str, message: str
) -> None:
    path = write(tmp_path, ["3 3", *rows(["cat", "dog"]), f"car 1 {number} 2"])
    with pytest.raises(InputError, match=rf"v\.vec:4: {message}"):
        scan_text(path, True, Wanted({b"cat", b"car"}, None))


def test_numbers_written_every_way_read_as_numpy_reads_each_row(tmp_path: Path) -> None:
    # "7_0", which numpy reads as 70, is refused as the pair readers refuse it (issue 44:
    # tests/data/test_numbers.py)
    numbers = ["1", "-0", "+2.5", ".5", "5.", "1e-3", "1E+3", "3.4028234e38", "1e-46", "70"]
    path = write(tmp_path, [f"cat {' '.join(numbers)}", "dog " + " ".join(["1"] * 10)])
    check(path, False, ["cat", "dog"])


def test_progress_counts_every_byte_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vectors, "CHUNK", 50)
    path = write(tmp_path, ["3 3", *rows(["cat", "dog", "car"])], last=False)
    seen: list[int] = []
    scan_text(path, True, Wanted({b"dog"}, None), seen.append)
    assert sum(seen) == path.stat().st_size
    assert all(n > 0 for n in seen)


def test_kept_rows_far_apart_are_parsed_together(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Kept rows found in many chunks are parsed in one call, not one a chunk: a parser's
    cost is per call (and pyarrow is worth importing only for many numbers at once)."""
    monkeypatch.setattr(vectors, "CHUNK", 256)
    words = [f"w{i}" for i in range(400)]
    path = write(tmp_path, ["400 20", *rows(words, dim=20, seed=3)])
    calls: list[int] = []
    parse = vectors._parse_joined
    monkeypatch.setattr(
        vectors, "_parse_joined", lambda p, r, d: calls.append(len(r)) or parse(p, r, d)
    )
    check(path, True, words[::10])
    assert calls == [40]
