"""`simeval build negatives`: the RUSSE 2015 (BLESS-style) rules on hand-made tables whose
expected outputs are worked out below, and the command on a tiny hand-written corpus.

The hand-made world (PMI symmetric; frequencies are corpus counts):

    word    freq   s(cat, ·)   s(dog, ·)
    house   100      1.0         0.8
    car      90      0.5          –
    tree     90      0.2         0.3
    sun      80     -0.3         0.6
    road     70      0.4          –
    milk     60      0.0          –
    cat      50      0.7         1.5      (s(cat, cat) = 0.7: cat repeats within a window)
    dog      40      1.5          –
    mouse    30      2.0          –
    kitten   10      3.0          –
    puppy     8       –          2.5
    rain      5       –          0.2

Positives in file order: line 2 cat,kitten; line 3 cat,mouse; line 4 dog,puppy.

cat's candidates (s > 0; sun -0.3 and milk 0.0 are dropped), by frequency, car before tree
(both 90: ties by the word): house, car, tree, road, cat, dog, mouse, kitten.
dog's candidates: house, tree, sun, cat, puppy, rain.

Selection, top two per positive, taken targets removed for good:
- cat,kitten: house (rank 1), car (rank 2).
- cat,mouse: house and car are removed, so tree (rank 3) and road (rank 4).
- dog,puppy: house and tree are removed (taken for cat), so sun (rank 3) and cat (rank 4).

Balance: cat has 2 positives and 4 negatives: it keeps the first picks, house and tree.
dog has 1 positive, 2 negatives: it keeps sun.
"""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simeval.cli import app
from simeval.datasets import negatives as neg
from simeval.errors import InputError

runner = CliRunner()

FREQ = {
    "house": 100,
    "car": 90,
    "tree": 90,
    "sun": 80,
    "road": 70,
    "milk": 60,
    "cat": 50,
    "dog": 40,
    "mouse": 30,
    "kitten": 10,
    "puppy": 8,
    "rain": 5,
}
PMI = {
    ("cat", "house"): 1.0,
    ("cat", "car"): 0.5,
    ("cat", "tree"): 0.2,
    ("cat", "sun"): -0.3,
    ("cat", "road"): 0.4,
    ("cat", "milk"): 0.0,
    ("cat", "cat"): 0.7,
    ("cat", "dog"): 1.5,
    ("cat", "mouse"): 2.0,
    ("cat", "kitten"): 3.0,
    ("dog", "house"): 0.8,
    ("dog", "tree"): 0.3,
    ("dog", "sun"): 0.6,
    ("dog", "puppy"): 2.5,
    ("dog", "rain"): 0.2,
}
P_KITTEN = neg.Positive("cat", "kitten", 2)
P_MOUSE = neg.Positive("cat", "mouse", 3)
P_PUPPY = neg.Positive("dog", "puppy", 4)
POSITIVES = [P_KITTEN, P_MOUSE, P_PUPPY]


@pytest.fixture()
def sim() -> neg.Similarity:
    return neg.similarity_from_table(FREQ, PMI)


def taken(negatives: list[neg.Negative]) -> list[tuple[str, str, int, int]]:
    return [(g.positive.target, g.target, g.pick, g.rank) for g in negatives]


def test_nonpositive_similarity_is_dropped(sim: neg.Similarity) -> None:
    i = sim.index["cat"]
    assert sim.matrix[i, sim.index["sun"]] == 0 and sim.matrix[i, sim.index["milk"]] == 0
    assert (sim.matrix.data > 0).all()
    assert sim.matrix[sim.index["house"], i] == 1.0  # symmetric


def test_candidates_ranked_by_frequency_ties_by_word(sim: neg.Similarity) -> None:
    order = [sim.words[k] for k in neg.candidate_order(sim, "cat")]
    assert order == ["house", "car", "tree", "road", "cat", "dog", "mouse", "kitten"]
    order = [sim.words[k] for k in neg.candidate_order(sim, "dog")]
    assert order == ["house", "tree", "sun", "cat", "puppy", "rain"]
    assert neg.candidate_order(sim, "unknown") == []


