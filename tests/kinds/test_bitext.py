"""The bitext kind (issue 45: a second new kind, in four places): LASER's Tatoeba test, scored
as MTEB's ``BitextMiningEvaluator`` scores it, the share of sentences whose most similar
candidate (``numpy.argmax``: the first of equal scores) is their translation.

The reference figures are computed here from the measure's own similarity matrix (numpy's
argmax over it), and for the encoder from sentence-transformers' embeddings and
scikit-learn's cosine, as MTEB computes them; the files are read with the standard library.
"""

from __future__ import annotations

import io
import zipfile
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
import sklearn.metrics
from typer.testing import CliRunner

import simeval
from simeval.cli import app
from simeval.errors import InputError
from simeval.results.store import load_results

LANGS = ("cmn", "deu", "fra", "rus", "tur")


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def trigrams(text: str) -> set[str]:
    t = f"  {text.lower()} "
    return {t[i : i + 3] for i in range(len(t) - 2)}


def dice(pairs: list[tuple[str, str]]) -> list[float]:
    """A character-trigram Dice similarity: a cheap measure with many equal scores."""
    out = []
    for a, b in pairs:
        x, y = trigrams(a), trigrams(b)
        out.append(2 * len(x & y) / (len(x) + len(y)))
    return out


def argmax_accuracy(matrix: np.ndarray) -> float:
    """MTEB's accuracy: argmax per row (the first of equal maxima), against the diagonal."""
    chosen = matrix.argmax(axis=1)
    return float(sklearn.metrics.accuracy_score(np.arange(len(matrix)), chosen))


def test_every_language_is_in_the_catalog_with_its_thousand_lines(data_dir: Path) -> None:
    suite = simeval.load_target("tatoeba")
    assert [m.name for m in suite.members] == [f"tatoeba-{x}" for x in LANGS]
    for member, code in zip(suite.members, LANGS, strict=True):
        folder = data_dir / "tatoeba"
        assert member.sources == lines(folder / f"tatoeba.{code}-eng.{code}")
        assert member.targets == lines(folder / f"tatoeba.{code}-eng.eng")
        assert len(member) == 1000


def test_accuracy_is_the_argmax_of_the_measures_similarities(data_dir: Path) -> None:
    """On 200 German sentences of Tatoeba (a registry file of one's own), a measure with many
    tied scores: the accuracy equals numpy's argmax over the full similarity matrix."""
    target = simeval.load_target("tatoeba-deu")
    src, tgt = target.sources[:200], target.targets[:200]
    matrix = np.array([dice([(s, t) for t in tgt]) for s in src])
    assert (matrix == matrix.max(axis=1, keepdims=True)).sum() > 200  # ties exist
    small = type(target)("deu-200", src, tgt, "de")
    (r,) = simeval.evaluate(dice, small)
    assert r.metrics["accuracy"] == argmax_accuracy(matrix)
    assert r.metrics["sentences"] == 200
    chosen = r.items["predicted"] - 1
    assert (chosen == matrix.argmax(axis=1)).all()


@pytest.mark.slow
def test_the_encoder_matches_mtebs_computation(data_dir: Path) -> None:
    """all-MiniLM-L6-v2 on Tatoeba German: the accuracy of argmax cosine over
    sentence-transformers' embeddings (MTEB's BitextMining), to the last digit."""
    st = pytest.importorskip("sentence_transformers")
    from simeval.measures.encoder import default_model_path

    folder = data_dir / "tatoeba"
    src, tgt = lines(folder / "tatoeba.deu-eng.deu"), lines(folder / "tatoeba.deu-eng.eng")
    model = st.SentenceTransformer(str(default_model_path()), device="cpu")
    a, b = model.encode(src), model.encode(tgt)
    expected = argmax_accuracy(sklearn.metrics.pairwise.cosine_similarity(a, b))
    (r,) = simeval.evaluate("encoder:cache=false", "tatoeba-deu")
    assert r.metrics["accuracy"] == pytest.approx(expected, abs=1e-12)


def test_evaluate_predict_and_score_agree(tmp_path: Path) -> None:
    """`simeval evaluate`, then `simeval predict` and `simeval score file`: one figure; the
    file has one target line number per source line."""
    runner = CliRunner()
    folder = tmp_path / "res"
    got = runner.invoke(app, ["evaluate", "overlap", "-b", "tatoeba-tur", "--results", str(folder)])
    assert got.exit_code == 0, got.output
    (record,) = load_results(folder)
    assert record["task"] == "bitext" and record["metrics"]["sentences"] == 1000
    out = tmp_path / "choices.txt"
    got = runner.invoke(app, ["predict", "overlap", "-b", "tatoeba-tur", "--out", str(out)])
    assert got.exit_code == 0, got.output
    chosen = lines(out)
    assert len(chosen) == 1000 and all(1 <= int(x) <= 1000 for x in chosen)
    assert record["metrics"]["accuracy"] == sum(
        int(x) == i + 1 for i, x in enumerate(chosen)
    ) / len(chosen)
    (scored,) = simeval.score("tatoeba-tur", out)
    assert scored.metrics == record["metrics"]


