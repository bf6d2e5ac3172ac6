"""TREC scoring against pytrec_eval, and the tie order by hand."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval
from typer.testing import CliRunner

from simeval.cli import app
from simeval.data.trec import read_qrels, read_run, write_qrels, write_run
from simeval.errors import InputError
from simeval.metrics import evaluate_trec

runner = CliRunner()
MEASURES = ("success_1", "success_5", "recip_rank", "num_ret", "num_rel", "num_rel_ret")


def random_collection(seed: int, n_queries: int = 400):
    r = np.random.default_rng(seed)
    run, qrels = [], []
    for q in range(n_queries):
        docs = r.choice(60, size=r.integers(1, 15), replace=False)
        for d in docs:  # scores from 3 values: many ties
            run.append((f"q{q}", f"d{d}", float(r.integers(0, 3)) / 2))
        if q % 9:
            for d in r.choice(60, size=r.integers(1, 4), replace=False):
                qrels.append((f"q{q}", f"d{d}", int(r.integers(0, 3))))
    for q in range(n_queries, n_queries + 20):  # judged queries absent from the run
        qrels.append((f"q{q}", "d1", 1))
    return run, qrels


@pytest.mark.parametrize("seed", range(4))
def test_matches_pytrec_eval(seed: int) -> None:
    run, qrels = random_collection(seed)
    ours = evaluate_trec(*zip(*run, strict=True), *zip(*qrels, strict=True))
    run_d, qrels_d = as_dicts(run, qrels)
    theirs = pytrec_eval.RelevanceEvaluator(
        qrels_d, {"success", "recip_rank", "num_ret", "num_rel", "num_rel_ret"}
    ).evaluate(run_d)
    assert sorted(theirs) == sorted(ours.qids.tolist())
    for m in MEASURES:
        mine = dict(zip(ours.qids.tolist(), ours.per_query[m], strict=True))
        for q, values in theirs.items():
            assert mine[q] == pytest.approx(values[m], abs=1e-12), (m, q)
        ref = [v[m] for v in theirs.values()]
        expected = float(np.sum(ref)) if m.startswith("num") else float(np.mean(ref))
        assert ours.aggregates[m] == pytest.approx(expected, abs=1e-12)
    assert ours.aggregates["num_q"] == len(theirs)


# trec_eval's measures beyond success and recip_rank, as pytrec_eval names them: map, Rprec and
# P, recall and ndcg_cut at trec_eval's default cut-offs
CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RANKED = (
    "map",
    "Rprec",
    *(f"{m}_{k}" for m in ("P", "recall", "ndcg_cut") for k in CUTOFFS),
)


def as_dicts(run, qrels) -> tuple[dict, dict]:
    """A run and qrels as pytrec_eval reads them: {query: {doc: value}}."""
    run_d: dict = {}
    qrels_d: dict = {}
    for q, d, s in run:
        run_d.setdefault(q, {})[d] = s
    for q, d, rel in qrels:
        qrels_d.setdefault(q, {})[d] = rel
    return run_d, qrels_d


@pytest.mark.parametrize("complete", [False, True], ids=["judged-in-run", "complete"])
@pytest.mark.parametrize("seed", range(4))
def test_map_ndcg_precision_recall_rprec_match_pytrec_eval(seed: int, complete: bool) -> None:
    # Scores from 3 values (many ties, broken by docno), relevance 0..2: nDCG takes the graded
    # gain, the others count relevance >= 1. Deeper lists than random_collection's, so that
    # P_15..P_30 and the ndcg cut-offs past 10 differ from the shallower ones.
    r = np.random.default_rng(100 + seed)
    run, qrels = random_collection(seed)
    for q in range(30):
        qid = f"deep{q}"
        for d in r.choice(400, size=int(r.integers(20, 120)), replace=False):
            run.append((qid, f"d{d}", float(r.integers(0, 3))))
        for d in r.choice(400, size=int(r.integers(1, 60)), replace=False):
            qrels.append((qid, f"d{d}", int(r.integers(0, 3))))
    ours = evaluate_trec(*zip(*run, strict=True), *zip(*qrels, strict=True), complete=complete)
    run_d, qrels_d = as_dicts(run, qrels)
    theirs = pytrec_eval.RelevanceEvaluator(
        qrels_d, {"map", "Rprec", "P", "recall", "ndcg_cut"}
    ).evaluate(run_d)
    judged_absent = sorted(set(qrels_d) - set(run_d))
    expected_qids = sorted(theirs) + (judged_absent if complete else [])
    assert sorted(ours.qids.tolist()) == sorted(expected_qids)
    for m in RANKED:
        mine = dict(zip(ours.qids.tolist(), ours.per_query[m], strict=True))
        for q, values in theirs.items():
            assert mine[q] == pytest.approx(values[m], abs=1e-12), (m, q)
        for q in judged_absent if complete else ():
            assert mine[q] == 0.0, (m, q)  # trec_eval -c: a judged query without results
        expected = float(np.sum([v[m] for v in theirs.values()])) / len(expected_qids)
        assert ours.aggregates[m] == pytest.approx(expected, abs=1e-12), m
    # the measures differ from one another on these runs: a mix-up of two would show
    assert len({round(ours.aggregates[m], 9) for m in RANKED}) > 20


def test_relevance_level_two_matches_pytrec_eval() -> None:
    # trec_eval -l 2: only relevance 2 is relevant for every measure but nDCG, which keeps its
    # graded gain (1 still counts there).
    run, qrels = random_collection(5, 120)
    ours = evaluate_trec(*zip(*run, strict=True), *zip(*qrels, strict=True), relevance_level=2)
    run_d, qrels_d = as_dicts(run, qrels)
    theirs = pytrec_eval.RelevanceEvaluator(
        qrels_d, {"recip_rank", "success", "map", "Rprec", "P", "recall", "ndcg_cut",
                  "num_ret", "num_rel", "num_rel_ret"}, relevance_level=2,
    ).evaluate(run_d)  # fmt: skip
    by_q = {q: i for i, q in enumerate(ours.qids.tolist())}
    for q, values in theirs.items():
        for m in (*MEASURES, *RANKED):
            assert ours.per_query[m][by_q[q]] == pytest.approx(values[m], abs=1e-12), (m, q)


def test_relevance_level_zero_counts_judged_documents_only() -> None:
    # trec_eval -l 0 (pytrec_eval refuses a level below 1): a document judged 0 is relevant,
    # an unjudged one is not (form_res_rels.c gives it RELVALUE_NONPOOL, -1). Here a is
    # unjudged and first, b judged 0 and second: recip_rank 1/2, map (1/2)/1.
    ev = evaluate_trec(["q", "q"], ["a", "b"], [0.9, 0.5], ["q"], ["b"], [0], relevance_level=0)
    assert ev.aggregates["recip_rank"] == 0.5 and ev.aggregates["map"] == 0.5
    assert ev.aggregates["ndcg_cut_5"] == 0.0  # no positive gain anywhere


def test_ranked_measures_by_hand() -> None:
    # Query q: a 0.9, b 0.8, c 0.8, d 0.5, e 0.1; b and c tie, so trec_eval ranks c (the greater
    # docno) first: a, c, b, d, e. Judged: a 0, b 2, d 1, f 1 (f not retrieved; c, e unjudged).
    # Relevant (>= 1): b at rank 3, d at rank 4, f never: num_rel 3.
    ev = evaluate_trec(
        ["q"] * 5, list("abcde"), [0.9, 0.8, 0.8, 0.5, 0.1], ["q"] * 4, list("abdf"), [0, 2, 1, 1]
    )
    value = {m: float(v[0]) for m, v in ev.per_query.items()}
    assert value["map"] == pytest.approx((1 / 3 + 2 / 4) / 3, abs=1e-15)  # 5/18
    assert value["Rprec"] == pytest.approx(1 / 3, abs=1e-15)  # top 3: a, c, b -> one relevant
    assert value["P_5"] == pytest.approx(2 / 5, abs=1e-15)
    assert value["P_10"] == pytest.approx(2 / 10, abs=1e-15)  # divided by 10, not by 5 retrieved
    assert value["recall_5"] == pytest.approx(2 / 3, abs=1e-15)
    # nDCG: gains 2 (b) at rank 3 and 1 (d) at rank 4; ideal 2, 1, 1 at ranks 1-3
    dcg = 2 / np.log2(4) + 1 / np.log2(5)
    ideal = 2 / np.log2(2) + 1 / np.log2(3) + 1 / np.log2(4)
    assert value["ndcg_cut_5"] == pytest.approx(dcg / ideal, abs=1e-15)
    assert value["ndcg_cut_10"] == value["ndcg_cut_5"]
    # at -M 3 only a, c, b count: map (1/3)/3, P_5 1/5, Rprec still 1/3, DCG gain 2 at rank 3
    ev = evaluate_trec(
        ["q"] * 5, list("abcde"), [0.9, 0.8, 0.8, 0.5, 0.1], ["q"] * 4, list("abdf"),
        [0, 2, 1, 1], max_retrieved=3,
    )  # fmt: skip
    value = {m: float(v[0]) for m, v in ev.per_query.items()}
    assert value["map"] == pytest.approx(1 / 9, abs=1e-15)
    assert value["P_5"] == pytest.approx(1 / 5, abs=1e-15)
    assert value["Rprec"] == pytest.approx(1 / 3, abs=1e-15)
    assert value["ndcg_cut_5"] == pytest.approx(1 / ideal, abs=1e-15)


def test_docno_tie_order_by_hand() -> None:
    # All three tie at 0.5: trec_eval orders them d3, d2, d10 (strcmp descending: "d3" > "d2" >
    # "d10"). With d2 relevant its rank is 2: recip_rank 1/2, success_1 0.
    ev = evaluate_trec(["q", "q", "q"], ["d10", "d2", "d3"], [0.5, 0.5, 0.5], ["q"], ["d2"], [1])
    assert ev.aggregates["recip_rank"] == 0.5 and ev.aggregates["success_1"] == 0.0
    # d10 relevant -> rank 3; the rank column of a file would not matter either
    ev = evaluate_trec(["q", "q", "q"], ["d10", "d2", "d3"], [0.5, 0.5, 0.5], ["q"], ["d10"], [1])
    assert ev.aggregates["recip_rank"] == pytest.approx(1 / 3)
    # a higher score always wins over docno order
    ev = evaluate_trec(["q", "q"], ["a", "b"], [0.9, 0.1], ["q"], ["a"], [1])
    assert ev.aggregates["success_1"] == 1.0


def test_complete_counts_missing_queries_as_zero() -> None:
    ev = evaluate_trec(["q1"], ["a"], [1.0], ["q1", "q2"], ["a", "b"], [1, 1])
    assert ev.aggregates["recip_rank"] == 1.0 and ev.aggregates["num_q"] == 1
    ev = evaluate_trec(["q1"], ["a"], [1.0], ["q1", "q2"], ["a", "b"], [1, 1], complete=True)
    assert ev.aggregates["recip_rank"] == 0.5 and ev.aggregates["num_q"] == 2
    assert ev.aggregates["num_rel"] == 2 and ev.aggregates["num_ret"] == 1


def test_cli_on_bucc_form_files(tmp_path: Path) -> None:
    run, qrels = random_collection(11, 50)
    run_f, qrels_f = tmp_path / "run.txt", tmp_path / "qrels.txt"
    # BUCC form: id1 X id2 Y score run.name
    run_f.write_text("".join(f"{q} X {d} Y {s} my.run\n" for q, d, s in run))
    write_qrels(qrels_f, *zip(*qrels, strict=True))
    result = runner.invoke(
        app, ["score", "trec", "--qrels", str(qrels_f), "--run", str(run_f), "--json"]
    )
    assert result.exit_code == 0, result.output
    m = json.loads(result.stdout)["metrics"]
    direct = evaluate_trec(*zip(*run, strict=True), *zip(*qrels, strict=True)).aggregates
    for k in ("success_1", "success_5", "recip_rank"):
        assert m[k] == pytest.approx(direct[k], abs=1e-12)
    # write_run puts the same run in TREC form; reading it back scores the same
    out = tmp_path / "run2.txt"
    write_run(out, *zip(*run, strict=True))
    back = read_run(out)
    again = evaluate_trec(back.qids, back.docnos, back.scores, *zip(*qrels, strict=True))
    assert again.aggregates == direct


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "q1 Q0 d1 1 0.5 r\nq1 Q0 d2 2 x r\n",
            ":2: score (field 5): expected a decimal number, got 'x'",
        ),
        (
            "q1 Q0 d1 1 0.5 r\nq1 Q0 d2 2 inf r\n",
            ":2: score (field 5): expected a decimal number, got 'inf'",
        ),
        ("q1 Q0 d1 1 0.5 r\nq1 Q0 d1 2 0.4 r\n", ":2: document d1 retrieved twice for query q1"),
        ("q1 Q0 d1 1 0.5\n", ":1: expected 6 fields"),
    ],
)
def test_run_errors_name_line(tmp_path: Path, text: str, message: str) -> None:
    f = tmp_path / "run"
    f.write_text(text)
    with pytest.raises(InputError) as info:
        read_run(f)
    assert str(info.value).startswith(str(f)) and message in str(info.value)


def test_qrels_errors(tmp_path: Path) -> None:
    f = tmp_path / "qrels"
    f.write_text("q1 0 d1 1\nq1 0 d2 yes\n")
    with pytest.raises(InputError, match=r":2: relevance \(field 4\): expected an integer"):
        read_qrels(f)


def reference_first_ranks(run, qrels, depth: int) -> dict[str, tuple[float, int]]:
    """trec_eval's rules written out plainly: per query sort by (score desc, docno desc), keep
    the first ``depth``; return (rank of the first relevant or inf, relevant retrieved)."""
    judged = {(q, d): r for q, d, r in qrels}
    out = {}
    for q in {q for q, _, _ in qrels} & {q for q, _, _ in run}:
        docs = sorted(((s, d) for qq, d, s in run if qq == q), reverse=True)[:depth]
        ranks = [i + 1 for i, (_, d) in enumerate(docs) if judged.get((q, d), 0) >= 1]
        out[q] = (ranks[0] if ranks else float("inf"), len(ranks))
    return out


@pytest.mark.parametrize("depth", [1, 3, 1000])
def test_depth_cut_matches_plain_reading(depth: int) -> None:
    run, qrels = random_collection(7, 150)
    ev = evaluate_trec(*zip(*run, strict=True), *zip(*qrels, strict=True), max_retrieved=depth)
    expected = reference_first_ranks(run, qrels, depth)
    assert sorted(ev.qids.tolist()) == sorted(expected)
    for i, q in enumerate(ev.qids.tolist()):
        first, rel_ret = expected[q]
        assert ev.per_query["recip_rank"][i] == (0.0 if first == float("inf") else 1 / first)
        assert ev.per_query["num_rel_ret"][i] == rel_ret


def test_hash_collisions_fall_back_to_exact_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every id hashed to the same key: each join must notice and redo the work exactly.
    import simeval.metrics.ranking.id_keys as keys

    run, qrels = random_collection(3, 60)
    expected = evaluate_trec(*zip(*run, strict=True), *zip(*qrels, strict=True)).aggregates
    monkeypatch.setattr(keys, "hash_ids", lambda ids: np.zeros(len(ids), dtype=np.uint64))
    again = evaluate_trec(*zip(*run, strict=True), *zip(*qrels, strict=True)).aggregates
    assert again == pytest.approx(expected, abs=1e-12)  # same values, queries in another order
    a = np.array([b"q1", b"q1", b"q2", b"q1"])
    b = np.array([b"x", b"y", b"x", b"y"])
    assert keys.first_duplicate(a, b) == (1, 3)
    assert keys.first_duplicate(a[:3], b[:3]) is None


def test_ids_are_bytes_compared_as_strcmp(tmp_path: Path) -> None:
    # Non-ASCII ids survive the byte path; "é" (c3 a9) sorts after "z" in UTF-8 bytes, so on a
    # tie trec_eval (descending) ranks "é" first.
    f = tmp_path / "run"
    f.write_text("запрос Q0 z 1 0.5 r\nзапрос Q0 é 2 0.5 r\n", encoding="utf-8")
    run = read_run(f)
    ev = evaluate_trec(run.qids, run.docnos, run.scores, ["запрос"], ["é"], [1])
    assert ev.qids.tolist() == ["запрос"] and ev.aggregates["success_1"] == 1.0


def test_ids_of_different_array_widths_still_match() -> None:
    # Qrels ids stored as S10 and run ids as S40 (or the other way round) are the same ids:
    # a hit must be found whatever the numpy widths (this once failed silently with 0).
    run_q = np.array([b"q1", b"q1", b"q2"], dtype="S40")
    run_d = np.array([b"d1", b"d-long-long-long-long-long", b"d2"], dtype="S40")
    qrel_q = np.array([b"q1", b"q2"], dtype="S2")
    qrel_d = np.array([b"d1", b"d2"], dtype="S2")
    ev = evaluate_trec(run_q, run_d, [2.0, 1.0, 1.0], qrel_q, qrel_d, [1, 1])
    assert ev.aggregates["success_1"] == 1.0  # both queries rank their document first
    ev = evaluate_trec(qrel_q, qrel_d, [1.0, 1.0], run_q[:1], run_d[:1], [1])
    assert ev.aggregates["recip_rank"] == 1.0


def deep_collection():
    """Queries of 1,200 documents each (deeper than the 1,000 simeval once cut at): the
    relevant document at rank 1,001, 1,100 and 7 (distinct scores, rank = position in the
    list), and one query where all 1,200 documents tie, so the docno order alone ranks its
    relevant document (at 1,000 or 1,001: which one is computed by the test's own sort)."""
    r = np.random.default_rng(5)
    run, qrels = [], []
    for name, rel_rank in (("deep1001", 1001), ("deep1100", 1100), ("shallow7", 7)):
        docs = [f"{name}-{x}" for x in r.permutation(1200)]
        for i, doc in enumerate(docs):
            run.append((name, doc, float(1200 - i) / 7))  # distinct, descending
        qrels.append((name, docs[rel_rank - 1], 1))
    docs = [f"t{x:x}" for x in r.choice(10**6, 1200, replace=False)]
    run += [("ties", doc, 0.5) for doc in docs]
    qrels.append(("ties", sorted(docs, reverse=True)[1000], 1))  # docno order: rank 1,001
    return run, qrels


def test_deep_ranking_matches_pytrec_eval_with_unlimited_depth() -> None:
    # trec_eval 9 evaluates every retrieved document unless -M is given, and pytrec_eval
    # always does (it sets trec_eval's max_num_docs_per_topic to MAXLONG and has no -M), so
    # relevant documents at ranks 1,001 and 1,100 count: recip_rank 1/1001 and 1/1100.
    run, qrels = deep_collection()
    ours = evaluate_trec(*zip(*run, strict=True), *zip(*qrels, strict=True))
    run_d: dict = {}
    for q, d, s in run:
        run_d.setdefault(q, {})[d] = s
    qrels_d = {q: {d: rel} for q, d, rel in qrels}
    theirs = pytrec_eval.RelevanceEvaluator(
        qrels_d, {"success", "recip_rank", "num_ret", "num_rel_ret", "map", "Rprec", "P",
                  "recall", "ndcg_cut"},
    ).evaluate(run_d)  # fmt: skip
    assert sorted(theirs) == sorted(ours.qids.tolist())
    by_q = {q: i for i, q in enumerate(ours.qids.tolist())}
    for q, values in theirs.items():
        for m in (*MEASURES, "success_10", *RANKED):
            if m == "num_rel":
                continue
            assert ours.per_query[m][by_q[q]] == pytest.approx(values[m], abs=1e-15), (m, q)
    hand = {"deep1001": 1 / 1001, "deep1100": 1 / 1100, "shallow7": 1 / 7, "ties": 1 / 1001}
    for q, rr in hand.items():
        assert theirs[q]["recip_rank"] == pytest.approx(rr, abs=1e-15)
        assert theirs[q]["num_ret"] == 1200 and theirs[q]["num_rel_ret"] == 1
    assert ours.aggregates["recip_rank"] == pytest.approx(np.mean(list(hand.values())), abs=1e-15)
    assert ours.aggregates["num_ret"] == 4 * 1200 and ours.aggregates["num_rel_ret"] == 4


def test_max_retrieved_cuts_like_trec_eval_minus_m() -> None:
    # max_retrieved=1000 (trec_eval -M 1000, simeval's old default) drops everything past
    # rank 1,000: only the rank-7 relevant document is still found.
    run, qrels = deep_collection()
    ev = evaluate_trec(*zip(*run, strict=True), *zip(*qrels, strict=True), max_retrieved=1000)
    expected = reference_first_ranks(run, qrels, 1000)
    for i, q in enumerate(ev.qids.tolist()):
        first, rel_ret = expected[q]
        assert ev.per_query["recip_rank"][i] == (0.0 if first == float("inf") else 1 / first)
        assert ev.per_query["num_rel_ret"][i] == rel_ret
        assert ev.per_query["num_ret"][i] == 1000
    assert ev.aggregates["recip_rank"] == pytest.approx((1 / 7) / 4, abs=1e-15)
    assert ev.aggregates["num_rel_ret"] == 1
    # at 1,001 the tied query's relevant document (docno order: rank 1,001) is back in
    ev = evaluate_trec(*zip(*run, strict=True), *zip(*qrels, strict=True), max_retrieved=1001)
    assert dict(zip(ev.qids.tolist(), ev.per_query["recip_rank"], strict=True))["ties"] == (
        pytest.approx(1 / 1001)
    )


@pytest.mark.parametrize(
    "relevant, other",
    [(0.1 + 1e-12, 0.1), (1e300, 1e299), (3e-300, 1e-300), (0.5, 0.5 - 1e-9)],
    ids=["a-hair-apart", "past-float32-max", "past-float32-min", "below-float32-precision"],
)
def test_scores_apart_only_past_float32_tie_as_in_trec_eval(
    tmp_path: Path, relevant: float, other: float
) -> None:
    """trec_eval keeps a score as a C float: the relevant document ``a`` and ``b`` tie there and
    ``b`` (the greater docno) comes first, so recip_rank is 0.5 (pytrec_eval's number). On main
    the doubles were compared and ``a`` came first: 1.0 at exit 0."""
    (tmp_path / "qrels").write_text("q1 0 a 1\nq2 0 c 1\n")
    run = f"q1 Q0 a 1 {relevant!r} r\nq1 Q0 b 2 {other!r} r\nq2 Q0 c 1 1.0 r\n"
    (tmp_path / "run").write_text(run)
    qrels = {"q1": {"a": 1}, "q2": {"c": 1}}
    ranked = {"q1": {"a": relevant, "b": other}, "q2": {"c": 1.0}}
    per = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(ranked)
    expected = (per["q1"]["recip_rank"] + per["q2"]["recip_rank"]) / 2
    assert expected == 0.75  # the tie, as trec_eval ranks it
    argv = ["score", "trec", "--qrels", str(tmp_path / "qrels"), "--run", str(tmp_path / "run")]
    result = CliRunner().invoke(app, [*argv, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout.splitlines()[0])["metrics"]["recip_rank"] == expected


def test_rows_kept_before_the_new_measures_still_score_and_compare() -> None:
    # A linking result's rows written before map, Rprec, P, recall and nDCG were recorded have
    # no such columns: their metrics are the old ones, and comparisons swap the old outputs.
    from simeval.kinds.rows import ItemMetrics

    run, qrels = random_collection(2, 60)
    ev = evaluate_trec(*zip(*run, strict=True), *zip(*qrels, strict=True))
    old = ("success_1", "success_5", "recip_rank", "num_ret", "num_rel", "num_rel_ret")
    items = {"qid": ev.qids, **{k: ev.per_query[k] for k in old}}
    rows = ItemMetrics("linking", items)
    assert set(rows()) == {*old, "num_q"}
    assert rows()["recip_rank"] == pytest.approx(ev.aggregates["recip_rank"], abs=1e-12)
    assert rows.values.shape == (len(ev.qids), 3)
    swapped = rows.swapped(rows.values, rows.values[::-1], np.ones((2, len(ev.qids)), bool))
    assert swapped is not None
    assert swapped[0]["recip_rank"][0] == pytest.approx(ev.aggregates["recip_rank"], abs=1e-12)
    # with every column, the new measures are there too, as the kernel gives them
    full = ItemMetrics("linking", {"qid": ev.qids, **ev.per_query})()
    for m in ("map", "Rprec", "P_10", "recall_5", "ndcg_cut_10"):
        assert full[m] == pytest.approx(ev.aggregates[m], abs=1e-12)


def test_one_relevant_document_a_query_makes_map_mrr() -> None:
    # docs/guide/linking.md: with one relevant document a query (BUCC), AP = 1/rank, R = 1 and
    # recall@5 counts that one document: map is recip_rank, Rprec success_1, recall_5 success_5.
    r = np.random.default_rng(9)
    run = [(f"q{q}", f"d{d}", float(r.integers(0, 4))) for q in range(300)
           for d in r.choice(40, 8, replace=False)]  # fmt: skip
    qrels = [(f"q{q}", f"d{r.integers(0, 40)}", 1) for q in range(300)]
    ev = evaluate_trec(*zip(*run, strict=True), *zip(*qrels, strict=True)).per_query
    assert 0 < ev["recip_rank"].mean() < 1
    np.testing.assert_array_equal(ev["map"], ev["recip_rank"])
    np.testing.assert_array_equal(ev["Rprec"], ev["success_1"])
    np.testing.assert_array_equal(ev["recall_5"], ev["success_5"])
    np.testing.assert_allclose(ev["P_5"], ev["success_5"] / 5, rtol=0, atol=1e-15)
