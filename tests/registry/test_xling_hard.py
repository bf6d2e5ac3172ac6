"""The hard cross-language benchmarks (``xling-hard-<lang>``): each side of a pair keeps a
different random half of its sentences. Checked against the raw files read here with plain
Python, the rule (``HALVES_RULE``) reimplemented here with numpy and hashlib, and the scores
against success@1 and MRR computed here from a written run (and by pytrec_eval)."""

from __future__ import annotations

import hashlib
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval
from typer.testing import CliRunner

from simeval.api import load_target
from simeval.cli import app
from simeval.data.docpairs import DocPair, xling_pairs
from simeval.data.documents import read_collection
from simeval.datasets.bucc import Preparation, prepare
from simeval.errors import InputError

runner = CliRunner()
LANGS = ("de", "fr", "ru", "tr", "zh")


def expected_en_indices(seed: int, doc: str, n: int) -> list[int]:
    """The documented rule, written out again: permute 0..n-1 with numpy's default_rng seeded
    by [seed, first 8 bytes of sha256(doc), big-endian]; English keeps the first ceil(n/2)."""
    h = int.from_bytes(hashlib.sha256(doc.encode("utf-8")).digest()[:8], "big")
    order = np.random.default_rng([seed, h]).permutation(n)
    return sorted(int(i) for i in order[: math.ceil(n / 2)])


def lines(c_text: str) -> list[str]:
    return c_text.split("\n") if c_text else []


# -- by hand ---------------------------------------------------------------------------------


def doc(name: str, n_x: int, n_en: int) -> DocPair:
    """Sentences 'x<i>' and 'e<i>': sentence i of one side translates sentence i of the other."""
    return DocPair("s", name, [f"x{i}" for i in range(n_x)], [f"e{i}" for i in range(n_en)])


