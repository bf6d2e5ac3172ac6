"""Line and field caps of the line-based readers (issue 30, hole 10): a 10 MB field is an error
naming the file, the line and the cap, found without reading past the cap."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from simeval.data import textio
from simeval.data.pair_files import read_scored_pairs
from simeval.data.sts import read_sts_gold
from simeval.data.trec import read_qrels, read_run
from simeval.errors import InputError

BIG = 10_000_000  # a 10 MB field


def _run(tmp_path: Path, second: str) -> Path:
    path = tmp_path / "big.run"
    path.write_text(f"q1 Q0 d1 1 0.5 r\n{second}\nq2 Q0 d1 1 0.1 r\n")
    return path


@pytest.mark.parametrize(
    "second",
    [
        "q1 Q0 d2 2 " + "1" * BIG + " r",  # on main: minutes and gigabytes (a 10M-wide matrix)
        "q1 Q0 d2 2 0.4 " + "r" * BIG,  # on main: accepted silently as the run's name
        "q1 Q0 " + "d" * BIG + " 2 0.4 r",
    ],
    ids=["score", "runid", "docno"],
)
def test_run_with_a_10mb_field_is_refused_at_the_line_cap(tmp_path: Path, second: str) -> None:
    with pytest.raises(InputError) as caught:
        read_run(_run(tmp_path, second))
    error = caught.value
    assert error.path == str(tmp_path / "big.run") and error.line == 2
    assert f"{textio.MAX_LINE:,} bytes" in error.message and "SIMEVAL_MAX_LINE" in error.message


def test_raising_the_line_cap_leaves_the_number_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIMEVAL_MAX_LINE", str(2 * BIG))
    with pytest.raises(InputError) as caught:
        read_run(_run(tmp_path, "q1 Q0 d2 2 " + "1" * BIG + " r"))
    assert caught.value.line == 2 and "score (field 5)" in caught.value.message
    assert f"at most {textio.MAX_NUMBER} characters" in caught.value.message
    assert "(10,000,000 chars)" in caught.value.message  # quoted, not echoed whole


def test_a_raised_cap_reads_the_long_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _run(tmp_path, "q1 Q0 d2 2 0.4 " + "r" * (textio.MAX_LINE + 10))
    monkeypatch.setenv("SIMEVAL_MAX_LINE", str(2 * textio.MAX_LINE))
    run = read_run(path)
    assert len(run.qids) == 3


def test_iter_lines_stops_reading_at_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading stops once the cap is passed: the reader asks the file for at most cap + a few
    bytes at a time, never for the 10 MB line."""
    path = tmp_path / "gold.txt"
    path.write_bytes(b"1.0\n" + b"2" * BIG + b"\n3.0\n")
    reads: list[int] = []

    class Spy(io.BufferedReader):
        def readline(self, size: int | None = -1) -> bytes:  # type: ignore[override]
            line = super().readline(size)
            reads.append(len(line))
            return line

    monkeypatch.setattr(textio, "open_binary", lambda p: Spy(io.FileIO(p, "rb")))
    with pytest.raises(InputError) as caught:
        list(textio.iter_lines(path))
    assert caught.value.line == 2 and str(path) in str(caught.value)
    assert max(reads) <= textio.MAX_LINE + 5 and len(reads) == 2


@pytest.mark.parametrize(
    "reader, content",
    [
        (read_sts_gold, "1.0\n" + "x" * (textio.MAX_LINE + 1) + "\n"),
        (read_scored_pairs, "a,b,1\n" + "c,d," + "9" * (textio.MAX_LINE + 1) + "\n"),
    ],
    ids=["sts-gold", "pairs"],
)
def test_line_readers_share_the_cap(tmp_path: Path, reader, content: str) -> None:
    path = tmp_path / "file.txt"
    path.write_text(content)
    with pytest.raises(InputError, match="SIMEVAL_MAX_LINE") as caught:
        reader(path)
    assert caught.value.line == 2


