"""The benchmark registry: one declarative entry per benchmark and suite, and the user's own.

An entry is data — task kind, files, columns, score range, split, views, aggregate — and its
kind reads it into a benchmark (``TaskKind.load``, :mod:`simeval.kinds`). Adding a benchmark is
one entry here (plus its files in :mod:`simeval.data.catalog`); STS years are one layout each.

Entry types:

- :class:`PairEntry`: a word-pair gold file (``graded`` or ``related``);
- :class:`STSLayout`: one STS year and split: where its input and gold files are, per dataset;
- :class:`CollectionEntry`: a linking collection built once into the cache by a named builder
  (``xling-*``: the BUCC 2015 preparation of every staged document pair; ``xling-hard-*``:
  the same with each side keeping a different random half of the sentences), then read from
  there (``manifest.json`` records the inputs' sha256 and the settings);
- :class:`SuiteEntry`: members reported together, with an aggregate (``sum``, ``sts``,
  ``mean``) or none (a group such as ``words``).

The user's own benchmarks need no code:

- a path where a name is expected: a pair file (``--kind``, ``--gold-column``), a folder built
  by ``simeval build negatives`` (its ``pairs.csv``, related by default), an STS folder
  (``STS.input.<dataset>.txt`` + ``STS.gs.<dataset>.txt``, several datasets make a suite with
  ALL/ALLnrm/Mean) or a linking folder (``qrels`` or ``qrels.test``, and optionally the
  documents as ``queries.jsonl`` + ``corpus.jsonl``, :mod:`simeval.data.documents`);
- a registry file (TOML) naming a lab's benchmarks and suites, loaded by ``--registry FILE`` or
  ``SIMEVAL_REGISTRY`` (several files separated by ``:``)::

      [benchmark.lab-verbs]          # paths are relative to the TOML file
      kind = "graded"                # graded | related | sts | linking | a registered kind's
      gold = "verbs.tsv"
      column = "mean"                # optional, as --gold-column
      description = "our 120 verb pairs"

      [benchmark.lab-sts]
      kind = "sts"
      input = "STS.input.news.txt"
      gold = "STS.gs.news.txt"

      [benchmark.lab-links]
      kind = "linking"
      folder = "links"               # qrels(.test) [+ queries.jsonl, corpus.jsonl]

      [suite.lab]
      members = ["lab-verbs", "simlex999"]
      aggregate = "mean"             # sum | sts | mean | none

Their records carry the sha256 of every file read, like catalog benchmarks.
"""

from __future__ import annotations

import difflib
import os
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simeval.data.pairs import read_scored_pairs
from simeval.data.store import DataStore
from simeval.errors import InputError
from simeval.kinds import aggregates, from_toml, kind, toml_names
from simeval.kinds.base import Suite, View, sha256_of
from simeval.kinds.graded import GRADED as _GRADED
from simeval.kinds.linking import CollectionEntry, LinkingEntry, linking_folder
from simeval.kinds.pairs import PairBenchmark, PairEntry, Subset, pair_file, pair_kinds
from simeval.kinds.related import RELATED as _RELATED
from simeval.kinds.sts import STSEntry, sts_folder

GRADED, RELATED = _GRADED.name, _RELATED.name  # the catalog's word sets name their kind

REGISTRY_ENV = "SIMEVAL_REGISTRY"


@dataclass(frozen=True)
class STSLayout:
    """One STS year and split: ``{dataset}`` in the patterns; names ``{prefix}-{short}``."""

    prefix: str
    year: int
    split: str
    datasets: tuple[str, ...]
    input: str
    gold: str
    source: str = ""

    def name(self, dataset: str) -> str:
        return f"{self.prefix}-{dataset.removeprefix('surprise.').lower()}"


@dataclass(frozen=True)
class SuiteEntry:
    name: str
    members: tuple[str, ...]
    aggregate: str | None
    description: str
    layout: str = "folder"
    template: str | None = None  # one-file suites: the official file to fill in


Entry = PairEntry | STSEntry | CollectionEntry | LinkingEntry
RUSSE = (0.0, 1.0)
SIMLEX_VIEWS = (
    View("POS", "column", ("POS",)),
    View("concreteness", "quartiles", ("conc(w1)", "conc(w2)")),
    View("SimAssoc333", "flag", ("SimAssoc333",)),
)
WS_VIEWS = (View("split", "flags", ("similarity", "relatedness")),)


def _russe(name: str, path: str, kind: str, text: str, exclude: str | None = None) -> PairEntry:
    split = "train" if name.endswith("-train") else "test"
    return PairEntry(
        name, kind, path, text, None, RUSSE, exclude, missing="zero", source="russe", split=split
    )