def test_halves_by_hand() -> None:
    pairs = [doc("five", 6, 6), doc("one", 2, 2), doc("odd", 5, 7), doc("long", 41, 41)]
    opts = Preparation(iqr=False, test_share=0.0, halves=True, seed=3)
    c = prepare(pairs, "de", opts)
    queries = {q.doc_id: lines(q.text) for q in c.queries}
    english = {d.doc_id: lines(d.text) for d in c.corpus}
    # 'one' has one sentence after the first is dropped; 'odd' is not aligned (4 vs 6): no
    # query for either, but their English stays, halved (ceil(1/2) = 1, ceil(6/2) = 3)
    assert sorted(queries) == ["five", "long"]
    assert english["one"] == ["e1"]
    assert len(english["odd"]) == 3 and set(english["odd"]) <= {f"e{i}" for i in range(1, 7)}
    assert set(c.links) == {"de:s/five", "de:s/long"}
    for name, n in (("five", 5), ("long", 40)):
        xs = [int(s[1:]) for s in queries[name]]
        es = [int(s[1:]) for s in english[name]]
        assert xs == sorted(xs) and es == sorted(es)  # document order kept
        assert not set(xs) & set(es)  # no sentence has its translation on the other side
        assert set(xs) | set(es) == set(range(1, n + 1))  # the first sentence dropped
        assert (len(xs), len(es)) == (n // 2, math.ceil(n / 2))
        # the rule reimplemented: indices after the first sentence is dropped, so +1
        assert es == [i + 1 for i in expected_en_indices(3, f"s/{name}", n)]


def test_halves_are_seeded_per_document() -> None:
    p = doc("long", 41, 41)
    opts = Preparation(iqr=False, test_share=0.0, halves=True, seed=3)
    alone = prepare([p], "de", opts)
    others = prepare([doc("a", 9, 9), doc("b", 12, 12), p], "de", opts)
    text = {q.doc_id: q.text for q in others.queries}
    assert alone.queries[0].text == text["long"]  # not moved by the documents read before
    assert prepare([p], "de", opts).queries[0].text == alone.queries[0].text
    other_seed = prepare([p], "de", Preparation(iqr=False, test_share=0.0, halves=True, seed=4))
    assert other_seed.queries[0].text != alone.queries[0].text  # C(40,20) ≈ 1.4e11 halves
    with pytest.raises(InputError, match="--drop-sentences"):
        Preparation(halves=True, drop_sentences=0.3)


# -- the staged data ---------------------------------------------------------------------------


def _raw_ntrex(data_dir: Path, code: str) -> dict[str, tuple[list[str], list[str]]]:
    """NTREX-128 read here: one id a line in DOCUMENT_IDS.tsv, one segment a line in the text
    files; a document is a run of one id."""
    root = data_dir / "xling/ntrex128"

    def read(path: Path) -> list[str]:
        return path.read_text(encoding="utf-8").replace("\r\n", "\n").rstrip("\n").split("\n")

    ids = [i.strip() for i in read(root / "DOCUMENT_IDS.tsv")]
    xs = read(root / f"NTREX-128/newstest2019-ref.{code}.txt")
    ens = read(root / "NTREX-128/newstest2019-src.eng.txt")
    out: dict[str, tuple[list[str], list[str]]] = {}
    for i, x, e in zip(ids, xs, ens, strict=True):
        out.setdefault(i, ([], []))
        out[i][0].append(x)
        out[i][1].append(e)
    return out


@pytest.mark.parametrize("lang,code", [("fr", "fra"), ("zh", "zho-CN")])
def test_ntrex_halves_against_the_raw_files(data_dir: Path, lang: str, code: str) -> None:
    raw = _raw_ntrex(data_dir, code)
    coll = load_target(f"xling-hard-{lang}").collection
    english = {d.doc_id: lines(d.text) for d in coll.corpus if d.source == "ntrex128"}
    queries = {q.doc_id: lines(q.text) for q in coll.queries if q.source == "ntrex128"}
    assert set(english) == set(raw)  # every English document stays (123)
    checked = 0
    for doc_id, (x_all, en_all) in raw.items():
        x_rest, en_rest = x_all[1:], en_all[1:]  # BUCC: the first sentence dropped
        n = len(en_rest)
        en_idx = [i + 1 for i in expected_en_indices(0, f"ntrex128/{doc_id}", n)]
        assert english[doc_id] == [en_all[i] for i in en_idx]
        assert len(english[doc_id]) == math.ceil(n / 2)
        if doc_id not in queries:
            continue
        x_idx = [i for i in range(1, n + 1) if i not in en_idx]
        assert queries[doc_id] == [x_all[i] for i in x_idx]
        assert len(queries[doc_id]) == n // 2 >= 1
        if len(set(x_rest)) == n and len(set(en_rest)) == n:  # positions recoverable by text
            got_x = {x_all.index(s) for s in queries[doc_id]}
            got_en = {en_all.index(s) for s in english[doc_id]}
            assert not got_x & got_en and got_x | got_en == set(range(1, n + 1))
            checked += 1
    assert checked >= 30, checked  # the easy variant keeps about half of the 123 as queries


@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGS)
def test_hard_collection_is_the_easy_one_halved(data_dir: Path, lang: str) -> None:
    pairs, _ = xling_pairs(lang)
    raw = {re.sub(r"\s+", "_", f"{p.source}/{p.doc_id}"): p for p in pairs}  # the ids' form
    easy = load_target(f"xling-{lang}-en").collection
    hard = load_target(f"xling-hard-{lang}").collection

    def rest(p: DocPair) -> tuple[list[str], list[str]]:
        return [s for s in p.x if s.strip()][1:], [s for s in p.en if s.strip()][1:]

    def halvable(qid: str) -> bool:
        x, en = rest(raw[qid.split(":", 1)[1]])
        return len(x) == len(en) >= 2

    expect = {q.id: q.split for q in easy.queries if halvable(q.id)}
    assert {q.id: q.split for q in hard.queries} == expect  # same queries and split, less
    assert len(expect) < len(easy.queries) or lang == "fr"  # those that cannot be halved
    assert hard.links == {q: "en:" + q.split(":", 1)[1] for q in expect}
    assert [d.id for d in hard.corpus] == [d.id for d in easy.corpus]
    # every text against the rule written out here (sentences may hold a newline, so texts
    # are compared whole): English keeps the ceil(n/2) drawn indices, X the other floor(n/2)
    en_text = {d.id: d.text for d in hard.corpus}
    for q in hard.queries:
        pair_id = q.id.split(":", 1)[1]
        x, en = rest(raw[pair_id])
        n = len(en)
        en_idx = expected_en_indices(0, pair_id, n)
        x_idx = [i for i in range(n) if i not in en_idx]
        assert (len(x_idx), len(en_idx)) == (n // 2, math.ceil(n / 2)) and n // 2 >= 1
        assert q.text == "\n".join(x[i] for i in x_idx)
        assert en_text[hard.links[q.id]] == "\n".join(en[i] for i in en_idx)
        # no sentence of the X half has its translation (same index) in the English half
        assert not {en[i] for i in x_idx} & set(en_text[hard.links[q.id]].split("\n")) or (
            len(set(en)) < n  # (unless the English repeats a sentence)
        )
    for d in hard.corpus:
        pair_id = d.id.split(":", 1)[1]
        _, en = rest(raw[pair_id])
        en_idx = expected_en_indices(0, pair_id, len(en))
        assert d.text == "\n".join(en[i] for i in en_idx)
    # the manifest of the built collection records the seed and the rule
    from simeval.cache import cache_root

    (manifest,) = cache_root().glob(f"collections/xling-hard-{lang}-*/manifest.json")
    m = json.loads(manifest.read_text())
    assert m["settings"]["seed"] == 0 and m["settings"]["halves"] is True
    assert "ceil(n/2)" in m["rule"] and "sha256" in m["rule"] and "seed" in m["rule"]
    assert hard.meta["counts"]["halved"] == len(hard.queries)


def test_another_seed_gives_other_halves(data_dir: Path) -> None:
    pairs, _ = xling_pairs("fr")
    zero = prepare(pairs, "fr", Preparation(halves=True, seed=0))
    again = prepare(pairs, "fr", Preparation(halves=True, seed=0))
    one = prepare(pairs, "fr", Preparation(halves=True, seed=1))
    assert [(d.id, d.text) for d in zero.corpus] == [(d.id, d.text) for d in again.corpus]
    assert [(q.id, q.text) for q in zero.queries] == [(q.id, q.text) for q in again.queries]
    a = {d.id: d.text for d in zero.corpus if len(lines(d.text)) >= 3}
    b = {d.id: d.text for d in one.corpus}
    differ = sum(a[k] != b[k] for k in a)
    assert differ >= 0.9 * len(a), (differ, len(a))


def test_build_linking_halves_cli(tmp_path: Path, data_dir: Path) -> None:
    xml = data_dir / "xling/wmt23_generaltest2023/xml/wmttest2023.ru-en.all.xml"
    args = ["build", "linking", "--lang", "ru", "--input", f"wmt-xml:{xml}@wmt23", "--halves"]
    result = runner.invoke(app, [*args[:2], str(tmp_path / "b"), *args[2:]])
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text())
    assert manifest["settings"]["halves"] is True and manifest["settings"]["seed"] == 0
    assert "floor(n/2)" in manifest["settings"]["rule"]
    assert "halved" in result.output
    # with the staged files, `build linking --lang fr --halves` writes xling-hard-fr
    made = runner.invoke(
        app, ["build", "linking", str(tmp_path / "fr"), "--lang", "fr", "--halves"]
    )
    assert made.exit_code == 0, made.output
    built = read_collection(tmp_path / "fr")
    hard = load_target("xling-hard-fr").collection
    assert [(q.id, q.text, q.split) for q in built.queries] == [
        (q.id, q.text, q.split) for q in hard.queries
    ]
    assert [(d.id, d.text) for d in built.corpus] == [(d.id, d.text) for d in hard.corpus]


