"""The data catalog: every file simeval reads, with its upstream source, size and sha256.

A :class:`CatalogEntry` is one published file set (a dataset release). Files are addressed by
their path inside a data directory laid out like ``../shared/data`` (``russe/hj-test.csv``);
``remote`` is the path under the entry's ``upstream`` URL, pinned to a commit.

The entries are the ``[dataset.NAME]`` tables of the built-in catalog, TOML files beside the
benchmarks they serve (``simeval/registry/catalog/*.toml``, one per family)::

    [dataset.mc30]
    title = "MC-30 (Miller & Charles)"
    description = "30 English noun pairs rated 0-4 (a subset of RG-65, re-rated)."
    upstream = "https://raw.githubusercontent.com/..."
    licence = "MIT (repository)"
    citation = "..."
    note = "..."                                # optional
    files = [
      { path = "mc30/EN-MC-30.txt", size = 543, sha256 = "33ee...", remote = "EN-MC-30.txt" },
    ]

The files are read once, on first use of :data:`CATALOG` (importing this module reads none).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from simeval.data.tomlfile import TomlFile

# The catalog's TOML lives with the registry (benchmarks/, above this room): read as files,
# not imported. These families come first, in this order; any other file after them, by name.
CATALOG_DIR = Path(__file__).resolve().parent.parent / "registry" / "catalog"
FAMILIES = ("russe", "words", "sts", "linking")


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


@cache
def catalog_files() -> tuple[TomlFile, ...]:
    """The built-in catalog's TOML files, parsed once, families first (:data:`FAMILIES`)."""
    found = {p.stem: p for p in CATALOG_DIR.glob("*.toml")}
    order = [*(f for f in FAMILIES if f in found), *sorted(set(found) - set(FAMILIES))]
    return tuple(TomlFile.read(found[f], "catalog") for f in order)


def dataset_entry(file: TomlFile, name: str, spec: dict[str, Any]) -> CatalogEntry:
    """A ``[dataset.NAME]`` table (``spec``, consumed) as an entry; a missing or mistyped
    field names its line."""

    def text(key: str, default: str | None = None) -> str:
        value = spec.pop(key, default)
        if not isinstance(value, str):
            what = "is required" if value is None else "must be text"
            raise file.error("dataset", name, f"dataset {name}: {key!r} {what}", key)
        return value

    fields = {k: text(k) for k in ("title", "description", "upstream", "licence", "citation")}
    note = text("note", "")
    rows = spec.pop("files", None)
    if not isinstance(rows, list) or not rows:
        raise file.error("dataset", name, f"dataset {name}: 'files' must be a list", "files")
    files = []
    for row in rows:
        keys = ("path", "size", "sha256", "remote")
        if not isinstance(row, dict) or sorted(row) != sorted(keys):
            raise file.error(
                "dataset", name, f"dataset {name}: each file is {{{', '.join(keys)}}}", "files"
            )
        files.append(
            CatalogFile(str(row["path"]), int(row["size"]), str(row["sha256"]), str(row["remote"]))
        )
    if spec:
        raise file.error("dataset", name, f"dataset {name}: unknown key(s) {sorted(spec)}")
    return CatalogEntry(name, note=note, files=tuple(files), **fields)


@cache
def _datasets(files: tuple[TomlFile, ...]) -> dict[str, CatalogEntry]:
    """The ``[dataset.*]`` tables of ``files``, once per reading of them."""
    out: dict[str, CatalogEntry] = {}
    for file in files:
        for name, spec in file.tables("dataset").items():
            if name in out:
                raise file.error("dataset", name, f"dataset {name} is declared twice")
            out[name] = dataset_entry(file, name, spec)
    return out


class Catalog(Mapping[str, CatalogEntry]):
    """The data sets by name, read from the catalog files on first use (and again after
    ``catalog_files.cache_clear()``)."""

    @staticmethod
    def _entries() -> dict[str, CatalogEntry]:
        return _datasets(catalog_files())

    def __getitem__(self, name: str) -> CatalogEntry:
        return self._entries()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries())

    def __len__(self) -> int:
        return len(self._entries())


CATALOG: Mapping[str, CatalogEntry] = Catalog()


def entry_with_file(path: str) -> tuple[CatalogEntry, CatalogFile] | None:
    """The data set that lists the file at catalog path ``path``, and that file's entry."""
    return _by_path(catalog_files()).get(path)


@cache
def _by_path(files: tuple[TomlFile, ...]) -> dict[str, tuple[CatalogEntry, CatalogFile]]:
    """Every catalogued file by its path, with its data set (the first that lists it)."""
    out: dict[str, tuple[CatalogEntry, CatalogFile]] = {}
    for entry in _datasets(files).values():
        for file in entry.files:
            out.setdefault(file.path, (entry, file))
    return out


def catalogued(sha256: str) -> bool:
    """Whether a file with this sha256 is one the catalog lists (the published data, whose
    quirks the official scorers' numbers include)."""
    return sha256 in _checksums(catalog_files())


@cache
def _checksums(files: tuple[TomlFile, ...]) -> frozenset[str]:
    return frozenset(f.sha256 for entry in _datasets(files).values() for f in entry.files)