PAIRS = (
    _russe(
        "russe-hj",
        "russe/hj-test.csv",
        GRADED,
        "RUSSE 2015 HJ: 333 Russian pairs with human judgements (Spearman)",
    ),
    _russe(
        "russe-rt",
        "russe/rt-test.csv",
        RELATED,
        "RUSSE 2015 RT: 9,548 RuThes pairs, half related (average precision)",
    ),
    _russe(
        "russe-ae",
        "russe/ae-test.csv",
        RELATED,
        "RUSSE 2015 AE: 1,952 associative thesaurus pairs, half related",
    ),
    _russe(
        "russe-ae2",
        "russe/ae2-test.csv",
        RELATED,
        "RUSSE 2015 AE2: 3,002 sociation.org pairs, half related",
    ),
    _russe("russe-hj-train", "russe/hj-train.csv", GRADED, "RUSSE HJ train sample (66 pairs)"),
    _russe(
        "russe-rt-train",
        "russe/rt.csv",
        RELATED,
        "RUSSE RT train: rt.csv without the rt-test pairs",
        "russe/rt-test.csv",
    ),
    _russe("russe-ae-train", "russe/ae-train.csv", RELATED, "RUSSE AE train (20,967 pairs)"),
    _russe("russe-ae2-train", "russe/ae2-train.csv", RELATED, "RUSSE AE2 train (83,770 pairs)"),
    PairEntry(
        "simlex999",
        GRADED,
        "simlex999/SimLex-999.txt",
        "SimLex-999: 999 English pairs, similarity 0-10, POS/concreteness/association kept",
        column="SimLex999",
        views=SIMLEX_VIEWS,
        source="simlex999",
    ),
    PairEntry(
        "wordsim353",
        GRADED,
        "wordsim353/combined.csv",
        "WordSim-353: 353 English pairs, 0-10 (similarity/relatedness split marked)",
        marks=(
            ("similarity", "wordsim353/similarity.tab"),
            ("relatedness", "wordsim353/relatedness.tab"),
        ),
        views=WS_VIEWS,
        source="wordsim353",
    ),
    PairEntry(
        "wordsim353-sim",
        GRADED,
        "wordsim353/similarity.tab",
        "WordSim-353 similarity split (Agirre et al. 2009), 203 pairs",
        source="wordsim353",
    ),
    PairEntry(
        "wordsim353-rel",
        GRADED,
        "wordsim353/relatedness.tab",
        "WordSim-353 relatedness split (Agirre et al. 2009), 252 pairs",
        source="wordsim353",
    ),
    PairEntry(
        "rg65", GRADED, "rg65/EN-RG-65.txt", "RG-65: 65 English noun pairs, 0-4", source="rg65"
    ),
    PairEntry(
        "mc30", GRADED, "mc30/EN-MC-30.txt", "MC-30: 30 English noun pairs, 0-4", source="mc30"
    ),
    *(
        PairEntry(
            name,
            GRADED,
            "men/MEN_dataset_natural_form_full",
            f"MEN{what}: English pairs, relatedness 0-50 (natural form)",
            source="men",
            split=split,
            subset=Subset(f"men/MEN_dataset_lemma_form.{split}", "men/MEN_dataset_lemma_form_full")
            if split != "full"
            else None,
        )
        for name, what, split in (
            ("men", " (3,000 pairs)", "full"),
            ("men-dev", " dev (2,000 pairs)", "dev"),
            ("men-test", " test (1,000 pairs)", "test"),
        )
    ),
    *(
        PairEntry(
            name,
            GRADED,
            "simverb3500/SimVerb-3500.txt",
            f"SimVerb-3500{what}: English verb pairs, similarity 0-10, WordNet relation kept",
            column="score",
            views=(View("relation", "column", ("wn",)),),
            source="simverb3500",
            split=split,
            # the split files repeat their first pair where a header would be and one dev row
            # lacks its relation: they name the pairs, the full file gives scores and relations
            subset=Subset(f"simverb3500/{file}") if file else None,
        )
        for name, file, what, split in (
            ("simverb3500", None, " (3,500 pairs)", "full"),
            ("simverb3500-dev", "SimVerb-500-dev.txt", " dev (500 pairs)", "dev"),
            ("simverb3500-test", "SimVerb-3000-test.txt", " test (3,000 pairs)", "test"),
        )
    ),
    *(
        PairEntry(name, GRADED, f"wordsets_en/{file}", text, source="wordsets_en", split="full")
        for name, file, text in (
            ("rw", "EN-RW-STANFORD.txt", "Stanford Rare Words: 2,034 English pairs, 0-10"),
            ("mturk287", "EN-MTurk-287.txt", "MTurk-287: 287 English pairs, 1-5"),
            ("mturk771", "EN-MTurk-771.txt", "MTurk-771: 771 English pairs, 1-5"),
            ("yp130", "EN-YP-130.txt", "YP-130: 130 English verb pairs, 0-4"),
            ("verb143", "EN-VERB-143.txt", "Verb-143: 144 English verb pairs (this copy)"),
        )
    ),
)