# -- the scores ----------------------------------------------------------------------------------


def test_scores_equal_success_and_mrr_of_the_run(tmp_path: Path, data_dir: Path) -> None:
    """`simeval evaluate hapax -b xling-hard-fr` prints what the run it writes gives by hand:
    each query's documents ordered as trec_eval does (score descending, ties by docno
    descending), gold = the English document of the same pair id."""
    run_file = tmp_path / "fr.run"
    made = runner.invoke(app, ["predict", "hapax", "-s", "xling-hard-fr", "--out", str(run_file)])
    assert made.exit_code == 0, made.output
    per_query: dict[str, list[tuple[float, str]]] = {}
    for line in run_file.read_text().splitlines():
        qid, _, docno, _, score, _ = line.split()
        per_query.setdefault(qid, []).append((float(score), docno))
    coll = load_target("xling-hard-fr").collection
    test_ids = {q.id for q in coll.queries if q.split == "test"}
    assert set(per_query) == test_ids and len(test_ids) == 74
    rr, s1 = [], []
    for qid, docs in per_query.items():
        ranked = [d for _, d in sorted(docs, key=lambda t: (t[0], t[1].encode()), reverse=True)]
        gold = "en:" + qid.split(":", 1)[1]
        rank = ranked.index(gold) + 1 if gold in ranked else 0
        rr.append(1 / rank if rank else 0.0)
        s1.append(float(rank == 1))
    shown = runner.invoke(app, ["evaluate", "hapax", "-b", "xling-hard-fr", "--json", "--no-save"])
    assert shown.exit_code == 0, shown.output
    (record,) = [json.loads(x) for x in shown.stdout.splitlines() if x.startswith("{")]
    assert record["benchmark"] == "xling-hard-fr"
    assert record["metrics"]["success_1"] == pytest.approx(np.mean(s1), abs=1e-12)
    assert record["metrics"]["recip_rank"] == pytest.approx(np.mean(rr), abs=1e-12)
    table = runner.invoke(app, ["evaluate", "hapax", "-b", "xling-hard-fr", "--no-save"])
    # the first table (of those the terminal's width makes) holds success_1, success_5, recip_rank
    row = next(r.split() for r in table.stdout.splitlines() if r.strip().startswith("xling-hard"))
    assert row[1] == f"{np.mean(s1):.4f}" and row[3] == f"{np.mean(rr):.4f}"  # as printed
    qrels = {q: {"en:" + q.split(":", 1)[1]: 1} for q in test_ids}
    run = {q: {d: s for s, d in docs} for q, docs in per_query.items()}
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"success.1", "recip_rank"}).evaluate(run)
    assert np.mean([v["recip_rank"] for v in ev.values()]) == pytest.approx(np.mean(rr))
    assert np.mean([v["success_1"] for v in ev.values()]) == pytest.approx(np.mean(s1))
    # and the suite is there, one member per language
    listed = runner.invoke(app, ["benchmarks"])
    assert all(f"xling-hard-{x}" in listed.output for x in LANGS), listed.output


