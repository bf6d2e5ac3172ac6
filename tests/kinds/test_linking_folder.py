"""Linking folders made by hand (issue 30, hole 2): several relevant documents a query and
relevance 0 evaluated as trec_eval does (pytrec_eval is the reference), and every
inconsistency between the qrels and the JSON lines an error naming the file and the line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simeval.errors import InputError
from simeval.registry.loaders import from_path

pytrec_eval = pytest.importorskip("pytrec_eval")

CORPUS = [{"id": f"d{i}", "source": "hand", "doc_id": str(i), "text": f"doc {i}"} for i in range(5)]
QUERIES = [
    {"id": "q1", "source": "hand", "doc_id": "1", "text": "one", "split": "test"},
    {"id": "q2", "source": "hand", "doc_id": "2", "text": "two", "split": "test"},
    {"id": "q3", "source": "hand", "doc_id": "3", "text": "three", "split": "test"},
    {"id": "t1", "source": "hand", "doc_id": "4", "text": "four", "split": "train"},
]
# q1 has two relevant documents; q2 judges d3 non-relevant (0) and d4 relevant; q3's only
# judgement is 0; the train query t1 has two relevant documents
QRELS_TEST = "q1 0 d1 1\nq1 0 d2 1\nq2 0 d3 0\nq2 0 d4 1\nq3 0 d0 0\n"
QRELS_TRAIN = "t1 0 d0 1\nt1 0 d3 1\n"
RUN = [
    ("q1", "d3", 0.9),
    ("q1", "d1", 0.8),
    ("q1", "d2", 0.7),
    ("q2", "d3", 0.6),
    ("q2", "d0", 0.55),
    ("q2", "d4", 0.5),
    ("q3", "d0", 0.4),
]


def _jsonl(rows: list[dict]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def _folder(
    tmp_path: Path,
    queries: str | None = None,
    corpus: str | None = None,
    qrels_test: str = QRELS_TEST,
    qrels_train: str = QRELS_TRAIN,
) -> Path:
    folder = tmp_path / "links"
    folder.mkdir(exist_ok=True)
    (folder / "queries.jsonl").write_text(queries if queries is not None else _jsonl(QUERIES))
    (folder / "corpus.jsonl").write_text(corpus if corpus is not None else _jsonl(CORPUS))
    (folder / "qrels.test").write_text(qrels_test)
    (folder / "qrels.train").write_text(qrels_train)
    return folder


ONLY_RELEVANT = "q1 0 d1 1\nq1 0 d2 1\nq2 0 d4 1\nq3 0 d0 1\n"


@pytest.mark.parametrize("judged", [QRELS_TEST, ONLY_RELEVANT], ids=["with-0", "relevant-only"])
def test_several_relevant_documents_and_relevance_0_as_trec_eval(
    tmp_path: Path, judged: str
) -> None:
    """On main: with relevance-0 lines, KeyError; without, q1 kept only d2 (its last relevant
    document), so its reciprocal rank came out 1/3 instead of 1/2."""
    folder = _folder(tmp_path, qrels_test=judged)
    run_path = tmp_path / "x.run"
    run_path.write_text("".join(f"{q} Q0 {d} {i} {s} r\n" for i, (q, d, s) in enumerate(RUN)))
    bench = from_path(folder)
    aligned = bench.align(bench.read_submission(run_path))

    qrels: dict[str, dict[str, int]] = {}
    for line in judged.splitlines():
        q, _, d, r = line.split()
        qrels.setdefault(q, {})[d] = int(r)
    run: dict[str, dict[str, float]] = {}
    for q, d, s in RUN:
        run.setdefault(q, {})[d] = s
    measures = {"recip_rank", "success", "num_rel", "num_rel_ret"}
    expected = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)

    got = {q: i for i, q in enumerate(aligned.items["qid"].tolist())}
    assert set(got) == set(expected)
    for q, values in expected.items():
        row = got[q]
        assert aligned.items["recip_rank"][row] == pytest.approx(values["recip_rank"])
        assert aligned.items["success_1"][row] == pytest.approx(values["success_1"])
        assert aligned.items["success_5"][row] == pytest.approx(values["success_5"])
        assert aligned.items["num_rel"][row] == values["num_rel"]
    # by hand: q1's first relevant document is at rank 2 (d2), both of its documents count
    assert aligned.items["recip_rank"][got["q1"]] == pytest.approx(0.5)
    assert aligned.items["num_rel"][got["q1"]] == 2


def test_a_train_query_trains_on_each_relevant_document(tmp_path: Path) -> None:
    bench = from_path(_folder(tmp_path))
    request = bench.request().data
    assert list(request.train_queries) == ["four", "four"]
    assert request.train_gold.tolist() == [0, 3]  # d0 and d3, their corpus positions


@pytest.mark.parametrize(
    "qrels, line, needle",
    [
        (QRELS_TEST + "q1 0 d9 1\n", 6, "document 'd9' is not in corpus.jsonl"),
        (QRELS_TEST + "qx 0 d1 1\n", 6, "query 'qx' is not in queries.jsonl"),
        (QRELS_TEST + "t1 0 d1 1\n", 6, "query 't1' is a train query"),
    ],
    ids=["unknown-document", "unknown-query", "wrong-split"],
)
def test_qrels_naming_what_is_not_there(tmp_path: Path, qrels: str, line: int, needle: str) -> None:
    folder = _folder(tmp_path, qrels_test=qrels)
    with pytest.raises(InputError) as caught:
        from_path(folder)
    assert caught.value.path == str(folder / "qrels.test") and caught.value.line == line
    assert needle in caught.value.message


def test_a_query_without_qrels(tmp_path: Path) -> None:
    folder = _folder(tmp_path, qrels_test="q1 0 d1 1\nq3 0 d0 0\n")
    with pytest.raises(InputError) as caught:
        from_path(folder)
    assert caught.value.path == str(folder / "queries.jsonl") and caught.value.line == 2
    assert "'q2'" in caught.value.message and "qrels.test" in caught.value.message


@pytest.mark.parametrize(
    "key, value, expected",
    [("text", None, "null"), ("id", None, "null"), ("source", [1], "[1]"), ("split", 3, "3")],
)
def test_a_non_string_field_is_refused(
    tmp_path: Path, key: str, value: object, expected: str
) -> None:
    """On main a JSON null became the text "None"."""
    rows = [dict(q) for q in QUERIES]
    rows[2][key] = value
    folder = _folder(tmp_path, queries=_jsonl(rows))
    with pytest.raises(InputError) as caught:
        from_path(folder)
    assert caught.value.path == str(folder / "queries.jsonl") and caught.value.line == 3
    assert f"key {key!r}: expected a string, got {expected}" in caught.value.message


def test_a_missing_key_and_a_duplicate_id(tmp_path: Path) -> None:
    rows = [dict(d) for d in CORPUS]
    del rows[1]["text"]
    folder = _folder(tmp_path, corpus=_jsonl(rows))
    with pytest.raises(InputError, match="key 'text' is missing") as caught:
        from_path(folder)
    assert caught.value.line == 2
    folder = _folder(tmp_path, corpus=_jsonl([*CORPUS, CORPUS[0]]))
    with pytest.raises(InputError, match="id 'd0' given twice") as caught:
        from_path(folder)
    assert caught.value.path == str(folder / "corpus.jsonl") and caught.value.line == 6


def test_integer_ids_read_as_their_digits(tmp_path: Path) -> None:
    corpus = [{**d, "id": i} for i, d in enumerate(CORPUS)]
    qrels = "q1 0 1 1\nq2 0 4 1\nq3 0 0 1\n"
    folder = _folder(tmp_path, corpus=_jsonl(corpus), qrels_test=qrels, qrels_train="t1 0 0 1\n")
    bench = from_path(folder)
    assert [d.id for d in bench.collection.corpus] == ["0", "1", "2", "3", "4"]


@pytest.mark.parametrize("documents", [True, False], ids=["with-documents", "qrels-only"])
def test_two_test_qrels_files_are_refused(tmp_path: Path, documents: bool) -> None:
    """On main ``qrels.test`` won and ``qrels`` beside it was ignored without a word."""
    folder = _folder(tmp_path)
    (folder / "qrels").write_text("q1 0 d0 1\nq2 0 d0 1\nq3 0 d0 1\n")
    if not documents:
        (folder / "queries.jsonl").unlink()
    with pytest.raises(InputError, match=r"a second test qrels beside qrels\.test") as caught:
        from_path(folder)
    assert caught.value.path == str(folder / "qrels")


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ('{ lang = "de", foo = 1 }', "options: unknown key(s) ['foo']; expected lang, halves"),
        ("{ halves = true }", "options: 'lang' is missing"),
        ('{ lang = "de", halves = "yes" }', "options: 'halves' must be true or false"),
    ],
)
def test_a_builder_entry_with_bad_options(tmp_path: Path, options: str, needle: str) -> None:
    """On main an unknown or missing option was a TypeError; ``halves = "yes"`` built the hard
    collection."""
    from typer.testing import CliRunner

    from simeval.cli import app

    toml = tmp_path / "reg.toml"
    toml.write_text(f'[benchmark.mine]\nkind = "linking"\nbuilder = "bucc"\noptions = {options}\n')
    made = CliRunner().invoke(app, ["evaluate", "overlap", "-b", "mine", "--registry", str(toml)])
    assert made.exit_code == 2, made.output
    assert needle in made.output and "reg.toml" in made.output, made.output


def test_a_lone_surrogate_escape_is_refused(tmp_path: Path) -> None:
    """On main the JSON escape ``\\ud800`` was read, and writing the result's items crashed
    with a UnicodeEncodeError."""
    rows = [dict(q) for q in QUERIES]
    rows[1]["text"] = "two \ud800"
    folder = _folder(tmp_path, queries=_jsonl(rows))
    with pytest.raises(InputError, match="key 'text': a lone surrogate escape") as caught:
        from_path(folder)
    assert caught.value.path == str(folder / "queries.jsonl") and caught.value.line == 2
