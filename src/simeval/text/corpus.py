"""Reading raw corpora: files, folders and ``.tar.xz`` / ``.tar.gz`` / ``.tgz`` archives.

Every ``.txt`` file (or member) is a document, unless ``one_per_line`` makes each non-empty
line a document. Bytes are decoded as UTF-8, or cp1251 when they are not valid UTF-8 (one work
of the RusLit corpus is cp1251); anything else is an error naming the file. A Project Gutenberg
header and footer (the ``*** START OF`` / ``*** END OF`` lines) are cut off. Documents stream
one at a time, so a corpus never has to fit in memory.
"""

from __future__ import annotations

import lzma
import re
import tarfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from simeval.errors import InputError

_GUTENBERG_START = re.compile(r"^\*{3}\s*START OF (THIS|THE) PROJECT GUTENBERG.*$", re.M | re.I)
_GUTENBERG_END = re.compile(r"^\*{3}\s*END OF (THIS|THE) PROJECT GUTENBERG.*$", re.M | re.I)
ARCHIVES = (".tar.xz", ".tar.gz", ".tgz", ".tar")
# what reading a truncated or corrupt .tar.gz / .tar.xz raises, after it opened
ARCHIVE_DAMAGE = (tarfile.TarError, EOFError, zlib.error, lzma.LZMAError)


@dataclass
class Document:
    source: str  # file path, or archive path and member name
    text: str
    encoding: str


def decode(data: bytes, source: str) -> tuple[str, str]:
    """Text and encoding of a document: UTF-8 (BOM dropped), else cp1251."""
    try:
        return data.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        text = data.decode("cp1251")
    except UnicodeDecodeError:
        raise InputError(source, None, "neither UTF-8 nor cp1251") from None
    # cp1251 decodes almost anything; insist on mostly Cyrillic or ASCII letters
    letters = sum(ch.isalpha() for ch in text[:5000]) or 1
    cyrillic_or_ascii = sum(("а" <= ch.lower() <= "я") or ch.isascii() for ch in text[:5000])
    if cyrillic_or_ascii < 0.9 * min(len(text[:5000]), letters + text[:5000].count(" ")):
        raise InputError(source, None, "neither UTF-8 nor cp1251 text")
    return text, "cp1251"


def strip_gutenberg(text: str) -> str:
    """The text between Project Gutenberg's START and END marker lines (all of it if absent)."""
    start = _GUTENBERG_START.search(text)
    if start:
        text = text[start.end() :]
    end = _GUTENBERG_END.search(text)
    if end:
        text = text[: end.start()]
    return text


def _documents_of(source: str, data: bytes, one_per_line: bool) -> Iterator[Document]:
    text, encoding = decode(data, source)
    text = strip_gutenberg(text)
    if one_per_line:
        for i, line in enumerate(text.split("\n"), start=1):
            if line.strip():
                yield Document(f"{source}:{i}", line, encoding)
    else:
        yield Document(source, text, encoding)


def _is_text_name(name: str) -> bool:
    base = name.rsplit("/", 1)[-1]
    return base.endswith(".txt") and not base.startswith(".")


def iter_documents(path: str | Path, *, one_per_line: bool = False) -> Iterator[Document]:
    """Documents of a file, a folder (its ``.txt`` files, sorted) or an archive."""
    p = Path(path)
    if not p.exists():
        raise InputError(p, None, "corpus not found")
    if p.is_dir():
        files = sorted(f for f in p.rglob("*.txt") if f.is_file() and _is_text_name(f.name))
        if not files:
            raise InputError(p, None, "no .txt files in this folder")
        for f in files:
            yield from _documents_of(str(f), f.read_bytes(), one_per_line)
    elif p.name.endswith(ARCHIVES):
        try:
            opened = tarfile.open(p)  # noqa: SIM115 (closed by the with below)
        except ARCHIVE_DAMAGE:
            raise InputError(p, None, "not a readable tar archive (.tar.gz, .tar.xz)") from None
        with opened as archive:
            try:
                for member in archive:  # stream order; archives are read once, front to back
                    if member.isfile() and _is_text_name(member.name):
                        stream = archive.extractfile(member)
                        if stream is not None:
                            data = stream.read()
                            yield from _documents_of(f"{p}!{member.name}", data, one_per_line)
            except ARCHIVE_DAMAGE:  # a cut download: found only while reading
                raise InputError(
                    p, None, "not a readable tar archive (.tar.gz, .tar.xz): cut short or damaged"
                ) from None
    else:
        yield from _documents_of(str(p), p.read_bytes(), one_per_line)