def test_a_submission_is_read_line_by_line(tmp_path: Path) -> None:
    target = simeval.load_target("tatoeba-fra")
    answers = [str(i + 1) for i in range(1000)]
    answers[3] = ""  # not answered: wrong
    answers[4] = "6"  # wrong
    good = tmp_path / "good.txt"
    good.write_text("\n".join(answers) + "\n", encoding="utf-8")
    (r,) = simeval.score(target, good)
    assert r.metrics["accuracy"] == 998 / 1000
    assert any("1 of 1000 sentences have no target line" in w for w in r.warnings)
    for bad, line, message in (
        (["1"] * 999, None, "999 lines, but tatoeba-fra has 1000"),
        ([*answers[:7], "1001", *answers[8:]], 8, "not one of the 1000 lines"),
        ([*answers[:2], "two", *answers[3:]], 3, "expected an integer"),
        ([*answers, "5"], 1001, "more lines than the 1000 sentences"),
    ):
        path = tmp_path / "bad.txt"
        path.write_text("\n".join(bad) + "\n", encoding="utf-8")
        with pytest.raises(InputError, match=message) as err:
            simeval.score(target, path)
        assert err.value.line == line


def test_a_registry_file_needs_both_files_of_one_length(tmp_path: Path) -> None:
    (tmp_path / "x.txt").write_text("a\nb\n", encoding="utf-8")
    (tmp_path / "y.txt").write_text("a\n", encoding="utf-8")
    toml = tmp_path / "mine.toml"
    toml.write_text(
        '[benchmark.mine]\nkind = "bitext"\nsource_text = "x.txt"\ntarget_text = "y.txt"\n'
        'lang = "de"\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError, match=r"1 lines, but its source file .* has 2"):
        simeval.load_target("mine", registry=toml)


def test_a_campaign_hands_out_both_sides_shuffled_and_reads_answers_back(
    tmp_path: Path,
) -> None:
    """The server's input holds each side in its own drawn order (line i of one is not the
    translation of line i of the other); an upload naming the handed-out lines scores as the
    same choices written in the gold's lines."""
    pytest.importorskip("fastapi")
    from serve_kit import OPENS, Clock, campaign_toml, make_server, phase_toml, register, upload

    campaign = campaign_toml("lex25", phase_toml("trial", ["tatoeba-deu"], max_bytes=100_000))
    s = make_server(
        f"sqlite:///{tmp_path / 'serve.db'}", tmp_path / "server", Clock(OPENS + timedelta(1)),
        campaign,
    )  # fmt: skip
    token = register(s.client, "alpha")
    got = s.client.get("/api/campaigns/lex25/phases/trial/inputs/tatoeba-deu")
    assert got.status_code == 200, got.text
    with zipfile.ZipFile(io.BytesIO(got.content)) as z:
        source = z.read("source.txt").decode("utf-8").split("\n")[:-1]
        handed = z.read("target.txt").decode("utf-8").split("\n")[:-1]
    target = simeval.load_target("tatoeba-deu")
    assert sorted(source) == sorted(target.sources) and sorted(handed) == sorted(target.targets)
    kept = sum(a == b for a, b in zip(source, target.sources, strict=True))
    assert kept < 20  # drawn, not as published
    # answer: the right translation for the first 600 handed-out sources, line 1 for the rest
    where = {t: i + 1 for i, t in reversed(list(enumerate(handed)))}
    gold = dict(zip(target.sources, target.targets, strict=False))
    upload_lines = [str(where[gold[x]]) if k < 600 else "1" for k, x in enumerate(source)]
    r = upload(s.client, token, ("\n".join(upload_lines) + "\n").encode(), target="tatoeba-deu",
               filename="a.txt")  # fmt: skip
    assert r.status_code == 201, r.text
    (result,) = r.json()["results"]
    right = sum(
        handed[int(x) - 1] == gold[src] for x, src in zip(upload_lines, source, strict=True)
    )
    assert result["score"] == pytest.approx(right / 1000, abs=1e-12)
    assert right >= 600


def test_choices_in_memory_are_positions_sentences_or_none() -> None:
    target = simeval.load_target("tatoeba-rus")
    choices: list = list(range(1000))
    choices[0], choices[1], choices[2] = target.targets[0], None, 5  # right, none, wrong
    (r,) = simeval.score(target, choices)
    assert r.metrics["accuracy"] == 998 / 1000
    for bad in ([1.5] * 1000, [True] * 1000, list(range(999)), [1000] * 1000, ["no such"] * 1000):
        with pytest.raises(InputError):
            simeval.score(target, bad)