# -- CSLS --------------------------------------------------------------------------------------


@pytest.mark.parametrize("as_sparse", [True, False])
def test_csls_equals_brute_force(as_sparse: bool) -> None:
    """The rescaled rows' dot products equal 2·s − r_D(x) − r_Q(y), each r the mean of the k
    largest scores of its row or column of the full score matrix (numpy sort, here)."""
    from scipy import sparse

    from simeval.measures.search import csls, top_k

    rng = np.random.default_rng(7)
    q = rng.random((9, 30)) * (rng.random((9, 30)) < 0.3)
    d = rng.random((14, 30)) * (rng.random((14, 30)) < 0.3)
    s = q @ d.T
    for k in (1, 3, 20):  # 20: more than the 9 queries, cut to 9
        r_d = np.sort(s, axis=1)[:, -min(k, 14) :].mean(axis=1)
        r_q = np.sort(s, axis=0)[-min(k, 9) :, :].mean(axis=0)
        expect = 2 * s - r_d[:, None] - r_q[None, :]
        a, b = (sparse.csr_matrix(q), sparse.csr_matrix(d)) if as_sparse else (q, d)
        q2, d2 = csls(a, b, k, lambda x, y, n: top_k(x, y, n))
        got = q2 @ d2.T
        got = got.toarray() if sparse.issparse(got) else got
        assert np.allclose(got, expect, atol=1e-5), k  # the search scores in float32