def test_top_two_and_target_removal(sim: neg.Similarity) -> None:
    negatives, log = neg.select(POSITIVES, sim)
    assert taken(negatives) == [
        ("kitten", "house", 1, 1),
        ("kitten", "car", 2, 2),
        ("mouse", "tree", 1, 3),
        ("mouse", "road", 2, 4),
        ("puppy", "sun", 1, 3),
        ("puppy", "cat", 2, 4),
    ]
    # a target is taken once in the whole set
    targets = [g.target for g in negatives]
    assert len(targets) == len(set(targets))
    # the log says why house and car were passed over for cat,mouse and house, tree for dog
    skipped = [(d.line, d.candidate, d.reason) for d in log if d.decision == "skipped"]
    assert skipped == [
        (3, "house", "removed target (taken for cat,kitten line 2)"),
        (3, "car", "removed target (taken for cat,kitten line 2)"),
        (4, "house", "removed target (taken for cat,kitten line 2)"),
        (4, "tree", "removed target (taken for cat,mouse line 3)"),
    ]
    # s <= 0 words never appear as candidates
    assert not {"sun", "milk"} & {d.candidate for d in log if d.word1 == "cat"}
    taken_rows = [(d.line, d.candidate, d.frequency, d.rank) for d in log if d.decision == "taken"]
    assert taken_rows[:2] == [(2, "house", 100, 1), (2, "car", 90, 2)]


def test_self_and_positive_partners_are_not_candidates(sim: neg.Similarity) -> None:
    # cat's walk with room for every pick: house, car, tree, road are taken, cat (the source)
    # is skipped, dog is taken, mouse and kitten (partners from the whole file) are skipped
    partners = neg.partners_of(POSITIVES)
    negatives, log = neg.select([P_KITTEN], sim, per_positive=5, partners=partners)
    assert [g.target for g in negatives] == ["house", "car", "tree", "road", "dog"]
    reasons = {d.candidate: d.reason for d in log if d.decision == "skipped"}
    assert reasons == {"cat": "source word"}  # the walk stops at dog, the fifth pick
    negatives, log = neg.select([P_KITTEN], sim, per_positive=9, partners=partners)
    reasons = {d.candidate: d.reason for d in log if d.decision == "skipped" and d.candidate}
    assert reasons == {
        "cat": "source word",
        "mouse": "positive partner",
        "kitten": "positive partner",
    }
    assert log[-1].reason == "candidates exhausted after 5 pick(s)"


def test_partner_in_either_direction(sim: neg.Similarity) -> None:
    # house,cat as a positive makes house a partner of cat too
    partners = neg.partners_of([*POSITIVES, neg.Positive("house", "cat", 9)])
    negatives, _ = neg.select([P_KITTEN], sim, partners=partners)
    assert [g.target for g in negatives] == ["car", "tree"]


def test_word_filter_removes_targets_not_sources(sim: neg.Similarity) -> None:
    # car refused as a target: it is no candidate at all (tree moves up to rank 2), while
    # cat, refused too, still has its row as a source
    only = neg.restrict_targets(sim, lambda w: w not in ("car", "cat"))
    assert [only.words[k] for k in neg.candidate_order(only, "cat")][:3] == [
        "house",
        "tree",
        "road",
    ]
    negatives, log = neg.select([P_KITTEN, P_PUPPY], only)
    assert taken(negatives) == [
        ("kitten", "house", 1, 1),
        ("kitten", "tree", 2, 2),
        ("puppy", "sun", 1, 3),
        ("puppy", "rain", 2, 5),  # skipping house, tree (removed) and puppy (partner)
    ]
    assert "car" not in {d.candidate for d in log}


def test_russian_noun_filter() -> None:
    is_noun = neg.word_filter("ru")
    assert [w for w in ["дом", "время", "мочь", "стать", "идти", "красный", "и"] if is_noun(w)] == [
        "дом",
        "время",
    ]


def test_balance_without_veto(sim: neg.Similarity) -> None:
    result = neg.build(POSITIVES, sim)
    assert [(g.source, g.target) for g in result.negatives] == [
        ("cat", "house"),
        ("cat", "tree"),
        ("dog", "sun"),
    ]
    assert result.positives == POSITIVES
    dropped = [(d.step, d.candidate) for d in result.log if d.decision == "dropped"]
    assert dropped == [("balance", "car"), ("balance", "road"), ("balance", "cat")]
    assert neg.pair_rows(result) == [
        ("cat", "kitten", 1),
        ("cat", "mouse", 1),
        ("cat", "house", 0),
        ("cat", "tree", 0),
        ("dog", "puppy", 1),
        ("dog", "sun", 0),
    ]
    c = result.counts
    assert (c["selected"], c["vetoed"], c["positives"], c["negatives"]) == (6, 0, 3, 3)


