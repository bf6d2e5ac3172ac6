"""Zip archives made in memory: a task's input files handed out as one download."""

from __future__ import annotations

import io
import zipfile


def pack(files: list[tuple[str, bytes]]) -> bytes:
    """A zip archive of ``(name, bytes)`` (deflated)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files:
            zf.writestr(name, data)
    return buffer.getvalue()