STS_LAYOUTS = (
    STSLayout(
        "sts12",
        2012,
        "test",
        ("MSRpar", "MSRvid", "SMTeuroparl", "surprise.OnWN", "surprise.SMTnews"),
        "sts2012/test/STS.input.{dataset}.txt",
        "sts2012/test/STS.gs.{dataset}.txt",
        "sts2012",
    ),
    STSLayout(
        "sts13",
        2013,
        "test",
        ("headlines", "OnWN", "FNWN", "SMT"),
        "sts/2013/test/STS.2013.test.input.{dataset}.txt",
        "sts/2013/test/STS.2013.test.gs.{dataset}.txt",
        "sts2013",
    ),
    STSLayout(
        "sts14",
        2014,
        "test",
        ("deft-forum", "deft-news", "headlines", "images", "OnWN", "tweet-news"),
        "sts/2014/test/STS.2014.test.input.{dataset}.txt",
        "sts/2014/test/STS.2014.test.gs.{dataset}.txt",
        "sts2014",
    ),
    STSLayout(
        "sts15",
        2015,
        "test",
        ("answers-forums", "answers-students", "belief", "headlines", "images"),
        "sts/2015/test/STS.2015.input.{dataset}.txt",
        "sts/2015/test/STS.2015.gs.{dataset}.txt",
        "sts2015",
    ),
    STSLayout(
        "sts16",
        2016,
        "test",
        ("answer-answer", "headlines", "plagiarism", "postediting", "question-question"),
        "sts/2016/test/STS.2016.input.{dataset}.txt",
        "sts/2016/test/STS.2016.gs.{dataset}.txt",
        "sts2016",
    ),
    STSLayout(
        "sts12-train",
        2012,
        "train",
        ("MSRpar", "MSRvid", "SMTeuroparl"),
        "sts2012/train/STS.input.{dataset}.txt",
        "sts2012/train/STS.gs.{dataset}.txt",
        "sts2012",
    ),
)

STSB = tuple(
    STSEntry(
        name,
        name,
        f"stsbenchmark/sts-{split}.csv",
        f"stsbenchmark/sts-{split}.csv",
        f"STS Benchmark {split} ({n} pairs from STS 2012-2017; Pearson, Spearman)",
        "stsbenchmark",
        format="stsb",
        views=(View("genre", "column", ("genre",)), View("year", "column", ("year",))),
        split=split,
    )
    for name, split, n in (
        ("stsb", "test", "1,379"),
        ("stsb-dev", "dev", "1,500"),
        ("stsb-train", "train", "5,749"),
    )
)

XLING_LANGUAGES = ("de", "fr", "ru", "tr", "zh")


def _xling(lang: str) -> CollectionEntry:
    return CollectionEntry(
        f"xling-{lang}-en",
        "bucc",
        (("lang", lang),),
        f"{lang}-en document linking (BUCC 2015 style) from every {lang}-en pair in xling/, "
        "BUCC preparation (first sentence dropped, IQR length filter, half held out)",
        "xling",
    )


def _xling_hard(lang: str) -> CollectionEntry:
    return CollectionEntry(
        f"xling-hard-{lang}",
        "bucc",
        (("lang", lang), ("halves", True)),
        f"{lang}-en document linking as xling-{lang}-en, but each side keeps a different random "
        "half of the pair's sentences (seeded per document), so pairs read as comparable "
        "articles, not translations",
        "xling",
    )