def test_veto_one_objection_removes_nothing_replaces(sim: neg.Similarity) -> None:
    # house,cat (either direction) vetoed: cat keeps tree (first pick of cat,mouse) and car
    # (the second pick of cat,kitten, before road, the second pick of cat,mouse). The
    # selection is unchanged: nothing new is drawn for the vetoed pair.
    objections = {("house", "cat"): "veto.csv:2"}
    result = neg.build(POSITIVES, sim, objections=objections)
    assert [(g.source, g.target) for g in result.negatives] == [
        ("cat", "car"),
        ("cat", "tree"),
        ("dog", "sun"),
    ]
    veto_rows = [d for d in result.log if d.step == "veto"]
    assert [(d.candidate, d.reason) for d in veto_rows] == [("house", "vetoed (veto.csv:2)")]
    assert result.counts["selected"] == 6 and result.counts["vetoed"] == 1


def test_shortfall_drops_the_last_positives(sim: neg.Similarity) -> None:
    # both dog negatives vetoed: dog has none, so its positive goes and dog leaves the set
    objections = {("dog", "sun"): "a:2", ("cat", "dog"): "b:7"}
    result = neg.build(POSITIVES, sim, objections=objections)
    assert result.positives == [P_KITTEN, P_MOUSE]
    assert {g.source for g in result.negatives} == {"cat"}
    assert result.counts["sources_without_negatives"] == 1
    # three positives of cat, one pick each, but only two words allowed as targets: cat gets
    # 2 negatives and keeps its first two positives in file order
    third = neg.Positive("cat", "dog", 5)
    only = neg.restrict_targets(sim, lambda w: w in ("house", "road"))
    result = neg.build([P_KITTEN, P_MOUSE, third], only, per_positive=1)
    assert [g.target for g in result.negatives] == ["house", "road"]
    assert result.positives == [P_KITTEN, P_MOUSE]
    dropped = [d for d in result.log if d.step == "balance"]
    assert [(d.line, d.reason) for d in dropped] == [
        (5, "positive dropped: 2 negatives for 3 positives")
    ]


def test_source_not_in_vocabulary_is_logged(sim: neg.Similarity) -> None:
    result = neg.build([neg.Positive("zebra", "stripe", 2)], sim)
    assert result.positives == [] and result.negatives == []
    assert result.log[0].reason == "source not in the corpus vocabulary"


