"""The analogy kind (issue 45, item 6): the Google analogy set, answered by word vectors with
3CosAdd and 3CosMul, matches gensim 4.4.0's ``KeyedVectors.evaluate_word_analogies`` figure
for figure, and goes through evaluate, predict, score, the report and the server.

Two vector sets: (1) vectors written here from a fixed seed for every word of the questions
file, with planted offsets (so some answers are right) and case variants (so case folding
changes answers); (2) the English fastText vectors gensim ships for its own tests
(``lee_fasttext.vec``, 1,762 words trained on the Lee corpus). The reference figures are
gensim's on the same file: its ``evaluate_word_analogies`` for 3CosAdd, and the same function
with ``most_similar_cosmul`` as the similarity for 3CosMul (gensim 4.4.0 ignores its
``similarity_function`` argument and its ``most_similar_cosmul`` ignores ``restrict_vocab``,
so for 3CosMul the reference model holds the first ``restrict_vocab`` words only).
"""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

import simeval
from simeval.cli import app
from simeval.errors import InputError
from simeval.results.store import load_results

gensim = pytest.importorskip("gensim")

QUESTIONS = "analogy/questions-words.txt"
LEE = Path(gensim.__file__).parent / "test" / "test_data" / "lee_fasttext.vec"
SEED = 45
DIM = 16
# planted: in these sections the second word of each pair is the first plus the section's offset
PLANTED = ("capital-common-countries", "gram2-opposite", "gram9-plural-verbs")
# case variants written into the synthetic file: (variant, its word, where: "before" the word
# (case folding then finds the variant first) or "after" it, and "near": the vector is the
# word's plus a little noise (a near-duplicate competing for the answer) or a random one)
VARIANTS = (
    ("GREECE", "Greece", "before", False),
    ("iraq", "Iraq", "after", True),
    ("baghdad", "Iraq", "after", True),  # a variant of a question's c, next to its answer
    ("france", "France", "after", True),
    ("ATHENS", "Athens", "after", False),
)
CUT = 700  # a restrict_vocab that drops about a quarter of the synthetic words


def question_words(path: Path) -> list[str]:
    """The distinct words of a questions file, in order of first appearance."""
    words: dict[str, None] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith(":"):
            words.update(dict.fromkeys(line.split()))
    return list(words)


def sections(path: Path) -> dict[str, list[tuple[str, ...]]]:
    """Each section's questions, as read by hand."""
    out: dict[str, list[tuple[str, ...]]] = {}
    current = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith(": "):
            current = line[2:].strip()
            out[current] = []
        elif line.split():
            out[current].append(tuple(line.split()))
    return out


@pytest.fixture(scope="module")
def questions(data_dir: Path) -> Path:
    return data_dir / QUESTIONS