@pytest.mark.slow
def test_csls_parameter_reaches_the_ranker(data_dir: Path) -> None:
    """`dictionary:csls=10` ranks by the CSLS of the dictionary's own cosine: its top 1 per
    test query is the argmax of 2·cos − r_D − r_Q computed here from the plain vectors."""
    from simeval.api import evaluate
    from simeval.measures import create_measure

    bench = load_target("xling-hard-fr")
    coll = bench.collection
    plain = create_measure("dictionary")
    texts = [q.text for q in coll.split("test")] + [q.text for q in coll.split("train")]
    q, d = plain.vectors(texts, [x.text for x in coll.corpus], "fr")
    s = (q @ d.T).toarray().astype(np.float64)
    r_d = np.sort(s, axis=1)[:, -10:].mean(axis=1)
    r_q = np.sort(s, axis=0)[-10:, :].mean(axis=0)
    c = 2 * s - r_d[:, None] - r_q[None, :]
    ids = np.array([x.id for x in coll.corpus])
    tests = coll.split("test")
    best = ids[np.argmax(c[: len(tests)], axis=1)]
    s1 = np.mean([b == coll.links[t.id] for b, t in zip(best, tests, strict=True)])
    (res,) = evaluate("dictionary:csls=10", bench)
    assert res.metrics["success_1"] == pytest.approx(s1, abs=1 / len(tests) + 1e-9)


@pytest.mark.slow
def test_simplified_enters_traditional_headwords_in_simplified(data_dir: Path) -> None:
    """MUSE's zh-en lines (`ENGLISH @ CHINESE`, read here) are in Traditional characters:
    總統 (president), 電影 (movie/film); the staged documents write 总统, 电影. With
    simplified=true the table has those keys too, and the same translations."""
    raw = (data_dir / "xling/muse_dicts_hunalign/dict/zh-en.dict").read_text(encoding="utf-8")
    entries: dict[str, list[str]] = {}
    for line in raw.splitlines():
        en, _, zh = line.partition(" @ ")
        entries.setdefault(zh.strip(), []).append(en.strip().lower())
    from simeval.measures import create_measure

    plain = create_measure("dictionary").table("zh")
    simple = create_measure("dictionary:simplified=true").table("zh")
    for traditional, simplified in (("總統", "总统"), ("電影", "电影")):
        assert simplified not in entries and simplified not in plain
        assert simple[simplified] == plain[traditional] == tuple(entries[traditional][:3])
    assert set(plain) <= set(simple)
    # other languages: no effect
    assert create_measure("dictionary:simplified=true").table("fr") == create_measure(
        "dictionary"
    ).table("fr")


def test_combine_takes_base_parameters_after_semicolons() -> None:
    from simeval.measures import create_measure

    m = create_measure("combine:rankers=dictionary:csls=10;simplified=true+hapax,depth=7")
    (d, h) = m.rankers
    assert d.params["csls"] == 10 and d.params["simplified"] is True
    assert h.params["csls"] == 0 and m.params["depth"] == 7
