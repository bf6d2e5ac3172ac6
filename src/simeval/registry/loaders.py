"""Reading an entry, or a path, into a benchmark or suite.

An entry's kind reads it (``TaskKind.load``), keyed by what it declares: a pair kind reads a
gold pair file, ``sts`` an STS input/gold pair or (``format = "stsb"``) an STS Benchmark file,
``linking`` a folder or a collection a named ``builder`` makes. This module gives the kind its
files — from the data store for catalog entries, as plain paths for the user's — and reads what
needs no entry:

- a path where a name is expected: a pair file (``--kind``, ``--gold-column``), a folder built
  by ``simeval build negatives`` (its ``pairs.csv``, related by default), an STS folder
  (``STS.input.<dataset>.txt`` + ``STS.gs.<dataset>.txt``, several datasets make a suite with
  ALL/ALLnrm/Mean) or a linking folder (``qrels`` or ``qrels.test``, and optionally the
  documents as ``queries.jsonl`` + ``corpus.jsonl``, :mod:`simeval.data.documents`).

Every record carries the sha256 of every file read, for catalog and user benchmarks alike.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from simeval.data.pair_files import read_scored_pairs
from simeval.data.store import DataStore
from simeval.errors import InputError
from simeval.kinds import kind
from simeval.kinds.base import Suite, sha256_of
from simeval.kinds.linking import CollectionEntry, linking_folder
from simeval.kinds.pairs import PairBenchmark, pair_file, pair_kinds
from simeval.kinds.sts import sts_folder
from simeval.registry.schema import Entry, SuiteEntry

Files = Callable[[str], tuple[Path, str]]  # a file of an entry -> (local path, sha256)
Builder = Callable[[CollectionEntry, DataStore], Any]  # -> LinkingCollection (data/documents)


def store_files(store: DataStore | None) -> Files:
    """Catalog paths, found (and checked against their sha256) in the data store."""
    store = store or DataStore.from_env()
    return lambda p: (store.path(p), store.sha256(p))


def plain_files(path: str) -> tuple[Path, str]:
    """A user entry's file: its own path, and the sha256 of what is there."""
    return Path(path), sha256_of([path])[path]


def with_gold(files: Files, gold: str, replaced: tuple[Path, str]) -> Files:
    """``files``, except that the entry's gold path ``gold`` is the file ``replaced`` (local
    path, sha256): a gold an organiser replaced on the server. Every other file of the entry is
    read as before, and the records' ``data`` name the replacement's sha256 under the entry's
    own path."""
    return lambda p: replaced if p == gold else files(p)


def load_benchmark(
    entry: Entry, files: Files, store: DataStore | None, build: Builder | None
) -> Any:
    """The benchmark of ``entry``, read by its kind. ``build`` makes collections not yet in the
    cache."""
    made = None if build is None else (lambda e: build(e, store or DataStore.from_env()))
    return kind(entry.kind).load(entry, files, made)


def load_suite(entry: SuiteEntry, members: list[Any], files: Files) -> Suite:
    """The suite of ``entry`` over its loaded ``members``; a one-file suite's template (the
    official file participants fill in) is read and given to every member."""
    if entry.template:
        path, _ = files(entry.template)
        template = read_scored_pairs(path, keep_duplicates=True)
        for m in members:
            m.template = template
    return Suite(entry.name, members, entry.aggregate, entry.layout, entry.description)


def from_path(
    path: Path,
    kind: str | None = None,
    gold_column: str | None = None,
    duplicates: str | None = None,
) -> Any:
    """The benchmark at ``path`` (module docstring), named by the path as given, so that two
    files called gold.tsv in different folders are two benchmarks. ``kind`` defaults to
    graded for a pair file and to the manifest's kind for a built folder; ``duplicates``: a
    pair file's policy for a pair given twice (:mod:`simeval.kinds.pairs`)."""
    if path.is_file():
        return pair_file(path, kind or "graded", gold_column, duplicates=duplicates)
    if path.is_dir():
        built = _built_benchmark(path, kind, gold_column)
        if built is not None:
            return built
        if any(path.glob("STS*.input.*.txt")):
            return sts_folder(path)
        if any((path / q).is_file() for q in ("qrels", "qrels.test")):
            return linking_folder(path)
        raise InputError(
            path,
            None,
            "expected an STS folder (STS.input.*.txt), a linking folder (qrels) or a built "
            "pair folder (manifest.json + pairs.csv, `simeval build negatives`)",
        )
    raise InputError(path, None, "no such file or folder")


def _built_benchmark(
    folder: Path, kind: str | None = None, gold_column: str | None = None
) -> PairBenchmark | None:
    """The benchmark a builder's folder declares in its ``manifest.json`` (``benchmark``: the
    file and its kind, e.g. ``simeval build negatives``' related pairs or a campaign's graded
    means; :mod:`simeval.datasets.folder`), or None for other folders. Only the manifest is read:
    the registry never imports the builders. ``kind`` overrides the declared kind."""
    manifest = folder / "manifest.json"
    if not manifest.is_file():
        return None
    try:
        record = json.loads(manifest.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(manifest, None, f"not a builder's JSON manifest: {exc}") from None
    declared = record.get("benchmark") if isinstance(record, dict) else None
    if not isinstance(declared, dict) or "file" not in declared:
        return None
    kind = kind or str(declared.get("kind", "graded"))
    if kind not in pair_kinds():
        raise InputError(manifest, None, f"benchmark kind {kind!r}: expected graded or related")
    pairs = folder / str(declared["file"])
    if not pairs.resolve().is_relative_to(folder.resolve()) or pairs.resolve() == folder.resolve():
        raise InputError(
            manifest, None, f"benchmark file {str(declared['file'])!r}: expected a file inside "
            "the folder",
        )  # fmt: skip
    if not pairs.is_file():
        raise InputError(pairs, None, f"missing: the folder's manifest names {pairs.name}")
    name = str(folder).rstrip("/")
    return pair_file(pairs, kind, gold_column, name=name, description=f"built: {name}")
