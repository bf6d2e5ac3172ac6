"""Benchmarks and suites by name: the built-in catalog's, then those of the user's registry
files (:mod:`.schema` gives the grammar of both).

The catalog's TOML files (``catalog/*.toml``, one per family: ``russe``, ``words``, ``sts``,
``linking``) are parsed once per process, on the first lookup; every :class:`Registry` starts
from a copy of what they declare.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from simeval.data.catalog import catalog_files
from simeval.data.pair_files import ColumnError
from simeval.data.store import DataStore
from simeval.data.textio import SHOWN, shown
from simeval.data.tomlfile import TomlFile
from simeval.errors import InputError, did_you_mean
from simeval.kinds import kind, suite_kind
from simeval.kinds.linking import CollectionEntry, LinkingEntry
from simeval.kinds.pairs import pair_kinds
from simeval.registry.loaders import (
    Builder,
    Files,
    from_path,
    load_benchmark,
    load_suite,
    plain_files,
    store_files,
    with_gold,
)
from simeval.registry.schema import (
    LOOP,
    REGISTRY_ENV,
    Declared,
    Entry,
    SuiteEntry,
    case_clash,
    declared,
)

# a name ending so is a file the user meant, not a benchmark's name (no name has a dot)
FILE_SUFFIXES = {".tsv", ".csv", ".txt", ".gz", ".zip", ".json", ".jsonl", ".trec", ".qrels"}


def _catalog() -> Declared:
    """What the built-in catalog declares (parsed once: ``catalog_files`` is cached)."""
    return _declared_by(catalog_files())


def _refuse(file: TomlFile, taken: dict[str, Any], message: str) -> None:
    """Refuse a benchmark or suite of ``file`` named as one of ``taken``, or as one of them in
    another case (``message``: a format of ``table``, ``name`` and ``other``, what ``taken``
    holds for the name: the file that declares it, None for the catalog)."""
    folded = {name.casefold(): name for name in taken}
    for table in ("benchmark", "suite"):
        for name in file.tables(table):
            same = name if name in taken else folded.get(name.casefold())
            if same == name:
                text = message.format(table=table, name=name, other=taken[name])
                raise file.error(table, name, text)
            if same is not None:
                where = " (the catalog's)" if taken[same] is None else f" (in {taken[same]})"
                raise file.error(table, name, case_clash(table, name, same, where))


@cache
def _declared_by(files: tuple[TomlFile, ...]) -> Declared:
    """What ``files`` declare, their suites checked as a user file's are."""
    registry = Registry()
    for file in files:
        _refuse(
            file, dict.fromkeys(registry.names), "{table} {name!r} is declared twice in the catalog"
        )
        registry._add(file, declared(file, str, catalog=True))
    return Declared(registry.entries, registry.suites)


def _check_paths(file: TomlFile, table: str, name: str, paths: list[str], folder: bool) -> None:
    """Refuse, at ``[table.name]`` of ``file``, a path that names nothing, a folder where a file
    is read or a file where a folder is (``folder``), or a path the system cannot use."""
    what = "folder" if folder else "file"
    for path in paths:
        found = Path(path)
        try:
            if found.is_dir() if folder else found.is_file():
                continue
            problem = f"no such {what}" if not found.exists() else f"not a {what}"
        except OSError as exc:  # a name too long, say
            problem = f"cannot use this path: {exc.strerror}"
        named = path if len(path) <= SHOWN else shown(path)  # a long name is cut
        raise file.error(
            table,
            name,
            f"{table} {name}: {named}: {problem} (paths are relative to the registry file)",
        )