def test_read_positives_keeps_positive_rows(tmp_path: Path) -> None:
    f = tmp_path / "pos.csv"
    f.write_text(
        "word1,word2,type,sim\nкот,котенок,assoc,1\nкот,год,random,0\nпес,щенок,assoc,1\n"
        "кот,котенок,assoc,1\nпес,щенок,random,0\n",
        encoding="utf-8",
    )
    positives, info = neg.read_positives(f)
    # пес,щенок is an association on line 4 and a random pair on line 6: a positive
    assert positives == [neg.Positive("кот", "котенок", 2), neg.Positive("пес", "щенок", 4)]
    assert info == {"rows_not_positive": 2, "repeated_rows": 1, "positive_and_zero": 1}
    two = tmp_path / "two.csv"
    two.write_text("word1,word2\nкот,котенок\n", encoding="utf-8")
    assert neg.read_positives(two)[0] == [neg.Positive("кот", "котенок", 2)]
    bad = tmp_path / "bad.csv"
    bad.write_text("word1,word2,sim\nкот,котенок,1\nкот,мышь,много\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        neg.read_positives(bad)
    assert str(info.value).startswith(f"{bad}:3: sim: expected a decimal number")


def test_read_veto_russe_annotator_files(tmp_path: Path) -> None:
    # RUSSE's negatives/*.csv: BOM, CRLF, ';' and quotes; related 1 or ? objects, blank not
    a = tmp_path / "a.csv"
    a.write_bytes(
        '\ufeff"num";"word1";"word2";"related";"comment";"src"\r\n'
        '2;"кот";"дом";1;"";"ae2.csv"\r\n'
        '2;"кот";"машина";;"";"ae2.csv"\r\n'
        '2;"пес";"Ёлка";"?";"doubt";"ae2.csv"\r\n'.encode()
    )
    b = tmp_path / "b.tsv"
    b.write_text("num\tword1\tword2\trelated\n4\tкот\tмашина\t1\n", encoding="utf-8")
    assert neg.read_veto(a) == {("кот", "дом"): f"{a}:2", ("пес", "елка"): f"{a}:4"}
    both = neg.read_vetoes([a, b])  # one objection removes: b objects to кот,машина
    assert both[("кот", "машина")] == f"{b}:2" and len(both) == 3
    plain = tmp_path / "plain.csv"
    plain.write_text("word1,word2\nкот,дом\n", encoding="utf-8")
    assert neg.read_veto(plain) == {("кот", "дом"): f"{plain}:2"}
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\nкот,дом\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad.csv:1: expected a header with word1 and word2"):
        neg.read_veto(bad)


def test_sample_sources_is_seeded_and_keeps_file_order() -> None:
    pos = [
        neg.Positive(s, t, i)
        for i, (s, t) in enumerate(
            [("a", "x"), ("b", "x"), ("a", "y"), ("c", "x"), ("d", "x")], start=2
        )
    ]
    one = neg.sample_sources(pos, 2, seed=3)
    assert one == neg.sample_sources(pos, 2, seed=3)
    assert len({p.source for p in one}) == 2
    assert [p.line for p in one] == sorted(p.line for p in one)
    assert neg.sample_sources(pos, 10, seed=3) == pos


# -- the command on a tiny corpus ---------------------------------------------------------------

# Nouns in the nominative, so lemmas are the words themselves. кошка and собака are the
# sources; their positives are котенок, мышь and щенок.
SENTENCES = [
    "кошка ловит мышь в доме",
    "кошка и котенок спят в доме",
    "котенок играет с кошкой",
    "мышь боится кошки",
    "собака охраняет дом",
    "собака и щенок гуляют в парке",
    "щенок любит собаку",
    "в парке растет дерево",
    "дерево стоит у дома",
    "кошка сидит на дереве",
    "собака бежит по дороге",
    "дорога ведет к дому",
    "в доме живет кошка",
    "машина едет по дороге",
    "кошка смотрит на машину",
    "собака лает на машину",
    "солнце светит над парком",
    "собака лежит на солнце",
    "кошка греется на солнце",
    "молоко стоит в доме",
    "кошка пьет молоко",
    "котенок пьет молоко",
    "дождь идет над городом",
    "собака не любит дождь",
    "город большой и шумный",
    "в городе много машин",
    "дом стоит в городе",
    "дерево растет у дороги",
    "парк находится в городе",
    "собака спит у дерева",
    "кошка и собака живут в доме",
    "мышь живет в поле",
]
POSITIVE_FILE = "word1,word2,sim\nкошка,котенок,1\nкошка,мышь,1\nсобака,щенок,1\nсобака,год,0\n"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_cli_builds_folder_with_manifest(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(". ".join(SENTENCES) + ".\n", encoding="utf-8")
    positives = tmp_path / "pos.csv"
    positives.write_text(POSITIVE_FILE, encoding="utf-8")
    veto = tmp_path / "veto.csv"
    # дом is the most frequent noun (9 sentences) and shares sentences with кошка: without the
    # veto it is кошка's first negative; the objection is written the other way round
    veto.write_text("word1,word2,related\nдом,кошка,1\nкошка,дерево,\n", encoding="utf-8")
    out = tmp_path / "built"
    args = [
        "build",
        "negatives",
        str(out),
        "--positives",
        str(positives),
        "--corpus",
        str(corpus),
        "--lang",
        "ru",
        "--lemmatize",
        "--min-count",
        "1",
        "--window",
        "3",
        "--veto",
        str(veto),
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["log.tsv", "manifest.json", "pairs.csv"]
    assert not list(tmp_path.glob(".built*"))  # the temporary folder was renamed

    rows = list(csv.reader(out.joinpath("pairs.csv").read_text(encoding="utf-8").splitlines()))
    assert rows[0] == ["word1", "word2", "sim"]
    body = rows[1:]
    assert {r[2] for r in body} == {"0", "1"}
    by_source: dict[str, list[int]] = {}
    for w1, _, s in body:
        by_source.setdefault(w1, []).append(int(s))
    for sims in by_source.values():  # balanced, positives first
        assert sims.count(1) == sims.count(0) and sims == sorted(sims, reverse=True)
    negatives = [(a, b) for a, b, s in body if s == "0"]
    assert ("кошка", "дом") not in negatives  # vetoed
    assert len({b for _, b in negatives}) == len(negatives)  # each target once
    # every negative co-occurs with its source within the window (necessary for PMI > 0),
    # counted here on the raw sentences with lemmas of the nouns written by hand
    lemma = {
        "кошкой": "кошка",
        "кошки": "кошка",
        "собаку": "собака",
        "доме": "дом",
        "дома": "дом",
        "дому": "дом",
        "дереве": "дерево",
        "дерева": "дерево",
        "дороге": "дорога",
        "дороги": "дорога",
        "машину": "машина",
        "машин": "машина",
        "парке": "парк",
        "парком": "парк",
        "городом": "город",
        "городе": "город",
        "поле": "поле",
    }
    near: set[tuple[str, str]] = set()
    for s in SENTENCES:
        toks = [lemma.get(t, t) for t in s.split()]
        for i, a in enumerate(toks):
            for b in toks[max(0, i - 3) : i + 4]:
                near.add((a, b))
    assert all(pair in near for pair in negatives)
    assert ("кошка", "котенок") not in negatives and ("собака", "щенок") not in negatives

    log = out.joinpath("log.tsv").read_text(encoding="utf-8").splitlines()
    assert log[0].split("\t") == list(neg.LOG_COLUMNS)
    vetoed = [row.split("\t") for row in log[1:] if row.startswith("veto\t")]
    assert [(r[2], r[4], r[8]) for r in vetoed] == [("кошка", "дом", "dropped")]
    assert vetoed[0][9] == f"vetoed ({veto}:2)"

    manifest = json.loads(out.joinpath("manifest.json").read_text(encoding="utf-8"))
    assert manifest["builder"] == "negatives" and manifest["kind"] == "related"
    assert manifest["inputs"]["positives"]["sha256"] == _sha(positives)
    assert manifest["inputs"]["corpus"]["sha256"] == _sha(corpus)
    assert manifest["inputs"]["veto"] == [{"path": str(veto), "sha256": _sha(veto)}]
    assert manifest["files"] == {
        "pairs.csv": _sha(out / "pairs.csv"),
        "log.tsv": _sha(out / "log.tsv"),
    }
    s = manifest["settings"]
    assert (s["min_count"], s["window"], s["seed"], s["lemmatize"]) == (1, 3, 0, True)
    c = manifest["counts"]
    assert c["positives"] == sum(r[2] == "1" for r in body)
    assert c["negatives"] == len(negatives) == c["positives"]
    assert c["rows_not_positive"] == 1 and c["vetoed"] == 1 and c["positive_and_zero"] == 0

    # the folder is a benchmark: related by default
    from simeval.registry import from_path

    bench = from_path(out)
    assert bench.name == str(out) and len(bench.gold) == len(body)
    ev = runner.invoke(
        app, ["evaluate", "random", "-b", str(out), "--results", str(tmp_path / "res")]
    )
    assert ev.exit_code == 0, ev.output
    assert "ap" in ev.output.lower()


def test_cli_bad_input_exits_2_naming_file_and_line(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("кошка ловит мышь.\n", encoding="utf-8")
    positives = tmp_path / "pos.csv"
    positives.write_text("word1,word2,sim\nкошка,мышь,1\nкошка\n", encoding="utf-8")
    args = [
        "build",
        "negatives",
        str(tmp_path / "o"),
        "--positives",
        str(positives),
        "--corpus",
        str(corpus),
        "--lang",
        "ru",
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert f"{positives}:3" in result.output and "expected 3 fields" in result.output
    veto = tmp_path / "veto.csv"
    veto.write_text("word1,word2\nкошка\n", encoding="utf-8")
    positives.write_text("word1,word2,sim\nкошка,мышь,1\n", encoding="utf-8")
    result = runner.invoke(app, [*args, "--veto", str(veto)])
    assert result.exit_code == 2 and f"{veto}:2" in result.output
    # an existing folder that is not a negatives build is not replaced
    other = tmp_path / "o"
    other.mkdir()
    (other / "keep.txt").write_text("x")
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and "not a negatives folder" in result.output
    assert (other / "keep.txt").is_file()
