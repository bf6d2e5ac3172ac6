"""Team names: which names are allowed, and how two names are told apart.

A team name is taken as its NFKC form (full-width ``ａｌｐｈａ`` is ``alpha``) and must then be
1-64 characters: letters of one script or of a script plus Latin where the two share no
look-alikes (Chinese with Latin is fine, Cyrillic or Greek with Latin is not), digits, ``-``,
``_`` and ``.``, the first a letter or a digit. So team names in Russian (``Команда-1``) or
Chinese are welcome; spaces, control and format characters (``alpha\\n``, a zero-width
joiner, a right-to-left mark) are not.

Characters drawn as nothing (Unicode's default-ignorable code points: variation selectors,
Hangul fillers, the combining grapheme joiner) are refused, and so is a name that mixes
scripts where one holds a look-alike of another's letter (the ``confusable-homoglyphs``
package's reading of Unicode's confusables data: Armenian ``օ`` beside Latin letters).

``name_key`` folds a name to the key that must be unique within a campaign, so that names a
reader cannot tell apart are refused as taken: NFKC, case folded, and the Cyrillic and Greek
letters that look like Latin ones (``а`` U+0430 and ``a``) folded to those. Registration
compares the new key with the key of every team's name recomputed by this function, and the
stored key (migration ``0002`` filled the key of teams made before it) backs it up with a
unique constraint.
"""

from __future__ import annotations

import unicodedata

MAX_LENGTH = 64
PUNCTUATION = "-_."
# Cyrillic and Greek letters (after case folding) that look like Latin letters.
CONFUSABLES = str.maketrans(
    {
        # Cyrillic
        "а": "a",
        "в": "b",
        "ԁ": "d",
        "е": "e",
        "ё": "e",
        "һ": "h",
        "і": "i",
        "ї": "i",
        "ј": "j",
        "к": "k",
        "ӏ": "l",
        "м": "m",
        "н": "h",
        "о": "o",
        "р": "p",
        "с": "c",
        "ԛ": "q",
        "г": "r",
        "ѕ": "s",
        "т": "t",
        "ѵ": "v",
        "ԝ": "w",
        "х": "x",
        "у": "y",
        # Greek
        "α": "a",
        "β": "b",
        "ε": "e",
        "η": "n",
        "ι": "i",
        "κ": "k",
        "ν": "v",
        "ο": "o",
        "ρ": "p",
        "τ": "t",
        "υ": "u",
        "χ": "x",
        "γ": "y",
        "ω": "w",
        "ϲ": "c",
        "ϳ": "j",
    }
)
CONFUSABLE_SCRIPTS = {"CYRILLIC", "GREEK"}
# Unicode's Default_Ignorable_Code_Point ranges: characters a renderer may show as nothing
# (variation selectors, the combining grapheme joiner, Hangul fillers), so `beta` + U+FE0F
# reads as `beta`. Not all of them are format characters (category Cf), so they are listed.
DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)


def ignorable(char: str) -> bool:
    """Whether ``char`` is a default-ignorable code point (drawn as nothing)."""
    code = ord(char)
    return any(low <= code <= high for low, high in DEFAULT_IGNORABLE)


def name_key(name: str) -> str:
    """The uniqueness key of a team name: NFKC, case folded, NFKC again, Cyrillic and Greek
    look-alikes of Latin letters folded to those."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return folded.translate(CONFUSABLES)


def _script(char: str) -> str:
    """The script of a letter, from its Unicode name (``LATIN SMALL LETTER A`` → LATIN)."""
    return unicodedata.name(char, "UNKNOWN").split(" ", 1)[0]


def check_team_name(value: object) -> str:
    """The team name as stored (NFKC), or ValueError saying what is wrong with it."""
    if not isinstance(value, str):
        raise ValueError("a team name is text")
    if value != value.strip():
        raise ValueError("a team name cannot begin or end with a space or line break")
    name = unicodedata.normalize("NFKC", value)
    if not name:
        raise ValueError("the team name is empty")
    if len(name) > MAX_LENGTH:
        raise ValueError(f"a team name has at most {MAX_LENGTH} characters")
    for char in name:
        if ignorable(char):
            raise ValueError(f"a team name cannot hold U+{ord(char):04X}, which shows as nothing")
        category = unicodedata.category(char)
        if category[0] in "CZ":  # control, format, surrogate, unassigned; spaces, separators
            raise ValueError(f"a team name cannot hold U+{ord(char):04X} ({category})")
        if not (category[0] in "LN" or char in PUNCTUATION or category[0] == "M"):
            raise ValueError(f"{char!r}: use letters, digits, '-', '_' or '.'")
    if unicodedata.category(name[0])[0] not in "LN":
        raise ValueError("a team name begins with a letter or a digit")
    scripts = {_script(c) for c in name if unicodedata.category(c)[0] == "L"}
    confusable = scripts & CONFUSABLE_SCRIPTS
    if (confusable and "LATIN" in scripts) or len(confusable) > 1:
        raise ValueError("a team name cannot mix Latin, Cyrillic and Greek letters")
    from confusable_homoglyphs import confusables  # Unicode's confusables (UTS #39 data)

    if confusables.is_dangerous(name):  # mixed scripts with a look-alike: Armenian օ, …
        raise ValueError("a team name cannot mix scripts whose letters look alike")
    return name
