"""Suites of one file per member (``sts12``: ``STS.output.MSRpar.txt`` and four more) on the
server: a run is uploaded as one zip archive holding the members' files, as STS 2012's teams
sent a folder per run; the phase's input is a zip of the members' input files.

Unpacking takes only what is expected: an entry is used when its last name part equals a
member's file name (any folder inside the archive is ignored, so ``run1/STS.output.MSRpar.txt``
works and no entry name becomes a path: files are written under the member's own name), a
name given twice is refused, and the unpacked bytes together are capped as the upload was
(the phase's ``max_bytes``), counted while inflating, so a small archive cannot fill the disk.
"""

from __future__ import annotations

import re
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

from simeval.data.zipped import pack
from simeval.errors import InputError

__all__ = ["is_multi_file", "member_files", "pack", "unpack"]

CHUNK = 1 << 16
# what a damaged archive raises from zipfile (a bad CRC, a broken deflate stream, a cut-off
# entry, an unknown method or version, an encrypted entry, a mangled header): the client's
# error, never the server's
BROKEN = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    NotImplementedError,
    OSError,
    EOFError,
    zlib.error,
    struct.error,
    ValueError,
    RuntimeError,
    UnicodeDecodeError,
)


def is_multi_file(target: Any) -> bool:
    """A suite whose submission is a folder with a file per member."""
    return getattr(target, "layout", "one-file") == "folder" and bool(
        getattr(target, "members", None)
    )


def member_files(target: Any) -> list[str]:
    """The file names a run of ``target`` holds, one per member."""
    return [m.submission_file(Path()).name for m in target.members]


def unpack(archive: Path, into: Path, names: list[str], cap: int, shown: str) -> None:
    """Write the entries of ``archive`` named in ``names`` into the folder ``into``; errors
    name the client's file ``shown``."""
    wanted = set(names)
    try:
        zf = zipfile.ZipFile(archive)
    except BROKEN:
        raise InputError(
            shown, None, f"expected a zip archive of the run's files ({', '.join(names)})"
        ) from None
    into.mkdir(parents=True, exist_ok=True)
    total = 0
    taken: set[str] = set()
    with zf:
        for info in zf.infolist():
            base = re.split(r"[/\\]", info.filename)[-1]
            if info.is_dir() or base not in wanted:
                continue
            if base in taken:
                raise InputError(shown, None, f"{base} is in the archive twice")
            taken.add(base)
            try:
                with zf.open(info) as src, open(into / base, "wb") as dst:
                    while chunk := src.read(CHUNK):
                        total += len(chunk)
                        if total > cap:
                            raise InputError(
                                shown,
                                None,
                                f"unpacked, the files pass this phase's cap of {cap:,} bytes",
                            )
                        dst.write(chunk)
            except BROKEN as exc:
                raise InputError(shown, None, f"{base}: cannot unpack it ({exc})") from None