SUITES = (
    SuiteEntry(
        "russe",
        ("russe-hj", "russe-rt", "russe-ae", "russe-ae2"),
        "sum",
        "RUSSE 2015: HJ, RT, AE, AE2 from the one test.csv participants returned; sum ranks",
        layout="one-file",
        template="russe/test.csv",
    ),
    SuiteEntry(
        "sts12",
        tuple(STS_LAYOUTS[0].name(d) for d in STS_LAYOUTS[0].datasets),
        "sts",
        "SemEval-2012 STS test: five datasets with ALL, ALLnrm and Mean",
    ),
    *(
        SuiteEntry(
            layout.prefix,
            tuple(layout.name(d) for d in layout.datasets),
            "sts-year",
            f"SemEval-{layout.year} STS test: Pearson per set, Mean weighted by scored pairs",
        )
        for layout in STS_LAYOUTS
        if layout.year > 2012
    ),
    SuiteEntry(
        "sts",
        tuple(layout.prefix for layout in STS_LAYOUTS if layout.split == "test"),
        None,
        "SemEval STS 2012-2016 test: each year's suite with its official figure",
    ),
    SuiteEntry(
        "xling",
        tuple(f"xling-{x}-en" for x in XLING_LANGUAGES),
        "mean",
        "Cross-language document linking, de/fr/ru/tr/zh-en (mean over languages)",
    ),
    SuiteEntry(
        "xling-hard",
        tuple(f"xling-hard-{x}" for x in XLING_LANGUAGES),
        "mean",
        "Cross-language document linking, halves of each pair (mean over languages)",
    ),
    SuiteEntry(
        "words",
        ("simlex999", "wordsim353", "rg65", "mc30"),
        None,
        "English word similarity: SimLex-999, WordSim-353, RG-65, MC-30 (no aggregate)",
    ),
    SuiteEntry(
        "words-en",
        (
            "simlex999",
            "wordsim353",
            "rg65",
            "mc30",
            "men",
            "simverb3500",
            "rw",
            "mturk287",
            "mturk771",
            "yp130",
            "verb143",
        ),
        None,
        "Every English word set (no aggregate)",
    ),
)


def _sts_entries(layout: STSLayout) -> list[STSEntry]:
    return [
        STSEntry(
            layout.name(d),
            d,
            layout.input.format(dataset=d),
            layout.gold.format(dataset=d),
            f"SemEval-{layout.year} STS {layout.split} set {d}",
            layout.source,
        )
        for d in layout.datasets
    ]


# -- a registry: the catalog's entries and the user's -----------------------------------------

Builder = Callable[[CollectionEntry, DataStore], Any]  # -> LinkingCollection (data/documents)


@dataclass
class Registry:
    """Benchmarks and suites by name; files of user entries are paths, not catalog paths."""

    entries: dict[str, Entry] = field(default_factory=dict)
    suites: dict[str, SuiteEntry] = field(default_factory=dict)
    user: set[str] = field(default_factory=set)  # names whose files are plain paths

    @classmethod
    def catalog(cls) -> Registry:
        entries: dict[str, Entry] = {e.name: e for e in PAIRS}
        for layout in STS_LAYOUTS:
            entries.update({e.name: e for e in _sts_entries(layout)})
        entries.update({e.name: e for e in STSB})
        entries.update({e.name: e for e in map(_xling, XLING_LANGUAGES)})
        entries.update({e.name: e for e in map(_xling_hard, XLING_LANGUAGES)})
        return cls(entries, {s.name: s for s in SUITES})

    @classmethod
    def default(cls, files: list[str | Path] | None = None) -> Registry:
        """The catalog's entries, then those of ``files`` and of ``SIMEVAL_REGISTRY``."""
        registry = cls.catalog()
        env = [p for p in os.environ.get(REGISTRY_ENV, "").split(os.pathsep) if p]
        for f in [*env, *(files or [])]:
            registry.add_file(Path(f))
        return registry

    @property
    def names(self) -> list[str]:
        return [*self.entries, *self.suites]

    def add_file(self, path: Path) -> None:
        """Add the benchmarks and suites of a TOML registry file (module docstring)."""
        if not path.is_file():
            raise InputError(path, None, "no such registry file")
        try:
            doc = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise InputError(path, None, f"not a TOML registry: {exc}") from None
        unknown = set(doc) - {"benchmark", "suite"}
        if unknown:
            raise InputError(
                path,
                None,
                f"unknown table(s) {sorted(unknown)}: expected [benchmark.NAME] or [suite.NAME]",
            )
        catalog = Registry.catalog()
        for table in ("benchmark", "suite"):
            for name in doc.get(table, {}):
                if name in catalog.names:
                    raise InputError(
                        path,
                        None,
                        f"{table} {name!r}: the catalog has a {name}; choose another name",
                    )
        for name, spec in doc.get("benchmark", {}).items():
            self.entries[name] = _user_entry(path, name, dict(spec))
            self.user.add(name)
        for name, spec in doc.get("suite", {}).items():
            self.suites[name] = _user_suite(path, name, dict(spec))
        for s in self.suites.values():
            for m in s.members:
                if m in self.entries or (s.aggregate is None and m in self.suites):
                    continue  # a group may hold suites (``sts``: each year's)
                what = "a suite; an aggregate needs benchmarks" if m in self.suites else "unknown"
                raise InputError(path, None, f"suite {s.name}: member {m!r} is {what}")

    def expand(self, name: str) -> list[str]:
        """A group's members, or the name itself."""
        suite = self.suites.get(name)
        return list(suite.members) if suite is not None and suite.aggregate is None else [name]

    def check(self, name: str) -> None:
        if name in self.entries or name in self.suites or Path(name).exists():
            return
        if "/" in name or name.startswith("."):
            raise InputError(name, None, "no such file or folder")
        close = difflib.get_close_matches(name, self.names, n=3)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
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
            return self._suite(self.suites[name], store, build)
        if name in self.entries:
            return self._benchmark(self.entries[name], store, build)
        if Path(name).exists():
            return from_path(Path(name), **how)
        self.check(name)

    def _files(self, name: str, store: DataStore | None) -> Callable[[str], tuple[Path, str]]:
        """Resolve a file of entry ``name``: (local path, sha256)."""
        if name in self.user:
            return lambda p: (Path(p), sha256_of([p])[p])
        store = store or DataStore.from_env()
        return lambda p: (store.path(p), store.sha256(p))

    def _benchmark(self, entry: Entry, store: DataStore | None, build: Builder | None) -> Any:
        """The benchmark of ``entry``, read by its kind."""
        files = self._files(entry.name, store)
        made = None if build is None else (lambda e: build(e, store or DataStore.from_env()))
        return kind(entry.kind).load(entry, files, made)

    def _suite(self, entry: SuiteEntry, store: DataStore | None, build: Builder | None) -> Suite:
        members = [self._benchmark(self.entries[m], store, build) for m in entry.members]
        if entry.template:
            path, _ = self._files(entry.name, store)(entry.template)
            template = read_scored_pairs(path, keep_duplicates=True)
            for m in members:
                m.template = template
        return Suite(entry.name, members, entry.aggregate, entry.layout, entry.description)

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


