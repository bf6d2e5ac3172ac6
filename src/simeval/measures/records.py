"""The JSON records of model folders (``combine.json``, ``graph.json``, ``model.json``), read
once at the edge: a missing, unreadable or incomplete record is an :class:`InputError` that
names the file and what it lacks, never a traceback later."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from simeval.errors import InputError


def read_record(path: Path, keys: tuple[str, ...], written_by: str) -> dict[str, Any]:
    """The JSON object in ``path``, which must hold ``keys`` (``written_by``: the command that
    writes it, for the message)."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(path, None, f"missing: not a folder of `{written_by}`") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(
            path, None, f"expected the JSON record of `{written_by}` ({exc})"
        ) from None
    missing = [k for k in keys if not isinstance(record, dict) or k not in record]
    if missing:
        raise InputError(
            path, None, f"expected the keys {', '.join(missing)} (written by `{written_by}`)"
        )
    return record
