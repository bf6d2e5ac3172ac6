"""The catalog's record types: a published file set and its files."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CatalogFile:
    """One file: local path, size in bytes, sha256, path under the entry's upstream URL."""

    path: str
    size: int
    sha256: str
    remote: str


@dataclass(frozen=True)
class CatalogEntry:
    """A file set: where it comes from, under which licence, how to cite it."""

    name: str
    title: str
    description: str
    upstream: str
    licence: str
    citation: str
    files: tuple[CatalogFile, ...]
    note: str = ""

    def url(self, file: CatalogFile) -> str:
        return self.upstream.rstrip("/") + "/" + file.remote

    def file(self, path: str) -> CatalogFile:
        """The catalogued file with this local path (``russe/hj-test.csv``)."""
        for f in self.files:
            if f.path == path:
                return f
        raise KeyError(f"{path} is not in catalog entry {self.name}")