@pytest.fixture(scope="module")
def synthetic(questions: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A word2vec text file: random vectors (seed 45) for every question word, planted offsets
    in three sections, case variants, the words in a shuffled (seeded) order."""
    rng = np.random.default_rng(SEED)
    words = question_words(questions)
    vectors = {w: rng.normal(size=DIM) for w in words}
    for name, rows in sections(questions).items():
        if name in PLANTED:
            offset = rng.normal(size=DIM) * 2
            for a, b, _, _ in rows:
                vectors[b] = vectors[a] + offset + rng.normal(size=DIM) * 0.2
    order = [words[i] for i in rng.permutation(len(words))]
    for variant, word, where, near in VARIANTS:
        vectors[variant] = (
            vectors[word] + rng.normal(size=DIM) * 0.05 if near else rng.normal(size=DIM)
        )
        at = order.index(word) + (0 if where == "before" else 1)
        order.insert(at, variant)
    lines = [f"{len(order)} {DIM}"]
    lines += [w + " " + " ".join(f"{x:.6f}" for x in vectors[w]) for w in order]
    out = tmp_path_factory.mktemp("analogy") / "synthetic.vec"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def registry(folder: Path, questions: Path, restrict_vocab: int, case_insensitive: bool) -> Path:
    """A registry file declaring the questions as benchmark ``ana`` with these settings."""
    path = folder / f"ana-{restrict_vocab}-{case_insensitive}.toml"
    path.write_text(
        "[benchmark.ana]\n"
        'kind = "analogy"\n'
        f'gold = "{questions}"\n'
        f"restrict_vocab = {restrict_vocab}\n"
        f"case_insensitive = {str(case_insensitive).lower()}\n",
        encoding="utf-8",
    )
    return path


def gensim_figures(
    vectors: Path, questions: Path, method: str, restrict_vocab: int, case_insensitive: bool
) -> tuple[float, list[dict[str, Any]]]:
    """gensim's score and sections (with 'Total accuracy') on the same file."""
    import warnings

    from gensim.models import KeyedVectors

    kv = KeyedVectors.load_word2vec_format(str(vectors), binary=vectors.suffix == ".bin")
    if method == "3cosmul":
        cut = KeyedVectors(kv.vector_size)
        cut.add_vectors(kv.index_to_key[:restrict_vocab], kv.vectors[:restrict_vocab])
        cut.most_similar = cut.most_similar_cosmul  # the similarity evaluate_word_analogies calls
        kv = cut
    with warnings.catch_warnings():  # most_similar_cosmul calls the deprecated init_sims
        warnings.simplefilter("ignore", DeprecationWarning)
        return kv.evaluate_word_analogies(
            str(questions), restrict_vocab=restrict_vocab, case_insensitive=case_insensitive
        )


def right_questions(result: Any, case_insensitive: bool) -> list[tuple[str, ...]]:
    """The questions a result answered right, folded as gensim lists them."""
    items = result.items
    rows = np.flatnonzero(np.asarray(items["right"], dtype=float) == 1)
    fold = str.upper if case_insensitive else str
    return sorted(tuple(fold(str(items[c][i])) for c in ("a", "b", "c", "expected")) for i in rows)


FAST = {("synthetic", "3cosadd", False, True), ("synthetic", "3cosmul", True, False)}
GRID = [
    pytest.param(
        vectors,
        method,
        cut,
        folded,
        marks=[]
        if vectors == "lee" or (vectors, method, cut, folded) in FAST
        else pytest.mark.slow,
    )
    for vectors in ("synthetic", "lee")
    for method in ("3cosadd", "3cosmul")
    for cut in (False, True)
    for folded in (True, False)
]


@pytest.mark.parametrize(("vector_set", "method", "cut", "folded"), GRID)
def test_figures_are_gensims(
    vector_set: str,
    method: str,
    cut: bool,
    folded: bool,
    synthetic: Path,
    questions: Path,
    tmp_path: Path,
) -> None:
    vectors = synthetic if vector_set == "synthetic" else LEE
    restrict = (CUT if vector_set == "synthetic" else 500) if cut else 300_000
    reg = registry(tmp_path, questions, restrict, folded)
    (r,) = simeval.evaluate(f"vectors:path={vectors},analogy={method}", "ana", registry=reg)
    score, found = gensim_figures(vectors, questions, method, restrict, folded)
    total = found[-1]
    assert total["section"] == "Total accuracy"
    right, wrong = len(total["correct"]), len(total["incorrect"])
    assert right > 0  # something to match: the planted offsets, the real vectors
    assert r.metrics["accuracy"] == score == right / (right + wrong)
    assert r.metrics["correct"] == right and r.metrics["answered"] == right + wrong
    assert r.metrics["questions"] == 19_544
    assert r.metrics["skipped"] == 19_544 - right - wrong
    assert r.coverage == {
        "gold": 19_544,
        "scored": right + wrong,
        "missing": 19_544 - right - wrong,
        "extra": 0,
    }
    by_section = {s["section"]: s for s in found[:-1]}
    assert list(r.breakdown) == list(by_section)
    for name, s in by_section.items():
        mine = r.breakdown[name]
        assert (mine["correct"], mine["answered"] - mine["correct"]) == (
            len(s["correct"]),
            len(s["incorrect"]),
        ), name
    assert right_questions(r, folded) == sorted(total["correct"])


def test_the_cut_and_the_folding_change_the_answers(
    synthetic: Path, questions: Path, tmp_path: Path
) -> None:
    """The grid above would pass on settings that do nothing: here they must change the
    figures (on the synthetic set, with its case variants and shuffled order)."""
    spec = f"vectors:path={synthetic}"
    whole = simeval.evaluate(spec, "ana", registry=registry(tmp_path, questions, 300_000, True))[0]
    cut = simeval.evaluate(spec, "ana", registry=registry(tmp_path, questions, CUT, True))[0]
    exact = simeval.evaluate(spec, "ana", registry=registry(tmp_path, questions, 300_000, False))[0]
    assert cut.metrics["answered"] < whole.metrics["answered"]
    assert cut.metrics["accuracy"] != whole.metrics["accuracy"]
    assert exact.metrics["correct"] != whole.metrics["correct"]


def test_the_catalog_benchmark_through_the_commands(synthetic: Path, tmp_path: Path) -> None:
    """`simeval evaluate -b google-analogy`, `simeval predict` then `simeval score file`, and
    `simeval.score` from Python: one accuracy, gensim's with its defaults."""
    runner = CliRunner()
    spec = f"vectors:path={synthetic}"
    folder = tmp_path / "res"
    got = runner.invoke(app, ["evaluate", spec, "-b", "google-analogy", "--results", str(folder)])
    assert got.exit_code == 0, got.output
    (record,) = load_results(folder)
    assert record["benchmark"] == "google-analogy" and record["task"] == "analogy"
    score, _ = gensim_figures(synthetic, Path(record_questions(record)), "3cosadd", 300_000, True)
    assert record["metrics"]["accuracy"] == score
    out = tmp_path / "answers.txt"
    got = runner.invoke(app, ["predict", spec, "-b", "google-analogy", "--out", str(out)])
    assert got.exit_code == 0, got.output
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == ": capital-common-countries" and len(lines) == 19_544 + 14
    assert lines[1].split()[:3] == ["Athens", "Greece", "Baghdad"]
    got = runner.invoke(app, ["score", "file", "google-analogy", str(out), "--json"])
    assert got.exit_code == 0, got.output
    assert re.search(r'"accuracy": ' + re.escape(repr(score)), got.output), got.output
    (scored,) = simeval.score("google-analogy", out)
    assert scored.metrics == record["metrics"]
    assert scored.breakdown == record["breakdown"]


def record_questions(record: dict[str, Any]) -> str:
    (path,) = record["data"]
    return path


def test_a_submission_is_read_line_by_line(synthetic: Path, tmp_path: Path) -> None:
    """Unanswered lines are skipped and counted; a line that is not its question's, or a
    missing question, is refused with the file and line."""
    target = simeval.load_target("google-analogy")
    qs = target.questions
    lines = [": capital-common-countries"]
    lines += [f"{q.a} {q.b} {q.c} {q.d.lower()}" for q in qs[:10]]  # right, once folded
    lines += [f"{q.a} {q.b} {q.c}" for q in qs[10:20]]  # not answered
    lines += [f"{q.a} {q.b} {q.c} {q.a}" for q in qs[20:]]  # wrong
    good = tmp_path / "good.txt"
    good.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (r,) = simeval.score(target, good)
    n = len(qs)
    assert r.metrics["accuracy"] == 10 / (n - 10)
    assert (r.metrics["answered"], r.metrics["skipped"], r.metrics["correct"]) == (n - 10, 10, 10)
    assert any("10 of 19544 questions have no answer" in w for w in r.warnings)
    swapped = lines.copy()
    swapped[5] = f"{qs[5].b} {qs[5].a} {qs[5].c} x"
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join(swapped) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="expected question 5 of google-analogy") as err:
        simeval.score(target, bad)
    assert err.value.line == 6
    short = tmp_path / "short.txt"
    short.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=f"{n - 1} question lines, but google-analogy has {n}"):
        simeval.score(target, short)


