"""Every reader, fed random bytes, text in other encodings, truncated valid files and random
numeric strings, either returns or raises a documented simeval error (exit 2 on the command
line) — never another exception."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simeval.data.dictionaries import read_dictionary
from simeval.data.documents import read_collection
from simeval.data.pair_files import read_scored_pairs
from simeval.data.sts import read_sts_gold, read_sts_input, read_sts_output
from simeval.data.trec import read_qrels, read_run
from simeval.datasets.agreement import read_ratings
from simeval.errors import SimevalError
from simeval.registry import Registry
from simeval.results.items import read_items
from simeval.results.store import load_results

FUZZ = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

VALID = {  # a valid file of each format, to truncate and to re-encode
    "pairs": "word1,word2,sim\nкот,собака,0.5\ncar,auto,3.25\n",
    "sts_input": "A man plays.\tA man is playing.\nDogs run.\tCats sleep.\n",
    "sts_gold": "4.5\n\n1.0\n",
    "sts_output": "4.2\t90\n2.1\t80\n1.0\t70\n",
    "qrels": "q1 0 d1 1\nq2 0 d7 2\n",
    "run": "q1 Q0 d1 1 0.9 r\nq1 Q0 d2 2 0.8 r\nq2 X d7 Y 0.5 r\n",
    "results": '{"benchmark": "b", "task": "graded-pairs", "main_metric": "s", "metrics": {}}\n',
    "registry": '[benchmark.x]\nkind = "graded"\ngold = "g.csv"\n[suite.s]\nmembers = ["x"]\n',
    "ratings": "w1\tw2\tmean\tr1\tr2\na\tb\t5\t4\t6\nc\td\t2\t1\t3\n",
    "dictionary": "cat\tкошка\ndog\tсобака\n",
    "queries": '{"id": "q", "source": "s", "doc_id": "1", "text": "t", "split": "test"}\n',
}


def _sts_output(path: Path) -> object:
    return read_sts_output(path, 3)


def _registry(path: Path) -> object:
    (path.parent / "g.csv").write_text("a,b,1\n")
    registry = Registry.catalog()
    registry.add_file(path)
    return registry.load("x") if "x" in registry.entries else None


def _collection(path: Path) -> object:
    folder = path.parent / "coll"
    folder.mkdir(exist_ok=True)
    (folder / "queries.jsonl").write_bytes(path.read_bytes())
    (folder / "corpus.jsonl").write_text('{"id": "d", "source": "s", "doc_id": "1", "text": "u"}\n')
    (folder / "qrels.test").write_text("q 0 d 1\n")
    return read_collection(folder)


def _items(path: Path) -> object:
    import gzip

    gz = path.with_suffix(".gz")
    gz.write_bytes(gzip.compress(path.read_bytes()))
    return read_items(gz)


def _results(path: Path) -> object:
    path.rename(path.parent / "results.jsonl")
    return load_results(path.parent)


READERS: dict[str, Callable[[Path], object]] = {
    "pairs": lambda p: read_scored_pairs(p),
    "sts_input": read_sts_input,
    "sts_gold": read_sts_gold,
    "sts_output": _sts_output,
    "qrels": read_qrels,
    "run": read_run,
    "results": _results,
    "registry": _registry,
    "ratings": read_ratings,
    "dictionary": lambda p: read_dictionary(p, "tsv"),
    "queries": _collection,
    "items": _items,
}
VALID["items"] = "gold\tscore\tcounted\n1.0\t0.5\t1\n"


def _feed(reader: str, data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "input.txt"
        path.write_bytes(data)
        with contextlib.suppress(SimevalError):  # documented: the command line exits 2
            READERS[reader](path)


@pytest.mark.parametrize("reader", sorted(READERS))
@FUZZ
@given(data=st.binary(max_size=300))
def test_random_bytes(reader: str, data: bytes) -> None:
    _feed(reader, data)


@pytest.mark.parametrize("reader", sorted(READERS))
@FUZZ
@given(encoding=st.sampled_from(["utf-16", "cp1251", "latin-1", "utf-8-sig", "koi8-r"]))
def test_other_encodings(reader: str, encoding: str) -> None:
    _feed(reader, VALID[reader].encode(encoding, errors="replace"))


@pytest.mark.parametrize("reader", sorted(READERS))
@FUZZ
@given(cut=st.integers(min_value=0, max_value=400))
def test_truncated_files(reader: str, cut: int) -> None:
    data = VALID[reader].encode("utf-8")
    _feed(reader, data[: cut % (len(data) + 1)])


NUMBERS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.text(alphabet="0123456789+-.eE_xXnaifINF٣ ", max_size=12),
)


@pytest.mark.parametrize("reader", ["pairs", "sts_gold", "sts_output", "qrels", "run", "ratings"])
@FUZZ
@given(a=NUMBERS, b=NUMBERS)
def test_random_numeric_strings(reader: str, a: str, b: str) -> None:
    text = {
        "pairs": f"word1,word2,sim\nx,y,{a}\nz,w,{b}\n",
        "sts_gold": f"{a}\n{b}\n",
        "sts_output": f"{a}\t{b}\n1\n2\n",
        "qrels": f"q1 0 d1 {a}\nq1 0 d2 {b}\n",
        "run": f"q1 Q0 d1 1 {a} r\nq1 Q0 d2 2 {b} r\n",
        "ratings": f"w1\tw2\tmean\tr1\tr2\nx\ty\t1\t{a}\t{b}\nz\tw\t2\t3\t4\n",
    }[reader]
    _feed(reader, text.encode("utf-8"))
