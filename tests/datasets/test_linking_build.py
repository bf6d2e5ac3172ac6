"""The BUCC 2015 preparation on hand-made pairs, the format adapters on hand-made files, and
the xling collections against the counts in xling/SOURCES.md."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from simeval.cli import app
from simeval.data.docpairs import (
    DocPair,
    read_marked_lines,
    read_ntrex,
    read_wmt_sgm,
    read_wmt_xml,
    read_xquad,
    split_sentences,
    xling_pairs,
)
from simeval.data.documents import read_collection, write_collection
from simeval.datasets.bucc import Preparation, prepare
from simeval.errors import InputError

runner = CliRunner()


def pair(source: str, i: int, x_len: int, en_len: int, n: int = 3) -> DocPair:
    """n sentences a side; the first sentence is 'FIRST', the rest carry the lengths."""
    x = ["FIRST", "a" * x_len, *(["d"] * (n - 2))]
    en = ["FIRST", "c" * en_len, *(["e"] * (n - 2))]
    return DocPair(source, f"doc{i}", x, en)


def test_first_sentence_dropped_on_both_sides() -> None:
    c = prepare([pair("s", 0, 5, 5)], "de", Preparation(iqr=False, test_share=0.0))
    (q,), (d,) = c.queries, c.corpus
    assert "FIRST" not in q.text and "FIRST" not in d.text
    assert q.text.split("\n") == ["aaaaa", "d"] and d.text.split("\n") == ["ccccc", "e"]
    kept = prepare([pair("s", 0, 5, 5)], "de", Preparation(drop_first=False, iqr=False))
    assert kept.queries[0].text.startswith("FIRST\n")


def test_iqr_filter_by_hand() -> None:
    # After dropping "FIRST", the X text is "a"*x + "\nd" (x + 2 chars) and English
    # "c"*10 + "\ne" (12 chars). Ratios for x = 0..7: 2/12 ... 9/12. By hand (linear
    # interpolation over 8 values): Q1 at position 1.75 -> (3.75)/12, Q3 at 5.25 -> 7.25/12.
    # Kept: ratios within [3.75/12, 7.25/12] -> x + 2 in {4, 5, 6, 7} -> x in {2, 3, 4, 5}.
    pairs = [pair("s", x, x, 10) for x in range(8)]
    c = prepare(pairs, "de", Preparation(test_share=0.0))
    assert sorted(q.doc_id for q in c.queries) == ["doc2", "doc3", "doc4", "doc5"]
    assert c.meta["counts"]["iqr"] == pytest.approx([3.75 / 12, 7.25 / 12], abs=1e-6)
    # no English document is lost: the filtered pairs' English stays as distractors
    assert len(c.corpus) == 8
    assert {d.doc_id for d in c.corpus} == {f"doc{i}" for i in range(8)}


def test_split_sizes_per_source_and_links() -> None:
    pairs = [pair("a", i, 5, 5) for i in range(10)] + [pair("b", i, 5, 5) for i in range(7)]
    c = prepare(pairs, "ru", Preparation(iqr=False, test_share=0.3, seed=4))
    by = Counter((q.source, q.split) for q in c.queries)
    # round(0.3 * 10) = 3 and round(0.3 * 7) = round(2.1) = 2 test pairs
    assert by == {("a", "test"): 3, ("a", "train"): 7, ("b", "test"): 2, ("b", "train"): 5}
    assert all(c.links[q.id] == "en:" + q.id.split(":", 1)[1] for q in c.queries)
    again = prepare(pairs, "ru", Preparation(iqr=False, test_share=0.3, seed=4))
    assert [q.split for q in again.queries] == [q.split for q in c.queries]  # seeded


def test_empty_documents_are_dropped_with_their_pair() -> None:
    one = DocPair("s", "short", ["only one sentence"], ["only one", "two"])
    c = prepare([one, pair("s", 1, 5, 5)], "fr", Preparation(iqr=False, test_share=0.0))
    assert [q.doc_id for q in c.queries] == ["doc1"]
    assert {d.doc_id for d in c.corpus} == {"short", "doc1"}  # its English side stays


def test_comparability_noise_keeps_a_sentence_and_is_seeded() -> None:
    p = DocPair("s", "d", [f"x{i}" for i in range(40)], [f"e{i}" for i in range(40)])
    opts = Preparation(drop_first=False, drop_sentences=0.5, iqr=False, seed=1)
    a, b = prepare([p], "de", opts), prepare([p], "de", opts)
    xa, ea = a.queries[0].text.split("\n"), a.corpus[0].text.split("\n")
    assert xa == b.queries[0].text.split("\n")
    assert 5 < len(xa) < 35 and 5 < len(ea) < 35  # about half of 40 each, independently
    assert [s[1:] for s in xa] != [s[1:] for s in ea]
    tiny = DocPair("s", "t", ["one", "two"], ["uno", "dos"])
    heavy = Preparation(drop_first=False, drop_sentences=0.99, iqr=False)
    c = prepare([tiny], "de", heavy)
    assert len(c.queries[0].text.split("\n")) == 1 and len(c.corpus[0].text.split("\n")) == 1
    with pytest.raises(InputError):
        Preparation(drop_sentences=1.0)


def test_layout_round_trip(tmp_path: Path) -> None:
    pairs = [pair("a", i, 5 + i, 9) for i in range(6)]
    c = prepare(pairs, "tr", Preparation(iqr=False, seed=2))
    files = write_collection(c, tmp_path / "out")
    assert sorted(f.name for f in files) == sorted(
        ["queries.jsonl", "corpus.jsonl", "qrels.train", "qrels.test", "meta.json"]
    )
    test_lines = (tmp_path / "out" / "qrels.test").read_text().splitlines()
    assert len(test_lines) == 3 and all(line.split()[3] == "1" for line in test_lines)
    back = read_collection(tmp_path / "out")
    assert back.lang == "tr" and back.links == c.links
    assert [(q.id, q.text, q.split) for q in back.queries] == [
        (q.id, q.text, q.split) for q in c.queries
    ]
    assert [(d.id, d.text) for d in back.corpus] == [(d.id, d.text) for d in c.corpus]


# -- adapters on hand-made files -----------------------------------------------------------------


def test_ntrex_groups_runs_of_ids(tmp_path: Path) -> None:
    (tmp_path / "ids").write_text("a\na\nb\r\n")
    (tmp_path / "x").write_text("x1\r\nx2\r\nx3\r\n")
    (tmp_path / "en").write_text("e1\ne2\ne3\n")
    got = read_ntrex(tmp_path / "ids", tmp_path / "x", tmp_path / "en")
    assert [(p.doc_id, p.x, p.en) for p in got] == [
        ("a", ["x1", "x2"], ["e1", "e2"]),
        ("b", ["x3"], ["e3"]),
    ]
    (tmp_path / "en").write_text("e1\ne2\n")
    with pytest.raises(InputError, match="line counts differ"):
        read_ntrex(tmp_path / "ids", tmp_path / "x", tmp_path / "en")


def test_sgm_and_xml(tmp_path: Path) -> None:
    (tmp_path / "x.sgm").write_text(
        '<srcset>\n<doc docid="d1" origlang="de">\n<seg id="1">Hallo & so</seg>\n'
        '<seg id="2">Welt</seg>\n</doc>\n</srcset>\n'
    )
    (tmp_path / "en.sgm").write_text(
        '<refset>\n<doc sysid="ref" docid="d1">\n<seg id="1">Hello & so</seg>\n'
        '<seg id="2">World</seg>\n</doc>\n</refset>\n'
    )
    (p,) = read_wmt_sgm(tmp_path / "x.sgm", tmp_path / "en.sgm", "wmt")
    assert p.x == ["Hallo & so", "Welt"] and p.en == ["Hello & so", "World"]
    (tmp_path / "t.xml").write_text(
        '<?xml version="1.0"?><dataset><collection id="general">'
        '<doc id="k1"><src lang="en"><p><seg id="1">One</seg></p></src>'
        '<ref lang="ru" translator="A"><p><seg id="1">Один</seg></p></ref>'
        '<ref lang="ru" translator="B"><p><seg id="1">Раз</seg></p></ref>'
        '<hyp system="s"><p><seg id="1">Адин</seg></p></hyp></doc>'
        '<doc id="k2"><src lang="en"><p><seg id="1">No reference</seg></p></src></doc>'
        '</collection><collection id="other"><doc id="k3"><src lang="en"><p><seg id="1">X'
        '</seg></p></src><ref lang="ru"><p><seg id="1">Y</seg></p></ref></doc></collection>'
        "</dataset>"
    )
    got = read_wmt_xml(tmp_path / "t.xml", "ru", "wmt")
    assert [(p.doc_id, p.x, p.en) for p in got] == [("k1", ["Один"], ["One"])]


def test_marked_lines_and_xquad(tmp_path: Path) -> None:
    (tmp_path / "de").write_text("<d>\nEins\nZwei\n<d>\nDrei\n")
    (tmp_path / "en").write_text("<d>\nOne\nTwo\n<d>\nThree\n")
    got = read_marked_lines(tmp_path / "de", tmp_path / "en", "m")
    assert [(p.doc_id, p.x, p.en) for p in got] == [
        ("1", ["Eins", "Zwei"], ["One", "Two"]),
        ("2", ["Drei"], ["Three"]),
    ]
    (tmp_path / "en").write_text("<d>\nOne\n<d>\nTwo\nThree\n")
    with pytest.raises(InputError, match="marker"):
        read_marked_lines(tmp_path / "de", tmp_path / "en", "m")
    squad = {"data": [{"paragraphs": [{"context": "A b. C d! E?"}, {"context": "F."}]}]}
    (tmp_path / "x.json").write_text(json.dumps(squad))
    (tmp_path / "e.json").write_text(json.dumps(squad))
    got = read_xquad(tmp_path / "x.json", tmp_path / "e.json")
    assert [(p.doc_id, p.x) for p in got] == [("0.0", ["A b.", "C d!", "E?"]), ("0.1", ["F."])]
    assert split_sentences("第一句。第二句！Third. Fourth") == [
        "第一句。",
        "第二句！",
        "Third.",
        "Fourth",
    ]


# -- the staged collections --------------------------------------------------------------------

# xling/SOURCES.md, "Summary: gold document pairs per language pair"
SOURCES_MD = {
    "de": {"wmt14": 164, "wmt24": 170, "ntrex128": 123, "europarl7.dev": 240,
           "europarl7.test": 360, "iwslt2017.dev": 93, "iwslt2017.test": 23,
           "nc2016.dev": 81, "nc2016.test": 155, "xquad": 240},
    "fr": {"wmt14": 176, "ntrex128": 123},
    "ru": {"wmt14": 175, "wmt21.ru-en": 116, "wmt21.en-ru": 77, "wmt22.ru-en": 227,
           "wmt22.en-ru": 181, "wmt23.ru-en": 162, "wmt24": 170, "ntrex128": 123, "xquad": 240},
    "tr": {"ntrex128": 123, "xquad": 240},
    "zh": {"wmt22.zh-en": 256, "wmt22.en-zh": 181, "wmt24": 170, "ntrex128": 123,
           "wiki.en2zh-test": 22, "wiki.zh2en-test": 30, "wiki.train": 692, "wiki.dev": 75,
           "xquad": 240},
}  # fmt: skip
TOTALS = {"de": 1649, "fr": 299, "ru": 1471, "tr": 363, "zh": 1789}


@pytest.mark.parametrize("lang", sorted(SOURCES_MD))
def test_xling_pairs_match_sources_md(lang: str, data_dir: Path) -> None:
    pairs, data = xling_pairs(lang)
    assert Counter(p.source for p in pairs) == SOURCES_MD[lang]
    assert len(pairs) == TOTALS[lang]
    assert all(p.x and p.en for p in pairs)
    # each recorded digest is the sha256 of the file's bytes, recomputed here with hashlib
    for path, sha in data.items():
        assert path.startswith("xling/")
        assert sha == hashlib.sha256((data_dir / path).read_bytes()).hexdigest()
    # after the documented filters, computed here independently: drop the first sentence,
    # keep non-empty pairs, ratio of characters within numpy's quartiles
    ratios = []
    english = 0
    for p in pairs:
        xs = [s for s in p.x if s.strip()][1:]
        es = [s for s in p.en if s.strip()][1:]
        english += bool(es)
        if xs and es:
            ratios.append(len("\n".join(xs)) / len("\n".join(es)))
    r = np.array(ratios)
    q1, q3 = np.percentile(r, [25, 75])
    kept = int(((r >= q1) & (r <= q3)).sum())
    from simeval.api import load_target

    bench = load_target(f"xling-{lang}-en")
    coll = bench.collection
    assert coll is not None and len(coll.queries) == kept and len(coll.corpus) == english
    n_test, n_train = len(coll.split("test")), len(coll.split("train"))
    assert len(bench.qrels.qids) == n_test and n_test + n_train == kept
    assert abs(n_test - kept / 2) <= len(SOURCES_MD[lang]) / 2  # half of each source, rounded


def test_data_verify_covers_xling(data_dir: Path) -> None:
    names = ["ntrex128", "wmt14_newstest_full", "wmt21_newstest2021", "wmt22_generaltest2022",
             "wmt23_generaltest2023", "wmt24_generaltest2024", "docmt_de_en_maruf",
             "wiki_zh_en_docsubstructure", "xquad", "muse_dicts_hunalign", "xling_bli"]  # fmt: skip
    result = runner.invoke(app, ["data", "verify", *names, "--data-dir", str(data_dir)])
    assert result.exit_code == 0, result.output
    for name in names:
        assert f"{name}: " in result.output


def test_build_linking_cli(tmp_path: Path, data_dir: Path) -> None:
    xml = data_dir / "xling/wmt23_generaltest2023/xml/wmttest2023.ru-en.all.xml"
    result = runner.invoke(
        app,
        ["build", "linking", str(tmp_path / "b"), "--lang", "ru", "--input",
         f"wmt-xml:{xml}@wmt23", "--test-share", "0.25", "--seed", "3"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    meta = json.loads((tmp_path / "b" / "meta.json").read_text())
    assert meta["counts"]["read"] == 162  # SOURCES.md: wmt23 ru-en 162 documents
    assert meta["options"]["test_share"] == 0.25 and meta["options"]["seed"] == 3
    assert str(xml) in meta["data"]
    bad = runner.invoke(app, ["build", "linking", str(tmp_path / "c"), "--lang", "ru",
                              "--input", "wmt-xml:/no/such/file.xml"])  # fmt: skip
    assert bad.exit_code != 0 and "no such file" in bad.output
