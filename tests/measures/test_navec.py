"""``navec:`` (issue 34, item 1): navec's vectors as the ``navec`` package gives them, cosine
by numpy here; the back-off through a lemma's forms, look-alike letters and word parts,
each computed here from pymorphy3 and navec directly."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simeval.measures import create_measure

navec_package = pytest.importorskip("navec")
pymorphy3 = pytest.importorskip("pymorphy3")


@pytest.fixture(scope="module")
def navec():  # type: ignore[no-untyped-def]
    from simeval.measures.navec import natasha_navec

    return navec_package.Navec.load(str(natasha_navec()))


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))


def test_words_navec_holds_score_its_cosine(navec) -> None:  # type: ignore[no-untyped-def]
    pairs = [("кошка", "собака"), ("машина", "автомобиль"), ("река", "молоко")]
    assert all(w in navec for p in pairs for w in p)
    got = create_measure("navec").score_words(pairs)
    expected = [_cos(navec[a], navec[b]) for a, b in pairs]
    assert got == pytest.approx(expected, abs=1e-5)  # rows kept as float32


def test_a_missing_lemma_gets_the_mean_of_its_forms(navec) -> None:  # type: ignore[no-untyped-def]
    assert "галька" not in navec and "гальки" in navec
    parse = pymorphy3.MorphAnalyzer().parse("галька")[0]
    forms = {parse.normal_form, *(f.word for f in parse.lexeme)}
    mean = np.mean([navec[f] for f in forms if f in navec], axis=0)
    measure = create_measure("navec")
    (score,) = measure.score_words([("галька", "камень")])
    assert score == pytest.approx(_cos(mean, navec["камень"]), abs=1e-5)
    assert measure.extra()["backoff_found"]["lemma's forms"] == 1
    (none,) = create_measure("navec:oov=zero").score_words([("галька", "камень")])
    assert np.isnan(none)


def test_look_alike_letters_and_word_parts(navec) -> None:  # type: ignore[no-untyped-def]
    latin_o = "мoлoкo"  # Latin o, as typed by mistake
    assert latin_o not in navec and "молоко" in navec
    parts = "кошка-собака"  # no such entry; both parts are there
    assert parts not in navec and "кошка" in navec and "собака" in navec
    measure = create_measure("navec")
    got = measure.score_words([(latin_o, "сыр"), ("зверь", parts)])
    assert got[0] == pytest.approx(_cos(navec["молоко"], navec["сыр"]), abs=1e-5)
    mean = np.mean([navec["кошка"], navec["собака"]], axis=0)
    assert got[1] == pytest.approx(_cos(navec["зверь"], mean), abs=1e-5)
    assert measure.extra()["backoff_found"] == {"cleaned": 1, "mean of parts": 1,
                                                "as written or a normal form": 2}  # fmt: skip


def test_a_file_that_is_not_navec_is_refused(tmp_path: Path) -> None:
    from simeval.errors import InputError

    bad = tmp_path / "x.tar"
    bad.write_bytes(b"not a tar")
    with pytest.raises(InputError, match="not a navec file"):
        create_measure(f"navec:path={bad}").score_words([("кошка", "собака")])
    with pytest.raises(InputError, match="navec file not found"):
        create_measure(f"navec:path={tmp_path / 'none.tar'}")
