"""Team names: how two names are told apart.

``name_key`` folds a name to the key that must be unique within a campaign, so that names a
reader cannot tell apart are refused as taken. The stored key is compared, never recomputed
from the old rows, so a change here applies to new registrations (migration ``0002`` filled the
key of teams made before it).
"""

from __future__ import annotations

import unicodedata


def name_key(name: str) -> str:
    """The uniqueness key of a team name: NFKC, then case folded."""
    return unicodedata.normalize("NFKC", name).casefold()