def test_a_questions_file_is_refused_with_its_line(tmp_path: Path) -> None:
    reg = tmp_path / "r.toml"
    gold = tmp_path / "q.txt"
    reg.write_text('[benchmark.q]\nkind = "analogy"\ngold = "q.txt"\n', encoding="utf-8")
    gold.write_text(": s\nA B C D\nA B C\n", encoding="utf-8")
    with pytest.raises(InputError, match="four words") as err:
        simeval.load_target("q", registry=reg)
    assert err.value.line == 3
    gold.write_text("A B C D\n", encoding="utf-8")
    with pytest.raises(InputError, match="before any ': SECTION'") as err:
        simeval.load_target("q", registry=reg)
    assert err.value.line == 1
    reg.write_text(
        '[benchmark.q]\nkind = "analogy"\ngold = "q.txt"\nrestrict_vocab = "many"\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError, match="'restrict_vocab' must be a whole number"):
        simeval.load_target("q", registry=reg)


def test_a_measure_without_vectors_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot answer analogy questions"):
        simeval.evaluate("overlap", "google-analogy")


def test_the_report_shows_two_methods(tmp_path: Path) -> None:
    """Two systems on google-analogy (gensim's real vectors, which answer no question of most
    sections: those sections' accuracy is undefined, written null): the report shows each
    system's accuracy and the per-section view."""
    folder = tmp_path / "res"
    for method in ("3cosadd", "3cosmul"):
        simeval.evaluate(
            f"vectors:path={LEE},analogy={method}", "google-analogy", results_dir=folder
        )
    records = load_results(folder)
    assert records[0]["breakdown"]["capital-world"]["accuracy"] is None
    out = tmp_path / "report.html"
    got = CliRunner().invoke(app, ["report", str(folder), "--html", str(out), "-B", "50"])
    assert got.exit_code == 0, got.output
    page = out.read_text(encoding="utf-8")
    assert "google-analogy" in page and "capital-common-countries" in page
    for record in records:
        accuracy = f"{record['metrics']['accuracy']:.4f}"
        assert accuracy in page, accuracy


def test_a_server_hands_out_the_questions_and_scores_the_answers(
    synthetic: Path, tmp_path: Path
) -> None:
    pytest.importorskip("fastapi")
    from serve_kit import OPENS, Clock, campaign_toml, make_server, phase_toml, register, upload

    campaign = campaign_toml(
        "lex25", phase_toml("trial", ["google-analogy"], max_bytes=1_000_000), title="Analogy"
    )
    clock = Clock(OPENS + timedelta(days=1))
    s = make_server(f"sqlite:///{tmp_path / 'serve.db'}", tmp_path / "server", clock, campaign)
    token = register(s.client, "alpha")
    got = s.client.get("/api/campaigns/lex25/phases/trial/inputs/google-analogy")
    assert got.status_code == 200, got.text
    handed = got.content.decode("utf-8").splitlines()
    questions = [line for line in handed if not line.startswith(":")]
    assert len(questions) == 19_544 and all(len(line.split()) == 3 for line in questions)
    answers = tmp_path / "answers.txt"
    simeval.predict(f"vectors:path={synthetic}", "google-analogy", answers)
    (expected,) = simeval.score("google-analogy", answers)
    r = upload(s.client, token, answers.read_bytes(), target="google-analogy", filename="a.txt")
    assert r.status_code == 201, r.text
    (result,) = r.json()["results"]
    assert result["main_metric"] == "accuracy"
    assert result["score"] == pytest.approx(expected.metrics["accuracy"], abs=1e-12)


# a tiny benchmark for the comparison of two systems: 12 questions, two sections
TINY = [("s1", f"a{i}", f"b{i}", f"c{i}", f"d{i}") for i in range(6)]
TINY += [("s2", f"a{i}", f"b{i}", f"c{i}", f"d{i}") for i in range(6, 12)]
# what each system answers: right (the expected word), wrong ("x") or nothing (None)
SAYS = {
    "A": ["R", "R", "R", "R", "R", "x", "R", None, "R", "x", "R", "R"],
    "B": ["R", "x", "x", "R", None, "x", "x", "R", "R", "x", None, "R"],
}


def tiny_accuracy(correct: np.ndarray, covered: np.ndarray) -> float:
    return float(correct.sum() / covered.sum())


def test_two_systems_are_compared_by_swapping_their_answers(tmp_path: Path) -> None:
    """The report's test of two systems' accuracy swaps each question's (correct, answered)
    between them: its p-value is close to the exact permutation p, every one of the 2^12
    swaps enumerated here."""
    from simeval.metrics.stats import Resampling
    from simeval.report.collect import load_grid
    from simeval.report.compare import compare
    from simeval.results.store import save_results

    gold = tmp_path / "tiny.txt"
    lines, section = [], None
    for s, a, b, c, d in TINY:
        if s != section:
            lines.append(f": {s}")
            section = s
        lines.append(f"{a} {b} {c} {d}")
    gold.write_text("\n".join(lines) + "\n", encoding="utf-8")
    reg = tmp_path / "tiny.toml"
    reg.write_text('[benchmark.tiny]\nkind = "analogy"\ngold = "tiny.txt"\n', encoding="utf-8")
    folder = tmp_path / "res"
    flags = {}
    for name, says in SAYS.items():
        rows = []
        for (_, a, b, c, d), say in zip(TINY, says, strict=True):
            rows.append(f"{a} {b} {c}" + ("" if say is None else f" {d if say == 'R' else say}"))
        f = tmp_path / f"{name}.txt"
        f.write_text("\n".join(rows) + "\n", encoding="utf-8")
        save_results(folder, simeval.score("tiny", f, registry=reg, system={"name": name}))
        flags[name] = (
            np.array([s == "R" for s in says], dtype=float),
            np.array([s is not None for s in says], dtype=float),
        )
    (ca, va), (cb, vb) = flags["A"], flags["B"]
    observed = abs(tiny_accuracy(ca, va) - tiny_accuracy(cb, vb))
    extreme = 0
    for mask in range(2 ** len(TINY)):
        s = np.array([(mask >> k) & 1 for k in range(len(TINY))], dtype=bool)
        a = tiny_accuracy(np.where(s, cb, ca), np.where(s, vb, va))
        b = tiny_accuracy(np.where(s, ca, cb), np.where(s, va, vb))
        extreme += abs(a - b) >= observed - 1e-12
    exact = extreme / 2 ** len(TINY)
    grid = load_grid(folder)
    (bench,) = grid.benchmarks
    how = Resampling(replicates=4000, seed=3)
    verdict = compare(grid.get("A", bench), grid.get("B", bench), how)
    assert verdict.main.metric == "accuracy"
    assert verdict.main.a == pytest.approx(tiny_accuracy(ca, va), abs=1e-12)
    assert verdict.main.p_value == pytest.approx(exact, abs=0.03)


def test_binary_vectors_answer_as_their_text(questions: Path, tmp_path: Path) -> None:
    """The candidates are read from any vector format: gensim's real vectors saved as binary
    word2vec give gensim's figures too."""
    from gensim.models import KeyedVectors

    binary = tmp_path / "lee.bin"
    KeyedVectors.load_word2vec_format(str(LEE)).save_word2vec_format(str(binary), binary=True)
    (r,) = simeval.evaluate(f"vectors:path={binary},analogy=3cosmul", "google-analogy")
    assert r.system["params"]["format_detected"] == "word2vec-bin"
    score, found = gensim_figures(binary, questions, "3cosmul", 300_000, True)
    assert r.metrics["accuracy"] == score and r.metrics["correct"] == len(found[-1]["correct"])


def test_answers_in_memory_score_as_the_file(tmp_path: Path) -> None:
    target = simeval.load_target("google-analogy")
    answers = [q.d if k % 3 == 0 else (None if k % 3 == 1 else "x") for k, q in
               enumerate(target.questions)]  # fmt: skip
    path = tmp_path / "a.txt"
    lines = [f"{q.a} {q.b} {q.c}" + (f" {a}" if a else "") for q, a in
             zip(target.questions, answers, strict=True)]  # fmt: skip
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (from_file,) = simeval.score(target, path)
    (in_memory,) = simeval.score(target, answers)
    assert in_memory.metrics == from_file.metrics
    right = sum(1 for k in range(len(answers)) if k % 3 == 0)
    assert in_memory.metrics["accuracy"] == right / sum(a is not None for a in answers)
    with pytest.raises(InputError, match="expected one answer"):
        simeval.score(target, answers[:-1])
