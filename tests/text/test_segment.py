"""Chinese tokens re-cut against a dictionary's headwords (``segment=headwords``): expected
tokens worked out by hand from the rule in :mod:`simeval.text.segment`."""

from __future__ import annotations

from simeval.text.segment import resegment

KNOWN = {"北卡罗来纳", "北卡", "州长", "候选人", "克利夫兰", "ab"}


def test_split_only_into_known_pieces_then_merge_runs() -> None:
    # 北卡罗 → 北卡 | 罗 (罗 unknown): stays whole; 来纳 → 来 | 纳: stays whole;
    # 州长候选人 → 州长 | 候选人 (both known): split; then 北卡罗 + 来纳 is a headword: joined;
    # 州长 + 候选人 is not (it was split because it is not): they stay apart.
    tokens = ["北卡罗", "来纳", "州长候选人", "的", "2010", "克利夫兰"]
    assert resegment(tokens, KNOWN) == ["北卡罗来纳", "州长", "候选人", "的", "2010", "克利夫兰"]


def test_longest_match_wins_over_shorter_headwords() -> None:
    # at position 0 北卡罗来纳 (5 characters) is preferred to 北卡 (2)
    assert resegment(["北卡罗来纳州长"], KNOWN) == ["北卡罗来纳", "州长"]


def test_tokens_without_chinese_are_never_cut_or_joined() -> None:
    assert resegment(["a", "b", "2010"], KNOWN) == ["a", "b", "2010"]
    assert resegment(["克利", "夫兰", "ab"], KNOWN) == ["克利夫兰", "ab"]


def test_nothing_known_leaves_jieba_tokens_as_they_are() -> None:
    tokens = ["钱德勒", "表示", "的"]
    assert resegment(tokens, set()) == tokens