@pytest.mark.parametrize(
    "reader, content, what",
    [
        (read_sts_gold, "1.0\n" + "1" * 5000 + "\n", "gold score"),
        (read_qrels, "q1 0 d1 1\nq1 0 d2 " + "2" * 5000 + "\n", "relevance (field 4)"),
    ],
    ids=["sts-gold", "qrels"],
)
def test_a_long_number_below_the_line_cap_is_named(
    tmp_path: Path, reader, content: str, what: str
) -> None:
    path = tmp_path / "file.txt"
    path.write_text(content)
    with pytest.raises(
        InputError, match=re.escape(f"{what}: expected a number of at most 64 characters")
    ) as caught:
        reader(path)
    assert caught.value.line == 2


def test_a_bad_cap_setting_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIMEVAL_MAX_LINE", "lots")
    path = tmp_path / "gold.txt"
    path.write_text("1.0\n")
    with pytest.raises(InputError, match="SIMEVAL_MAX_LINE='lots'"):
        read_sts_gold(path)


def test_dictionaries_and_line_aligned_documents_share_the_cap(tmp_path: Path) -> None:
    from simeval.data.dictionaries import read_dictionary
    from simeval.data.docpairs import read_marked_lines

    long = "w" * (textio.MAX_LINE + 1)
    dictionary = tmp_path / "ru-en.tsv"
    dictionary.write_text(f"кот\tcat\nпёс\t{long}\n")
    with pytest.raises(InputError, match="SIMEVAL_MAX_LINE") as caught:
        read_dictionary(dictionary, "tsv")
    assert caught.value.line == 2
    x, en = tmp_path / "x.txt", tmp_path / "en.txt"
    x.write_text("<d>\nein Satz\n")
    en.write_text(f"<d>\n{long}\n")
    with pytest.raises(InputError, match="SIMEVAL_MAX_LINE") as caught:
        read_marked_lines(x, en, "hand")
    assert caught.value.path == str(en) and caught.value.line == 2


def test_a_linking_folder_line_shares_the_cap(tmp_path: Path) -> None:
    from simeval.data.documents import read_collection

    text = "t" * (textio.MAX_LINE + 1)
    row = {"id": "q", "source": "s", "doc_id": "1", "text": text, "split": "test"}
    (tmp_path / "queries.jsonl").write_text(json.dumps(row) + "\n")
    (tmp_path / "corpus.jsonl").write_text(
        '{"id": "d", "source": "s", "doc_id": "1", "text": "u"}\n'
    )
    (tmp_path / "qrels.test").write_text("q 0 d 1\n")
    with pytest.raises(InputError, match="SIMEVAL_MAX_LINE") as caught:
        read_collection(tmp_path)
    assert caught.value.path == str(tmp_path / "queries.jsonl") and caught.value.line == 1


def test_an_archive_member_shares_the_cap(tmp_path: Path) -> None:
    """The zh-en Wikipedia TSV is read from its archive line by line, under the same cap; a
    missing member is named (on main: a KeyError traceback)."""
    import tarfile

    from simeval.data.docpairs import read_wiki_tsv

    member = tmp_path / "part.zh-en"
    member.write_text(
        "p\ts\ts\t中文\tChinese\np\ts\ts\t中文\t" + "e" * (textio.MAX_LINE + 1) + "\n"
    )
    archive = tmp_path / "zh-en.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(member, arcname="zh-en/part.zh-en")
    with pytest.raises(InputError, match="SIMEVAL_MAX_LINE") as caught:
        read_wiki_tsv(archive, "zh-en/part.zh-en", "wiki")
    assert caught.value.path == f"{archive}:zh-en/part.zh-en" and caught.value.line == 2
    with pytest.raises(InputError, match="no member zh-en/other"):
        read_wiki_tsv(archive, "zh-en/other", "wiki")
