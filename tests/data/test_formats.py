"""File readers: exact behaviour on hand-made fixtures, and fuzzing (only InputError comes out,
naming the file and a real line)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simeval.data.pairs import read_pair_table, read_scored_pairs, write_pairs
from simeval.data.sts import read_sts_gold, read_sts_input, read_sts_output
from simeval.data.trec import read_qrels, read_run
from simeval.errors import InputError

READERS = {
    "pairs": read_scored_pairs,
    "pair_table": read_pair_table,
    "sts_input": read_sts_input,
    "sts_gold": read_sts_gold,
    "sts_output": read_sts_output,
    "run": read_run,
    "qrels": read_qrels,
}
SAMPLES = {
    "pairs": 'word1,word2,sim\nкот,кошка,0.9\n"a,b",c,0.1\n',
    "pair_table": "a\tb\t1\nc\td\t2\n",
    "sts_input": "A man runs.\tA man is running.\nHi\tHello\n",
    "sts_gold": "4.0\n\n3.2\n",
    "sts_output": "4.1\t90\n2.0\t10\n",
    "run": "q1 Q0 d1 1 0.5 r\nq1 Q0 d2 2 0.4 r\n",
    "qrels": "q1 0 d1 1\nq2 0 d3 0\n",
}


def test_bom_crlf_and_header_detection(tmp_path: Path) -> None:
    f = tmp_path / "p.csv"
    f.write_bytes(b"\xef\xbb\xbfword1,word2,sim,usim\r\n\xd0\xba\xd0\xbe\xd1\x82,b,1,0.25\r\n")
    p = read_scored_pairs(f, "usim")
    assert p.pairs == [("кот", "b")] and p.scores.tolist() == [0.25]
    assert p.columns == {"sim": ["1"]} and p.lines.tolist() == [2]
    g = tmp_path / "g.txt"
    g.write_text("tiger cat 7.35\nbook paper 7.46\n")  # no header, space separated
    assert read_scored_pairs(g).scores.tolist() == [7.35, 7.46]


def test_simlex_metadata_kept(data_dir: Path) -> None:
    p = read_scored_pairs(data_dir / "simlex999" / "SimLex-999.txt", "SimLex999")
    assert len(p) == 999 and p.pairs[0] == ("old", "new") and p.scores[0] == 1.58
    assert p.columns["POS"].count("N") == 666 and p.columns["POS"].count("V") == 222
    assert p.columns["SimAssoc333"].count("1") == 333


def test_write_read_round_trip(tmp_path: Path) -> None:
    pairs = [("кот", "кошка"), ("a,b", "c")]
    scores = np.array([1 / 3, np.nan])
    f = tmp_path / "out.csv"
    write_pairs(f, pairs, scores)
    back = read_scored_pairs(f)
    assert back.pairs == pairs and back.scores[0] == 1 / 3 and np.isnan(back.scores[1])


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"word1,word2,sim\na,b,0.5\na,c\n", ":3: expected 3 fields"),
        (b"word1,word2,sim\na,b,high\n", ":2: sim: expected a decimal number, got 'high'"),
        (b"word1,word2,sim\na,b,NaN\n", ":2: sim: expected a decimal number, got 'NaN'"),
        (b"word1,word2,sim\na,b,0.5\na,b,0.6\n", ":3: pair 'a','b' given twice with different"),
        (b"word1,word2,sim\n\xcf\xf0\xe8,b,1\n", ":2: not valid UTF-8"),
        (b"", "empty file"),
    ],
)
def test_pair_errors_name_file_and_line(tmp_path: Path, content: bytes, message: str) -> None:
    f = tmp_path / "bad.csv"
    f.write_bytes(content)
    with pytest.raises(InputError) as info:
        read_scored_pairs(f)
    assert str(info.value).startswith(str(f)) and message in str(info.value)


def _check_reader(kind: str, data: bytes) -> None:
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / f"input.{kind}"
        f.write_bytes(data)
        try:
            READERS[kind](f)
        except InputError as exc:
            assert exc.path == str(f)
            assert str(exc).startswith(str(f))
            if exc.line is not None:
                assert 1 <= exc.line <= data.count(b"\n") + 1


def _mutations(sample: str) -> st.SearchStrategy[bytes]:
    raw = sample.encode("utf-8")
    return st.one_of(
        st.binary(max_size=200),
        st.integers(0, len(raw)).map(lambda i: raw[:i]),  # truncated
        st.tuples(st.integers(0, len(raw)), st.binary(min_size=1, max_size=8)).map(
            lambda t: raw[: t[0]] + t[1] + raw[t[0] :]
        ),  # bytes inserted
        st.sampled_from(["utf-16", "cp1251", "utf-8-sig"]).map(
            lambda enc: sample.encode(enc, errors="replace")
        ),  # other encodings
        st.text(alphabet=st.sampled_from(list(' \t\r\n,.0123456789-eEnaifx"кQ')), max_size=120).map(
            lambda t: t.encode("utf-8")
        ),
    )


@pytest.mark.parametrize("kind", sorted(READERS))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fuzz_readers_raise_only_input_error(kind: str, data: st.DataObject) -> None:
    _check_reader(kind, data.draw(_mutations(SAMPLES[kind])))
