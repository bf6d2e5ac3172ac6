"""The catalog by name: the data sets behind a data set's, a benchmark's or a suite's name
(``simeval data info``, ``data verify``), and every benchmark as a :class:`Benchmark` with its
pairs, gold and metadata (``simeval.benchmark(name)``)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from simeval.api.options import checked
from simeval.api.targets import registry_of
from simeval.data.store import DataStore
from simeval.errors import InputError, did_you_mean


def data_sets() -> Mapping[str, Any]:
    """The catalog's data sets by name (:data:`simeval.data.catalog.CATALOG`): each with its
    title, description, licence, citation, upstream and files (path, size, sha256), as
    ``simeval data list`` and ``data info`` show them."""
    from simeval.data.catalog import CATALOG

    return CATALOG


def catalog_names(name: str, registry: Any = None) -> list[str]:
    """The catalog entries behind ``name``: a data set, or the data sets holding the files a
    benchmark or suite reads (``simlex999`` gives the SimLex-999 data set).

    Raises:
        InputError: ``name`` is neither, with the closest names as a hint.
    """
    from simeval.data.catalog import CATALOG

    if name in CATALOG:
        return [name]
    reg = registry_of(registry)
    if name in reg.names:
        files = set(reg.files(name))
        return [e.name for e in CATALOG.values() if files & {f.path for f in e.files}]
    hint = did_you_mean(name, [*CATALOG, *reg.names])
    raise InputError(
        None, None, f"unknown data set or benchmark {name!r}{hint} (`simeval data list`)"
    )


@dataclass(frozen=True)
class Metadata:
    """What a benchmark is and where its data come from, known without loading it.

    ``files``: each file the benchmark reads, with its sha256 (from the catalog; ``None`` for
    a user's file until the benchmark is loaded, see :attr:`Benchmark.data`); ``sources``: the
    data sets holding them, with ``licence``, ``citation`` and ``upstream`` of each."""

    name: str
    kind: str
    description: str
    files: dict[str, str | None]
    size: int  # bytes of the files, where the catalog knows them
    sources: dict[str, dict[str, str]]
    members: tuple[str, ...] = ()

    @property
    def licence(self) -> str:
        return "; ".join(dict.fromkeys(s["licence"] for s in self.sources.values()))

    @property
    def citation(self) -> str:
        return "\n\n".join(dict.fromkeys(s["citation"] for s in self.sources.values()))


FRAME_COLUMNS = ("name", "kind", "items", "main_metric", "description")


class Benchmark:
    """A benchmark or suite, the same shape for every kind: ``pairs[i]`` and ``gold[i]``
    go together — word pairs and their gold scores; STS sentence pairs and their gold (NaN:
    a line the gold leaves unscored); for linking, the judged (query, document) pairs and
    their relevance. ``metadata`` needs no loading; ``pairs``, ``gold`` and ``data`` load the
    benchmark on first use. ``score(predictions)`` and ``evaluate(measure)`` run it.

    Examples:
        >>> import simeval
        >>> mc30 = simeval.benchmark("mc30")
        >>> mc30.metadata.kind, len(mc30.pairs), mc30.pairs[0], mc30.gold[0]
        ('graded-pairs', 30, ('car', 'automobile'), 3.92)
    """

    def __init__(self, metadata: Metadata, load: Callable[[], Any]) -> None:
        self.metadata = metadata
        self._load = load
        self._target: Any = None

    @property
    def name(self) -> str:
        return self.metadata.name

    @property
    def kind(self) -> str:
        return self.metadata.kind

    @property
    def target(self) -> Any:
        """The loaded benchmark or suite, as the task code uses it."""
        if self._target is None:
            self._target = self._load()
        return self._target

    @property
    def members(self) -> list[Benchmark]:
        """A suite's member benchmarks (empty for a benchmark)."""
        return [_view(m) for m in getattr(self.target, "members", [])]

    @property
    def pairs(self) -> list[tuple[str, str]]:
        return self._items[0]

    @property
    def gold(self) -> list[float]:
        return self._items[1]

    @functools.cached_property
    def _items(self) -> tuple[list[Any], list[Any]]:
        """Pairs and gold, made once (``b.pairs[i]`` in a loop must not rebuild the lists)."""
        return _items(self.target)

    @property
    def data(self) -> dict[str, str]:
        """Every file read, with its sha256 (what a result records)."""
        return dict(self.target.data)

    def score(self, predictions: Any, **options: Any) -> list[Any]:
        """:func:`simeval.score` of predictions in memory or a file against this benchmark."""
        from simeval.api.scoring import score

        return score(self.target, predictions, **options)

    def evaluate(self, measure: Any, **how: Any) -> list[Any]:
        """:func:`simeval.evaluate` of ``measure`` on this benchmark."""
        from simeval.api.running import evaluate

        return evaluate(measure, self.target, **how)

    def __len__(self) -> int:
        """A benchmark's items (its pairs); a suite's member benchmarks (``len(suite) ==
        len(suite.members)``: a suite's items belong to its members)."""
        if self.metadata.members:
            return len(self.metadata.members)
        return len(self.pairs)

    @property
    def main_metric(self) -> str | None:
        """The metric the benchmark is ranked by (a suite's: its aggregate's, None for a
        group, which has none)."""
        found = self.target.task_kind
        if found is None:
            return None
        return getattr(found, "main", None) if self.members else found.main_metric()

    @property
    def items(self) -> int:
        """Items scored: a benchmark's gold rows, a suite's summed over its members."""
        return sum(m.items for m in self.members) if self.members else len(self.pairs)

    def to_frame(self) -> Any:
        """A pandas DataFrame describing the benchmark, a row per member benchmark for a
        suite (one row for a benchmark): ``name``, ``kind``, ``items`` (gold rows, summed
        over a member suite's members), ``main_metric`` (the metric it is ranked by),
        and ``description``. Loads the benchmark.

        Examples:
            >>> import simeval
            >>> words = simeval.benchmark("words")
            >>> len(words), words.to_frame()[["name", "items", "main_metric"]].values.tolist()
            ... # doctest: +NORMALIZE_WHITESPACE
            (4, [['simlex999', 999, 'spearman'], ['wordsim353', 353, 'spearman'],
                 ['rg65', 65, 'spearman'], ['mc30', 30, 'spearman']])
        """
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover
            raise ImportError("to_frame needs pandas: pip install 'simeval[frames]'") from exc
        rows = [
            {
                "name": b.name,
                "kind": b.kind,
                "items": b.items,
                "main_metric": b.main_metric,
                "description": b.metadata.description,
            }
            for b in (self.members or [self])
        ]
        return pd.DataFrame(rows, columns=list(FRAME_COLUMNS))

    def __repr__(self) -> str:
        return f"<Benchmark {self.name}: {self.kind}>"

    @classmethod
    def from_pairs(
        cls, rows: Any, *, kind: str = "graded", name: str = "pairs", description: str = ""
    ) -> Benchmark:
        """A word-pair benchmark in memory (:func:`simeval.api.targets.benchmark_from_pairs`)."""
        from simeval.api.targets import benchmark_from_pairs

        return _view(benchmark_from_pairs(rows, kind=kind, name=name, description=description))

    @classmethod
    def from_sts(cls, pairs: Any, gold: Any, *, name: str = "sts") -> Benchmark:
        """An STS benchmark in memory (:func:`simeval.api.targets.benchmark_from_sts`)."""
        from simeval.api.targets import benchmark_from_sts

        return _view(benchmark_from_sts(pairs, gold, name=name))

    @classmethod
    def from_qrels(cls, qrels: Any, *, name: str = "qrels") -> Benchmark:
        """A linking benchmark in memory from ranx-style qrels
        (:func:`simeval.api.targets.benchmark_from_qrels`)."""
        from simeval.api.targets import benchmark_from_qrels

        return _view(benchmark_from_qrels(qrels, name=name))


def _items(target: Any) -> tuple[list[Any], list[Any]]:
    """Pairs and gold, lined up, for any kind (``Benchmark``'s docstring)."""
    if getattr(target, "members", None):
        raise InputError(
            None, None, f"{target.name} is a suite: its members have pairs and gold (.members)"
        )
    if hasattr(target, "qrels"):
        q = target.qrels
        pairs = [(a.decode(), b.decode()) for a, b in zip(q.qids, q.docnos, strict=True)]
        return pairs, [int(r) for r in q.relevance]
    gold = target.gold
    if hasattr(gold, "pairs"):  # word pairs: the gold file's rows
        return list(gold.pairs), [float(s) for s in gold.scores]
    return list(target.pairs), [float(s) for s in gold]


def _view(target: Any) -> Benchmark:
    """A loaded benchmark or suite as a :class:`Benchmark`."""
    members = tuple(m.name for m in getattr(target, "members", []) or [])
    files = dict(target.data)
    meta = Metadata(target.name, str(target.kind or "group"), target.description or "", files,
                    0, {}, members)  # fmt: skip
    view = Benchmark(meta, lambda: target)
    view._target = target
    return view


def _metadata(name: str, reg: Any) -> Metadata:
    from simeval.data.catalog import entry_with_file

    files: dict[str, str | None] = {}
    sources: dict[str, dict[str, str]] = {}
    size = 0
    for path in dict.fromkeys(reg.files(name)):
        found = entry_with_file(path)
        if found is None:
            files[path] = None
            continue
        entry, file = found
        files[path] = file.sha256
        size += file.size
        sources[entry.name] = {
            "title": entry.title,
            "licence": entry.licence,
            "citation": entry.citation.strip(),
            "upstream": entry.upstream,
        }
    if name in reg.suites:
        suite = reg.suites[name]
        kind = f"suite ({suite.aggregate})" if suite.aggregate else "group"
        return Metadata(name, kind, suite.description, files, size, sources, tuple(suite.members))
    entry = reg.entries[name]
    return Metadata(name, entry.kind, entry.description, files, size, sources)


@checked()
def benchmark(name: str, registry: Any = None, store: DataStore | None = None) -> Benchmark:
    """The benchmark or suite ``name`` (the catalog's, a ``registry`` file's, or a path to a
    pair file, an STS folder or a linking folder), loaded on first use of its pairs or gold.

    Raises:
        InputError: no benchmark or suite of that name, with the closest names as a hint.

    Examples:
        >>> import simeval
        >>> hj = simeval.benchmark("russe-hj")
        >>> hj.metadata.licence, len(hj.pairs), hj.metadata.files["russe/hj-test.csv"][:12]
        ('MIT', 333, 'a84a5c284921')
    """
    from simeval.api.targets import load_target

    reg = registry_of(registry)
    if name not in reg.names:
        return _view(load_target(name, store, reg))  # a path, or an error naming close names
    return Benchmark(_metadata(name, reg), lambda: load_target(name, store, reg))


@checked()
def benchmarks(registry: Any = None, store: DataStore | None = None) -> list[Benchmark]:
    """Every benchmark and suite: the catalog's, then those of ``registry`` files and of
    ``SIMEVAL_REGISTRY``; none is loaded until its pairs or gold are used.

    Examples:
        >>> import simeval
        >>> found = {b.name: b for b in simeval.benchmarks()}
        >>> found["simlex999"].metadata.sources["simlex999"]["licence"]
        'research use, as distributed by its authors'
    """
    from simeval.api.targets import load_target

    reg = registry_of(registry)
    return [
        Benchmark(_metadata(n, reg), functools.partial(load_target, n, store, reg))
        for n in reg.names
    ]