# -- the user's benchmarks: a path, or an entry of a TOML file --------------------------------


def from_path(path: Path, kind: str | None = None, gold_column: str | None = None) -> Any:
    """The benchmark at ``path`` (module docstring), named by the path as given, so that two
    files called gold.tsv in different folders are two benchmarks. ``kind`` defaults to
    graded for a pair file and to the manifest's kind for a built folder."""
    if path.is_file():
        return pair_file(path, kind or "graded", gold_column)
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
    tasks never import the builders. ``kind`` overrides the declared kind."""
    import json

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
    if not pairs.is_file():
        raise InputError(pairs, None, f"missing: the folder's manifest names {pairs.name}")
    name = str(folder).rstrip("/")
    return pair_file(pairs, kind, gold_column, name=name, description=f"built: {name}")


def _either(names: list[str]) -> str:
    return " or ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


def _user_entry(source: Path, name: str, spec: dict[str, Any]) -> Entry:
    """A ``[benchmark.NAME]`` table of a registry file; paths relative to the file."""

    def rel(key: str) -> str:
        if key not in spec:
            raise InputError(source, None, f"benchmark {name}: {key!r} is required")
        return str((source.parent / str(spec.pop(key))).resolve())

    value = str(spec.pop("kind", "graded"))
    found = from_toml(value)
    if found is None:
        raise InputError(
            source,
            None,
            f"benchmark {name}: kind must be {_either(toml_names())}, not {value!r}",
        )
    entry = found.entry(source, name, spec, rel)
    if spec:
        raise InputError(source, None, f"benchmark {name}: unknown key(s) {sorted(spec)}")
    return entry


def _user_suite(source: Path, name: str, spec: dict[str, Any]) -> SuiteEntry:
    members = spec.pop("members", None)
    if not isinstance(members, list) or not members:
        raise InputError(source, None, f"suite {name}: members must be a list of benchmark names")
    aggregate = spec.pop("aggregate", "none")
    if aggregate not in (*aggregates(), "none"):
        raise InputError(
            source, None, f"suite {name}: aggregate must be {_either([*aggregates(), 'none'])}"
        )
    description = str(spec.pop("description", ""))
    if spec:
        raise InputError(source, None, f"suite {name}: unknown key(s) {sorted(spec)}")
    return SuiteEntry(
        name, tuple(map(str, members)), None if aggregate == "none" else aggregate, description
    )
