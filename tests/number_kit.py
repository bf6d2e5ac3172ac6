"""What the property tests of every door share about numbers: the readers' decimal grammar,
written here by hand (not taken from simeval), and spellings of numbers, good and bad, that a
user may type into a file, a command line or a Python argument (issue 44)."""

from __future__ import annotations

import math

from hypothesis import strategies as st


def strict_decimal(text: str) -> bool:
    """The readers' grammar, written here by hand and not taken from simeval: optional ASCII
    blanks around; a sign; ASCII digits with at most one point and at least one digit; an
    optional exponent ``e``/``E``, a sign, at least one digit; at most 64 characters (the
    readers' cap on a number field)."""
    s = text.strip(" \t\r\n")
    digits = "0123456789"
    i = 1 if s[:1] in ("+", "-") else 0
    start = i
    while i < len(s) and s[i] in digits:
        i += 1
    whole = i - start
    fraction = 0
    if i < len(s) and s[i] == ".":
        i += 1
        start = i
        while i < len(s) and s[i] in digits:
            i += 1
        fraction = i - start
    if whole + fraction == 0:
        return False
    if i < len(s) and s[i] in "eE":
        i += 1
        i += 1 if s[i : i + 1] in ("+", "-") else 0
        start = i
        while i < len(s) and s[i] in digits:
            i += 1
        if i == start:
            return False
    return i == len(s) and len(s) <= 64


def read_strictly(text: str) -> float | None:
    """The number ``text`` stands for by :func:`strict_decimal` (finite), else None."""
    if not strict_decimal(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None


# spellings a user types: good ones, with blanks, exponents and signs; and what the readers
# refuse (digit separators, other scripts' digits, a decimal comma, inf and NaN, hexadecimal)
ODD_SPELLINGS = ("1_0", "\uff11", "\u0661", "inf", "-inf", "nan", "NaN", "3,5", "0x10", "1e999",
                 "--1", "1.2.3", "e5", ".", "+", "\u00b2", "1 0", "2,")  # fmt: skip
GOOD_SPELLINGS = (" 3.5 ", "\t2\t", "+1", "-0", ".5", "5.", "1e3", "2E-2", "007", "1e-320")


def spelled(value: float) -> st.SearchStrategy[str]:
    """``value`` written as a user may write it: ``repr``, ``%g``, with blanks around, with an
    explicit ``+`` (each reads back to ``value``, or within ``%g``'s six digits)."""
    return st.sampled_from([repr(value), f"{value:g}", f" {value!r} ", f"{value!r}\t",
                            f"+{value!r}" if value >= 0 else repr(value)])  # fmt: skip


def number_text() -> st.SearchStrategy[str]:
    """A number field's text: mostly numbers written out, sometimes an odd spelling or any
    short text."""
    grid = st.integers(-50, 50).map(lambda i: i / 10)
    return st.one_of(
        grid.flatmap(spelled),
        st.sampled_from(GOOD_SPELLINGS + ODD_SPELLINGS),
        st.text(alphabet="0123456789+-.eE_ ,xinfa\uff11", max_size=6),
    )
