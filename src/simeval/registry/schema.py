"""The registry's entry types and the TOML grammar that declares them.

An entry is data — task kind, files, columns, score range, split, views, aggregate — and its
kind reads it into a benchmark (``TaskKind.load``, :mod:`simeval.kinds`). The built-in catalog
(``catalog/*.toml``, one file per family) and a user's registry file are written in the one
grammar below; adding a benchmark is one ``[benchmark.NAME]`` table.

A registry file, loaded by ``--registry FILE`` or ``SIMEVAL_REGISTRY`` (several files separated
by ``:``)::

    [benchmark.lab-verbs]          # paths are relative to the TOML file
    kind = "graded"                # graded | related | sts | linking | a registered kind's
    gold = "verbs.tsv"
    column = "mean"                # optional, as --gold-column
    missing = "error"              # optional: what an unscored pair gets (error | zero)
    duplicates = "error"           # optional: a pair given twice with two scores (error |
                                   # each | mean | first; the catalog's published sets: each)
    description = "our 120 verb pairs"

    [benchmark.lab-sts]
    kind = "sts"
    input = "STS.input.news.txt"
    gold = "STS.gs.news.txt"
    dataset = "news"               # optional: the name in STS.output.<dataset>.txt

    [benchmark.lab-links]
    kind = "linking"
    folder = "links"               # qrels(.test) [+ queries.jsonl, corpus.jsonl]

    [suite.lab]
    members = ["lab-verbs", "simlex999"]
    aggregate = "mean"             # sum | sts | sts-year | mean | none
    description = "..."            # optional

Keys the built-in catalog needs, open to any registry file (paths, again, relative to it):

- any benchmark: ``split`` (test, train, dev, full), ``source`` (the data set it comes from,
  for ``simeval data info``), ``views = [{ name, how, columns }]`` (the report's subsets;
  ``how``: column, quartiles, flag, flags);
- pairs: ``score_range = [low, high]``, ``exclude = FILE`` (drop the pairs that file holds),
  ``marks = { COLUMN = FILE }`` (a 1/0 column: is the pair in that file), ``subset = { split
  = FILE, via = FILE }`` (keep the rows that file lists; ``via``: a file aligned row by row with
  the gold, whose pairs are matched instead);
- sts: ``format = "stsb"`` (one STS Benchmark file, ``input`` = ``gold``);
- linking: ``builder = "bucc"`` and ``options = { ... }`` instead of ``folder``: a collection
  built once into the cache (:func:`simeval.datasets.bucc`);
- suites: ``layout = "one-file"`` and ``template = FILE`` (one file holds every member's pairs,
  as RUSSE's test.csv).

A benchmark's or suite's name, and an STS ``dataset``, become file names (``predict`` writes a
suite's members as ``NAME.csv``, ``STS.output.DATASET.txt``), so they follow :data:`NAME`: a letter
or digit, then letters, digits, ``.``, ``_`` or ``-``. A name is declared once over every file
loaded, as a benchmark or as a suite; a suite names each member once; a group (``aggregate =
"none"``) holds benchmarks and suites with an aggregate, never another group (so no cycle); an
aggregate that needs members of one kind (``sts``: STS sets) refuses others.

The catalog alone has ``[dataset.NAME]`` tables (:mod:`simeval.data.catalog`: files, sha256,
licence, citation), and its paths are the data store's (``simeval data list``), not relative.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from simeval.data.textio import shown
from simeval.data.tomlfile import TomlFile
from simeval.errors import InputError, did_you_mean
from simeval.kinds import aggregates, from_toml, toml_names
from simeval.kinds.base import View
from simeval.kinds.layouts import LAYOUTS
from simeval.kinds.linking import CollectionEntry, LinkingEntry
from simeval.kinds.pairs import DUPLICATE_POLICIES, MISSING_POLICIES, PairEntry, Subset
from simeval.kinds.sts import FORMATS, STSEntry

REGISTRY_ENV = "SIMEVAL_REGISTRY"
VIEWS = ("column", "quartiles", "flag", "flags")
SPLITS = ("test", "train", "dev", "full")
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")  # a name that is also a safe file name
NAME_RULE = "a letter or digit, then letters, digits, '.', '_' or '-'"
# keys a kind's own entry reads as text (``TaskKind.entry``): checked here, so a number or a
# table is refused by key rather than turned into a file name
TEXT_KEYS = ("description", "column", "missing", "dataset", "gold", "input", "folder")
# the keys beyond a kind's own (module docstring; read by ``_extensions``)
EXTENSION_KEYS = ("source", "split", "format", "builder", "options", "views", "score_range",
                  "exclude", "marks", "subset")  # fmt: skip
BENCHMARK_KEYS = ("kind", *TEXT_KEYS, "duplicates", *EXTENSION_KEYS)  # every kind's, together
SUITE_KEYS = ("members", "aggregate", "description", "layout", "template")


@dataclass(frozen=True)
class SuiteEntry:
    name: str
    members: tuple[str, ...]
    aggregate: str | None
    description: str
    layout: str = "folder"
    template: str | None = None  # one-file suites: the official file to fill in


Entry = PairEntry | STSEntry | CollectionEntry | LinkingEntry
Resolve = Callable[[str], str]  # a path as written -> the path the entry keeps
LOOP = "a symlink loop (its links lead back to themselves)"
Located = Callable[[str, str], str]  # (key, path as written) -> the path kept, or refused


@dataclass
class Declared:
    """The benchmarks and suites one registry file declares."""

    entries: dict[str, Entry] = dataclasses.field(default_factory=dict)
    suites: dict[str, SuiteEntry] = dataclasses.field(default_factory=dict)


def declared(file: TomlFile, resolve: Resolve, catalog: bool = False) -> Declared:
    """The ``[benchmark.*]`` and ``[suite.*]`` tables of ``file``. ``resolve`` makes a path as
    written into the one kept; ``catalog``: the built-in catalog (``[dataset.*]`` allowed)."""
    tables = ("benchmark", "suite", "dataset") if catalog else ("benchmark", "suite")
    unknown = set(file.doc) - set(tables)
    if unknown:
        raise InputError(
            file.path,
            None,
            f"unknown table(s) {quoted(unknown)}: expected [benchmark.NAME] or [suite.NAME]"
            + ("" if "dataset" not in unknown else " ([dataset.NAME]: the built-in catalog's)"),
        )
    out = Declared()
    benchmarks, suites = file.tables("benchmark"), file.tables("suite")
    for table, names in (("benchmark", benchmarks), ("suite", suites)):
        for name in names:
            if not NAME.fullmatch(name):
                raise file.error(table, name, f"{table} name {name!r}: expected {NAME_RULE}")
    folded: dict[str, str] = {}
    for table, names in (("benchmark", benchmarks), ("suite", suites)):
        for name in names:
            other = folded.setdefault(name.casefold(), name)
            if other != name:
                raise file.error(table, name, case_clash(table, name, other))
    both = sorted(benchmarks.keys() & suites.keys())
    if both:
        raise file.error("suite", both[0], f"{both[0]!r} is declared as a benchmark and a suite")
    for name, spec in benchmarks.items():
        out.entries[name] = benchmark_entry(file, name, spec, resolve)
    for name, spec in suites.items():
        out.suites[name] = suite_entry(file, name, spec, resolve)
    return out


def case_clash(table: str, name: str, other: str, where: str = "") -> str:
    """The message for a name that differs from ``other`` (declared ``where``) only in case."""
    return (
        f"{table} {name!r} differs only in case from {other!r}{where}: a name is also a file "
        "name (predict writes NAME.csv), and on many file systems the two are one; choose "
        "another name"
    )


def quoted(names: Iterable[str]) -> str:
    """``names`` sorted as a list in a message, each cut to 100 characters (a long key never
    pushes the rest of the message past its cut)."""
    return "[" + ", ".join(shown(name) for name in sorted(names)) + "]"


def unknown_keys(keys: Iterable[str], known: Iterable[str]) -> str:
    """The refusal of ``keys`` a table does not have, with the key meant by the first (a
    misspelling, most often: ``colum`` for ``column``)."""
    return f"unknown key(s) {quoted(keys)}{did_you_mean(sorted(keys)[0], known)}"


def _either(names: list[str]) -> str:
    return " or ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


def benchmark_entry(file: TomlFile, name: str, spec: dict[str, Any], resolve: Resolve) -> Entry:
    """A ``[benchmark.NAME]`` table (``spec``, consumed) as an entry of its kind."""

    def fail(message: str, key: str | None = None) -> InputError:
        return file.error("benchmark", name, f"benchmark {name}: {message}", key)

    located = _locating(resolve, fail)

    def rel(key: str) -> str:
        if key not in spec:
            raise fail(f"{key!r} is required")
        return located(key, str(spec.pop(key)))

    for key in ("kind", *TEXT_KEYS):
        if key in spec and not isinstance(spec[key], str):
            raise fail(f"{key!r} must be text, not {type(spec[key]).__name__}", key)
    if spec.get("missing", "error") not in MISSING_POLICIES:
        raise fail(f"missing must be {_either(list(MISSING_POLICIES))}", "missing")
    if spec.get("duplicates", "error") not in DUPLICATE_POLICIES:
        raise fail(f"duplicates must be {_either(list(DUPLICATE_POLICIES))}", "duplicates")
    if not NAME.fullmatch(spec.get("dataset", name)):
        raise fail(f"dataset {spec['dataset']!r}: expected {NAME_RULE}", "dataset")
    value = spec.pop("kind", "graded")
    found = from_toml(value)
    if found is None:
        raise fail(f"kind must be {_either(toml_names())}, not {value!r}", "kind")
    extra = _extensions(spec, located, fail)
    if "builder" in extra:
        options = extra.pop("options", {})
        entry: Any = found.built_entry(
            name, extra.pop("builder"), tuple(options.items()), str(spec.pop("description", ""))
        )
        if entry is None:
            raise fail(f"'builder' makes a linking collection, not a {found.name}", "builder")
    else:
        try:
            entry = found.entry(file.path, name, spec, rel)
        except InputError as exc:
            if exc.line is not None:
                raise
            raise file.error("benchmark", name, exc.message) from None
    fields = {f.name for f in dataclasses.fields(entry)}
    for key in extra:
        if key not in fields:
            raise fail(f"{key!r} does not apply to a {found.name} benchmark", key)
    if spec:
        raise fail(unknown_keys(spec, BENCHMARK_KEYS), sorted(spec)[0])
    return dataclasses.replace(entry, **extra)


def _locating(resolve: Resolve, fail: Callable[..., InputError]) -> Located:
    """``resolve`` for the path given at a key; a path the system cannot resolve (its links
    lead back to themselves: pathlib's RuntimeError) is refused at that key."""

    def located(key: str, path: str) -> str:
        try:
            return resolve(path)
        except RuntimeError:  # pathlib's "Symlink loop from …" (Python 3.11, 3.12)
            problem = LOOP
        except OSError as exc:
            problem = f"cannot use this path: {exc.strerror or exc}"
        raise fail(f"{key} {shown(path)}: {problem}", key)

    return located


def _extensions(spec: dict[str, Any], located: Located, fail: Callable[..., InputError]) -> dict:
    """The keys beyond a kind's own (module docstring), popped from ``spec`` and checked."""

    def text(key: str, value: Any) -> str:
        if not isinstance(value, str):
            raise fail(f"{key!r} must be text", key)
        return value

    def choice(key: str, value: Any, allowed: tuple[str, ...]) -> str:
        if value not in allowed:
            raise fail(f"{key!r} must be {_either(list(allowed))}, not {value!r}", key)
        return value

    def paths(key: str, value: Any) -> dict[str, str]:
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            raise fail(f"{key!r} must be a table of file paths", key)
        return {k: located(key, v) for k, v in value.items()}

    def view(value: Any) -> View:
        if not (
            isinstance(value, dict)
            and set(value) == {"name", "how", "columns"}
            and isinstance(value["name"], str)
            and value["how"] in VIEWS
            and isinstance(value["columns"], list)
            and all(isinstance(c, str) for c in value["columns"])
        ):
            raise fail(
                f"a view is {{ name, how = {_either(list(VIEWS))}, columns = [...] }}", "views"
            )
        return View(str(value["name"]), value["how"], tuple(map(str, value["columns"])))

    def score_range(value: Any) -> tuple[float, float]:
        numbers = isinstance(value, list) and all(
            isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
            for v in value
        )
        if not (numbers and len(value) == 2 and value[0] < value[1]):
            raise fail("'score_range' must be [low, high], two numbers, low < high", "score_range")
        return (float(value[0]), float(value[1]))

    def subset(value: Any) -> Subset:
        found = paths("subset", value)
        if "split" not in found or set(found) - {"split", "via"}:
            raise fail("'subset' is { split = FILE, via = FILE (optional) }", "subset")
        return Subset(found["split"], found.get("via"))

    def options(value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise fail("'options' must be a table", "options")
        return value

    read: dict[str, Callable[[Any], Any]] = {
        "source": lambda v: text("source", v),
        "split": lambda v: choice("split", text("split", v), SPLITS),
        "format": lambda v: choice("format", text("format", v), FORMATS),
        "builder": lambda v: text("builder", v),
        "options": options,
        "views": lambda v: tuple(map(view, v if isinstance(v, list) else [v])),
        "score_range": score_range,
        "exclude": lambda v: located("exclude", text("exclude", v)),
        "marks": lambda v: tuple(paths("marks", v).items()),
        "subset": subset,
    }
    return {key: read[key](spec.pop(key)) for key in list(spec) if key in read}


def suite_entry(file: TomlFile, name: str, spec: dict[str, Any], resolve: Resolve) -> SuiteEntry:
    """A ``[suite.NAME]`` table (``spec``, consumed) as an entry."""

    def fail(message: str, key: str | None = None) -> InputError:
        return file.error("suite", name, f"suite {name}: {message}", key)

    for key in ("aggregate", "description", "layout", "template"):
        if key in spec and not isinstance(spec[key], str):
            raise fail(f"{key!r} must be text, not {type(spec[key]).__name__}", key)
    members = spec.pop("members", None)
    if not (isinstance(members, list) and members and all(isinstance(m, str) for m in members)):
        raise fail("members must be a list of benchmark names", "members")
    twice = sorted({m for m in members if members.count(m) > 1})
    if twice:
        raise fail(f"member(s) {twice} named more than once", "members")
    aggregate = spec.pop("aggregate", "none")
    if aggregate not in (*aggregates(), "none"):
        raise fail(f"aggregate must be {_either([*aggregates(), 'none'])}", "aggregate")
    description = spec.pop("description", "")
    layout = spec.pop("layout", "folder")
    if layout not in LAYOUTS:
        raise fail(f"layout must be {_either(list(LAYOUTS))}", "layout")
    template = spec.pop("template", None)
    if spec:
        raise fail(unknown_keys(spec, SUITE_KEYS), sorted(spec)[0])
    return SuiteEntry(
        name,
        tuple(members),
        None if aggregate == "none" else aggregate,
        description,
        layout,
        None if template is None else _locating(resolve, fail)("template", template),
    )
