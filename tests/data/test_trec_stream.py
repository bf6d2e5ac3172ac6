"""The TREC reader streams (issue 30, hole 10): its memory follows the rows it keeps, not the
bytes it reads, and a line past the cap is refused before the file is read whole. Block
boundaries change neither the rows nor the line an error names."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from simeval.data import trec
from simeval.data.trec import read_qrels, read_run
from simeval.errors import InputError

MB = 1_000_000


def _peak(read: Callable[[], object]) -> float:
    """Peak bytes traced (numpy's arrays included) while ``read`` runs, in MB."""
    tracemalloc.start()
    try:
        read()
        return tracemalloc.get_traced_memory()[1] / MB
    finally:
        tracemalloc.stop()


def test_a_run_of_long_lines_costs_its_rows_not_its_bytes(tmp_path: Path) -> None:
    """20,000 rows of ~1 KB each (a long run name, which is not kept): a 20 MB file whose rows
    take well under 1 MB. On main the whole file and its field arrays were held: ~80 MB."""
    path = tmp_path / "run.txt"
    name = "r" * 1000
    path.write_text("".join(f"q{i % 500} Q0 d{i} 1 {i % 7}.5 {name}\n" for i in range(20_000)))
    assert path.stat().st_size > 20 * MB
    result: list[trec.Run] = []
    peak = _peak(lambda: result.append(read_run(path)))
    assert len(result[0].scores) == 20_000 and result[0].scores[8] == 1.5
    assert peak < 12, f"{peak:.1f} MB traced reading a 20 MB run of 20,000 rows"


def test_an_endless_line_is_refused_at_the_cap_without_reading_it_whole(tmp_path: Path) -> None:
    """20 MB without a line end: refused naming line 1 once the cap (1 MiB) is passed. On main
    the 20 MB were read first (and copied): ~40 MB."""
    path = tmp_path / "run.txt"
    path.write_bytes(b"q1 Q0 " + b"x" * 20 * MB)
    refused: list[InputError] = []

    def read() -> None:
        try:
            read_run(path)
        except InputError as error:
            refused.append(error)

    peak = _peak(read)
    assert refused and refused[0].line == 1 and "line longer than" in refused[0].message
    assert peak < 8, f"{peak:.1f} MB traced refusing a 20 MB line"


def _rows(n: int) -> list[str]:
    return [f"q{i % 7} Q0 doc{i} {i} {i % 5}.25 run\n" for i in range(n)]


@pytest.mark.parametrize("block", [16, 64, 1000])
def test_blocks_give_the_rows_of_one_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    """Read in blocks of a few lines (a BOM, blank lines, CRLF, no final line end): the same
    rows, line numbers and run name as written."""
    path = tmp_path / "run.txt"
    rows = _rows(200)
    text = "\ufeff" + "\r\n".join(r.rstrip("\n") for r in rows[:100]) + "\n\n  \n"
    text += "".join(rows[100:]).rstrip("\n")
    path.write_text(text, encoding="utf-8")
    monkeypatch.setattr(trec, "BLOCK", block)
    run = read_run(path)
    assert run.name == "run"
    assert run.docnos.tolist() == [f"doc{i}".encode() for i in range(200)]
    assert run.scores.tolist() == [(i % 5) + 0.25 for i in range(200)]
    assert run.lines.tolist() == list(range(1, 101)) + list(range(103, 203))


@pytest.mark.parametrize(
    "bad, message",
    [
        ("q1 Q0 d 1 nan run", "score (field 5): expected a decimal number, got 'nan'"),
        ("q1 Q0 d 1 0.5", "expected 6 fields"),
        ("q1 Q0 d\x00 1 0.5 run", "NUL"),
        ("q3 Q0 doc3 1 0.5 run", "document doc3 retrieved twice for query q3"),
    ],
)
def test_an_error_in_a_later_block_names_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bad: str, message: str
) -> None:
    rows = _rows(100)
    rows[57] = bad + "\n"  # line 58
    path = tmp_path / "run.txt"
    path.write_text("".join(rows), encoding="utf-8")
    monkeypatch.setattr(trec, "BLOCK", 64)
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")) as e:
        read_run(path)
    assert e.value.line == 58


def test_bad_utf8_in_a_later_block_names_its_line_and_offset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [f"q{i} 0 d{i} 1\n".encode() for i in range(50)]
    lines[30] = "q30 0 док 1\n".encode("cp1251")
    path = tmp_path / "qrels.txt"
    path.write_bytes(b"".join(lines))
    monkeypatch.setattr(trec, "BLOCK", 32)
    with pytest.raises(InputError, match="not valid UTF-8") as e:
        read_qrels(path)
    offset = sum(len(x) for x in lines[:30]) + len(b"q30 0 ")
    assert e.value.line == 31 and f"at offset {offset})" in str(e.value)


def test_qrels_in_blocks_keep_every_judgement(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "qrels.txt"
    path.write_text("".join(f"q{i % 3} 0 d{i} {i % 4 - 1}\n" for i in range(90)))
    monkeypatch.setattr(trec, "BLOCK", 50)
    qrels = read_qrels(path)
    assert np.array_equal(qrels.relevance, [i % 4 - 1 for i in range(90)])
    assert qrels.lines.tolist() == list(range(1, 91))
