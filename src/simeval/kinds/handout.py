"""What a shared-task campaign hands out: items in an order, and ids, that tell nothing of the
gold.

Published files list their items as their authors left them, often sorted by the gold score
(RUSSE's HJ, MC-30, RG-65, MEN), and linking collections name a query and its document alike
(``fr:wmt14/1041-cyberpresse`` and ``en:wmt14/1041-cyberpresse``). A campaign with a secret
(drawn when it is made) therefore hands out:

- its items in the order of HMAC-SHA256(secret, ``"order" TAB key``), the key being the item's
  own (a word pair's words, an STS line's benchmark and line number): the same
  secret and item always give the same place, nothing else does;
- for document linking, each test query and each document renamed ``q`` or ``d`` followed by
  the first 12 hex digits of HMAC-SHA256(secret, ``"query"|"document" TAB benchmark TAB id``).

An upload is read back against what was handed out (:meth:`simeval.kinds.base.TaskKind.restore`):
word pairs by their words, STS lines through the order, linking ids through the names. With no
secret (``None``: an offline ``simeval predict``, or a campaign made before secrets existed)
everything is handed out as published.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ID_DIGITS = 12  # hex digits of an opaque id: 48 bits, no collision among millions of ids


def _digest(secret: str, text: str) -> bytes:
    return hmac.new(secret.encode("utf-8"), text.encode("utf-8"), hashlib.sha256).digest()


def pair_key(a: str, b: str) -> str:
    """A word pair's key for the order: its two words as written, joined by a tab (as a
    submission's pairs are matched: a pair and its reverse are two items)."""
    return f"{a}\t{b}"


def order(secret: str | None, keys: Sequence[str]) -> list[int]:
    """The handed-out order of items with ``keys``: ``order[k]`` is the index of the item put
    at position ``k`` (the identity with no secret). Equal keys keep their published order."""
    if secret is None:
        return list(range(len(keys)))
    digests = [_digest(secret, f"order\t{k}") for k in keys]
    return sorted(range(len(keys)), key=lambda i: (digests[i], i))


def opaque_ids(secret: str, role: str, benchmark: str, ids: Sequence[str]) -> dict[str, str]:
    """Each id of ``ids`` renamed (module docstring); ``role`` is ``query`` or ``document``."""
    prefix = role[0]
    out = {i: prefix + _digest(secret, f"{role}\t{benchmark}\t{i}").hex()[:ID_DIGITS] for i in ids}
    if len(set(out.values())) != len(out):  # pragma: no cover  (2^-48 a pair of ids)
        raise ValueError(f"{benchmark}: two {role} ids drew the same name; draw a new secret")
    return out


@dataclass
class Restored:
    """An upload read back in the gold's terms: the file to score, where each of its lines
    came from in the upload (``lines[k]`` is the upload's line for line ``k``; None: the same
    line), the handed-out name of each id the file names, and the upload it was made from
    (``origin``; None: ``path`` itself), so that messages name what the participant sent."""

    path: Path
    lines: dict[int, int] | None = None
    names: dict[str, str] = field(default_factory=dict)
    origin: Path | None = None

    def error(self, path: str | None, line: int | None, message: str) -> tuple[Any, ...]:
        """An error's ``(path, line, message)`` about :attr:`path`, as about the upload."""
        if path is None or path != str(self.path):
            return path, line, self.message(message)
        return str(self.origin or self.path), self.line(line), self.message(message)

    def message(self, text: str) -> str:
        """``text`` naming the upload and the handed-out ids."""
        return self.text(text.replace(str(self.path), str(self.origin or self.path)))

    def line(self, number: int | None) -> int | None:
        """The upload's line that became line ``number`` of :attr:`path`."""
        if number is None or self.lines is None:
            return number
        return self.lines.get(number, number)

    def text(self, message: str) -> str:
        """``message`` naming handed-out ids instead of the gold's own."""
        if not self.names:
            return message
        import re

        def named(m: re.Match[str]) -> str:
            return self.names.get(m.group(0), m.group(0))

        return re.sub(r"[^\s'\",;()\[\]]+", named, message)


@dataclass
class Ordered:
    """One benchmark's items as handed out: each item's place in the input file and its gold
    (a score, a label, or for linking the place of the query's document in the documents)."""

    benchmark: str
    places: list[int]
    gold: list[float]


@dataclass
class LeakView:
    """What the leak audit examines of an input as handed out (:meth:`TaskKind.leak_view`):
    the order against the gold; each test query's handed-out id beside its judged documents'
    (``links``: benchmark, query id, document ids); the ids handed out and the published
    collection's own (``published``); items given twice with different gold (``repeats``:
    benchmark, the item as shown, its gold values)."""

    ordered: list[Ordered] = field(default_factory=list)
    links: list[tuple[str, str, list[str]]] = field(default_factory=list)
    handed: set[str] = field(default_factory=set)
    published: set[str] = field(default_factory=set)
    repeats: list[tuple[str, str, list[float]]] = field(default_factory=list)