@dataclass
class Registry:
    """Benchmarks and suites by name; files of user entries are paths, not catalog paths."""

    entries: dict[str, Entry] = field(default_factory=dict)
    suites: dict[str, SuiteEntry] = field(default_factory=dict)
    # names whose files are plain paths, and the registry file that declared each
    user: dict[str, TomlFile] = field(default_factory=dict)
    # benchmark name -> (local path, sha256) of a gold file read instead of the entry's own
    gold: dict[str, tuple[Path, str]] = field(default_factory=dict)

    @classmethod
    def catalog(cls) -> Registry:
        """The built-in catalog's benchmarks and suites."""
        built_in = _catalog()
        return cls(dict(built_in.entries), dict(built_in.suites))

    @classmethod
    def default(cls, files: list[str | Path] | None = None) -> Registry:
        """The catalog's entries, then those of ``files`` and of ``SIMEVAL_REGISTRY``."""
        registry = cls.catalog()
        env = [p for p in os.environ.get(REGISTRY_ENV, "").split(os.pathsep) if p]
        # a file named twice (in SIMEVAL_REGISTRY and by --registry) is read once
        given: dict[Path, Path] = {}
        for f in [*env, *(files or [])]:
            try:
                given.setdefault(Path(f).resolve(), Path(f))
            except RuntimeError:  # pathlib's "Symlink loop from …" (Python 3.11, 3.12)
                raise InputError(f, None, LOOP) from None
        for f in given.values():
            registry.add_file(f)
        return registry

    def with_gold(self, gold: dict[str, tuple[Path, str]]) -> Registry:
        """This registry, with the gold of each benchmark in ``gold`` read from the file given
        there (:func:`~.loaders.with_gold`; refused for an entry without a gold file)."""
        for name in gold:
            self.gold_path(name)
        return Registry(self.entries, self.suites, self.user, {**self.gold, **gold})

    def gold_path(self, name: str) -> str:
        """The gold file of benchmark ``name`` (a catalog path, or the user's path); refused
        for a suite or a benchmark whose kind reads no single gold file (linking)."""
        entry = self.entries.get(name)
        gold = getattr(entry, "gold", None)
        if not isinstance(gold, str):
            what = "a suite" if name in self.suites else "not a benchmark"
            if entry is not None:
                what = f"a {entry.kind} benchmark"
            raise InputError(None, None, f"{name} has no gold file to replace: {what}")
        return gold

    @property
    def names(self) -> list[str]:
        return [*self.entries, *self.suites]

    def add_file(self, path: Path) -> None:
        """Add the benchmarks and suites of a TOML registry file (:mod:`.schema`); its paths
        are relative to it."""
        file = TomlFile.read(path)
        catalog = _catalog()
        known = dict.fromkeys([*catalog.entries, *catalog.suites])
        _refuse(file, known, "{table} {name!r}: the catalog has a {name}; choose another name")
        taken = {name: f.path for name, f in self.user.items()}
        _refuse(file, taken, "{table} {name!r} is declared in {other} too; choose another name")
        found = declared(file, lambda p: str((path.parent / p).resolve()))
        self._add(file, found)
        self.user.update(dict.fromkeys([*found.entries, *found.suites], file))

    def _add(self, file: TomlFile, found: Declared) -> None:
        """Add ``found`` (declared in ``file``); a suite's members must be known by now."""
        self.entries.update(found.entries)
        self.suites.update(found.suites)
        for s in found.suites.values():
            for m in s.members:
                what = self._refused_member(s, m)
                if what:
                    raise file.error(
                        "suite", s.name, f"suite {s.name}: member {m!r} is {what}", "members"
                    )

    def _refused_member(self, suite: SuiteEntry, member: str) -> str | None:
        """Why ``member`` cannot be in ``suite``, or None. A group may hold suites with an
        aggregate (``sts``: each year's), never a group (no cycle, no group of groups); an
        aggregate holds benchmarks, of the kinds it combines; one file holds pair benchmarks."""
        if member in self.suites:
            if suite.aggregate is not None:
                return "a suite; an aggregate needs benchmarks"
            if self.suites[member].aggregate is None:
                return "a group; a group holds benchmarks and suites with an aggregate"
            return None
        if member not in self.entries:
            return "unknown" + did_you_mean(member, self.names)
        needs = suite_kind(suite.aggregate).member_kinds if suite.aggregate else ()
        found = self.entries[member].kind
        if needs and found not in needs:
            return f"a {found} benchmark; aggregate {suite.aggregate} combines {', '.join(needs)}"
        if suite.layout == "one-file" and found not in pair_kinds().values():
            return f"a {found} benchmark; one file (layout) holds word pairs only"
        return None

    def expand(self, name: str) -> list[str]:
        """A group's members, or the name itself."""
        suite = self.suites.get(name)
        return list(suite.members) if suite is not None and suite.aggregate is None else [name]

    def check(self, name: str) -> None:
        """Refuse a name that is neither a benchmark, a suite nor an existing path: one that
        looks like a path (a slash, a leading dot, a data file's suffix) as a missing file,
        anything else as an unknown name with the closest names."""
        if name in self.entries or name in self.suites or Path(name).exists():
            return
        if "/" in name or name.startswith(".") or Path(name).suffix.lower() in FILE_SUFFIXES:
            raise InputError(name, None, "no such file or folder")
        hint = did_you_mean(name, self.names)
        raise InputError(
            None,
            None,
            f"unknown benchmark or suite {name!r}{hint} (`simeval benchmarks` lists them; a "
            "path to a pair file, an STS folder or a linking folder works too)",
        )

    def load(
        self, name: str, store: DataStore | None = None, build: Builder | None = None, **how: Any
    ) -> Any:
        """The benchmark or suite ``name``, or the one at path ``name`` (``how``: ``kind`` and
        ``gold_column`` for a pair file). ``build`` makes collections not yet in the cache."""
        if name in self.suites:
            entry = self.suites[name]
            if entry.template and name in self.user:
                _check_paths(self.user[name], "suite", name, [entry.template], folder=False)
            # a group may hold suites with an aggregate (``sts``: each year's)
            members = [
                self.load(m, store, build) if m in self.suites else self._benchmark(m, store, build)
                for m in entry.members
            ]
            return load_suite(entry, members, self._files(name, store))
        if name in self.entries:
            return self._benchmark(name, store, build)
        if Path(name).exists():
            return from_path(Path(name), **how)
        self.check(name)

    def _files(self, name: str, store: DataStore | None) -> Files:
        """How the files of entry ``name`` are found: plain paths, or the data store's."""
        return plain_files if name in self.user else store_files(store)

    def _benchmark(self, name: str, store: DataStore | None, build: Builder | None) -> Any:
        """The benchmark ``name``; an error that names no file, from an entry of the user's
        (an unknown builder, a language no collection has), points at its table."""
        declared_in = self.user.get(name)
        if declared_in is not None:
            self._check_paths(declared_in, self.entries[name])
        entry = self.entries[name]
        files = self._files(name, store)
        if name in self.gold:
            files = with_gold(files, self.gold_path(name), self.gold[name])
        try:
            return load_benchmark(entry, files, store, build)
        except ColumnError as exc:
            asked = getattr(entry, "column", None)
            if declared_in is None or asked is None or str(exc.column) != str(asked):
                raise
            text = f"benchmark {name}: column {asked!r}: {exc}"
            raise declared_in.error("benchmark", name, text, "column") from None
        except InputError as exc:
            if exc.path is not None or declared_in is None:
                raise
            raise declared_in.error("benchmark", name, exc.message) from None

    def _check_paths(self, file: TomlFile, entry: Entry) -> None:
        """Refuse, at the entry's table, a path of a user entry that names nothing, or a
        folder where a file is read (a linking entry reads a folder)."""
        if isinstance(entry, CollectionEntry):
            return  # built into the cache: no path of the user's
        paths = kind(entry.kind).entry_files(entry)
        _check_paths(file, "benchmark", entry.name, paths, isinstance(entry, LinkingEntry))

    def files(self, name: str) -> list[str]:
        """The files an entry or suite reads (catalog paths for catalog entries)."""
        if name in self.suites:
            return [f for m in self.suites[name].members for f in self.files(m)]
        e = self.entries[name]
        return kind(e.kind).entry_files(e)

    def describe(self) -> list[tuple[str, str, str]]:
        """(name, kind, description) of every benchmark, then every suite."""
        out = [(e.name, e.kind, e.description) for e in self.entries.values()]
        for s in self.suites.values():
            what = f"suite ({s.aggregate})" if s.aggregate else "group"
            members = ", ".join(s.members)
            out.append((s.name, what, f"{s.description}: {members}" if s.description else members))
        return out
