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

A name of one script can still be drawn like another team's: Greek capitals ``ΝΟΚΙΑ`` beside
``NOKIA``, Lisu or Cherokee capitals, small capitals ``ᴀʟᴘʜᴀ`` beside ``alpha``, ``NOKlA``
(a small L) beside ``NOKIA``, ``alphɑ`` (Latin alpha) beside ``alpha``. So two names are told
apart by their keys (:func:`name_keys`): the Unicode TR39 confusables skeleton (:func:`skeleton`:
NFD, each character to its prototype, NFD again) of the whole name, case folded, once as the
name is written and once in lower case (``NOKIA`` is ``nokla`` and ``nokia``, ``nokia`` only
``nokia``: case alone never tells two teams apart). Two names sharing a key cannot both be
registered in one campaign. Registration compares the new name's keys with those of every
team's name, recomputed, and the stored ``name_key`` (:func:`name_key`, unique in a campaign;
migration ``0011`` recomputed it for the teams made before) backs it up with a constraint.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import cache

MAX_LENGTH = 64
MAX_KEY = 256  # the name_key column's length
PUNCTUATION = "-_."
LRM = "\u200e"  # the package's data wraps right-to-left characters in left-to-right marks
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


@cache
def _prototypes() -> dict[str, str]:
    """Each character of Unicode's confusables data that is not a prototype, mapped to its
    prototype (TR39's ``confusables.txt``, as the ``confusable-homoglyphs`` package holds it).

    The package keeps each line ``source → prototype`` both ways, so the direction is read
    from the shape of the data: a prototype is linked to every source drawn like it, a source
    to its one prototype (prototypes are never sources). Where a source is a prototype's only
    look-alike, the two link only each other and either may be the prototype: one of them
    stands for both, and prototypes of several characters are spelled with those stand-ins, so
    equal skeletons stay equal."""
    from confusable_homoglyphs import confusables

    links: dict[str, set[str]] = {}
    for char, entries in confusables.confusables_data.items():
        a = char.replace(LRM, "")
        for entry in entries:
            b = entry["c"].replace(LRM, "")
            links.setdefault(a, set()).add(b)
            links.setdefault(b, set()).add(a)
    table = {}
    for node, linked in links.items():
        if len(node) != 1 or len(linked) != 1:
            continue  # a sequence (only prototypes are), or a prototype of several sources
        (other,) = linked
        if len(other) > 1 or len(links[other]) > 1:
            table[node] = other
        else:
            table[node] = min(node, other)
    return {k: "".join(table.get(c, c) for c in v) for k, v in table.items()}


@cache
def _small_capitals() -> dict[int, str]:
    """Latin small capitals (``ᴀ``, ``ʟ``: drawn as short capitals, and prototypes of their
    own in TR39) mapped to the capitals they are drawn as, read from their Unicode names."""
    blocks = ((0x0250, 0x02AF), (0x1D00, 0x1D7F), (0xA720, 0xA7FF), (0x1DF00, 0x1DFFF))
    table = {}
    for low, high in blocks:
        for code in range(low, high + 1):
            found = re.fullmatch(
                r"LATIN LETTER SMALL CAPITAL ([A-Z]{1,2})", unicodedata.name(chr(code), "")
            )
            if found:
                table[code] = found[1]
    return table


def skeleton(text: str) -> str:
    """Unicode TR39's skeleton of ``text``: NFD, each character replaced by its prototype
    (:func:`_prototypes`), NFD again. Two strings with one skeleton are drawn alike
    (``I``, ``l`` and ``1`` share the prototype ``l``)."""
    table = _prototypes()
    mapped = "".join(table.get(c, c) for c in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


def _folded_skeleton(name: str) -> str:
    """The skeleton of ``name`` (NFKC, small capitals as capitals), case folded, and the
    skeleton again of that (case folding can make a character that is not a prototype)."""
    drawn = unicodedata.normalize("NFKC", name).translate(_small_capitals())
    return skeleton(skeleton(drawn).casefold())


def name_keys(name: str) -> set[str]:
    """The keys of a team name (module docstring): two names sharing one are look-alikes.
    The skeleton of the name as written, case folded (``NOKIA`` and ``NOKlA``), and of the
    name in lower case (``NOKIA`` and ``nokia``)."""
    return {
        _folded_skeleton(name),
        _folded_skeleton(unicodedata.normalize("NFKC", name).casefold()),
    }


def look_alike(name: str, others: list[str]) -> bool:
    """Whether ``name`` shares a key with one of ``others`` (:func:`name_keys`)."""
    keys = name_keys(name)
    return any(keys & name_keys(other) for other in others)


def name_key(name: str) -> str:
    """The stored uniqueness key of a team name: the case-folded skeleton of the name as
    written (:func:`name_keys`' first), or its sha256 when it is longer than the column."""
    key = _folded_skeleton(name)
    if len(key) <= MAX_KEY:
        return key
    return "sha256:" + hashlib.sha256(key.encode()).hexdigest()


def stored_keys(teams: list[tuple[int, int, str]]) -> dict[int, str | None]:
    """The ``name_key`` of each of ``teams`` (id, campaign id, name), as the migrations fill
    it: the first team of a key in a campaign holds it, a later look-alike (registered before
    keys were compared this way) gets none, so the unique constraint holds; the registration
    compares every name's keys anyway."""
    seen: set[tuple[int, str]] = set()
    keys: dict[int, str | None] = {}
    for team_id, campaign_id, name in sorted(teams):
        key = name_key(name)
        keys[team_id] = None if (campaign_id, key) in seen else key
        seen.add((campaign_id, key))
    return keys


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
