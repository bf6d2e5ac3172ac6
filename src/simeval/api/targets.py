"""What is evaluated or scored: benchmarks and suites by name (catalog, registry file, path),
and the targets built straight from gold files (``score sts``, ``score trec``, ``score pairs``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence, Sized
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simeval.api.options import checked
from simeval.data.textio import as_number, as_numbers
from simeval.errors import InputError, InputWarning

if TYPE_CHECKING:  # both load the catalog's modules; `score trec` needs neither (issue 35)
    from simeval.data.store import DataStore
    from simeval.registry import Registry

Target = Any  # kinds.base.Benchmark | kinds.base.Suite


def registry_of(registry: Registry | str | Path | Iterable[str | Path] | None) -> Registry:
    """A Registry, or the default one with these registry files added."""
    from simeval.registry import Registry

    if isinstance(registry, Registry):
        return registry
    if registry is None:
        return Registry.default()
    files = [registry] if isinstance(registry, str | Path) else list(registry)
    return Registry.default(files)


@checked(passes=("kind", "gold_column", "duplicates"))  # for a pair file (simeval.registry.loaders)
def load_target(
    name: str,
    store: DataStore | None = None,
    registry: Registry | str | Path | Iterable[str | Path] | None = None,
    **how: Any,
) -> Target:
    """The benchmark or suite ``name`` (or at path ``name``; ``how``: ``kind``, ``gold_column``
    and ``duplicates`` for a pair file), as the task code uses it. Collections with a builder
    are built once into the cache. :func:`simeval.benchmark` gives the same with pairs, gold
    and metadata.

    Examples:
        >>> import simeval
        >>> russe = simeval.load_target("russe")
        >>> [m.name for m in russe.members]
        ['russe-hj', 'russe-rt', 'russe-ae', 'russe-ae2']
    """
    from simeval.datasets.loading import load

    return load(registry_of(registry), name, store, **how)


def as_target(
    target: Any,
    store: DataStore | None = None,
    registry: Registry | str | Path | Iterable[str | Path] | None = None,
) -> Target:
    """A name loaded (:func:`load_target`), a :class:`simeval.api.catalog.Benchmark` as the
    benchmark it wraps, a loaded benchmark or suite as it is; anything else is refused,
    naming the argument."""
    from simeval.kinds.base import Benchmark, Suite

    if isinstance(target, str | Path):
        return load_target(str(target), store, registry)
    if hasattr(target, "metadata") and hasattr(target, "target"):
        return target.target
    if not isinstance(target, Benchmark | Suite):
        raise InputError(
            None, None, f"target: expected a benchmark's name or path, a simeval.Benchmark or "
            f"a loaded benchmark, got {type(target).__name__}",
        )  # fmt: skip
    return target


def load_targets(
    names: Iterable[str],
    store: DataStore | None = None,
    registry: Registry | str | Path | Iterable[str | Path] | None = None,
    **how: Any,
) -> list[Target]:
    """Targets by name, groups expanded, each once, in the order given."""
    from simeval.data.store import DataStore

    reg = registry_of(registry)
    expanded: list[str] = []
    for name in names:
        reg.check(name)
        expanded += [n for n in reg.expand(name) if n not in expanded]
    store = store or DataStore.from_env()
    return [load_target(n, store, reg, **how) for n in expanded]


def member_benchmarks(
    names: Iterable[str],
    store: DataStore | None = None,
    registry: Registry | str | Path | Iterable[str | Path] | None = None,
) -> list[Target]:
    """The benchmarks behind ``names``, suites expanded into their members."""
    found: list[Target] = []
    for target in load_targets(names, store, registry):
        found += list(target.members) or [target]
    return found


def target_files(
    names: Iterable[str | Path], store: DataStore | None = None, registry: Any = None
) -> list[Path]:
    """Every file the targets ``names`` read (a one-file suite's template, RUSSE's test.csv,
    included); a name that is a file stands for itself."""
    from simeval.data.store import DataStore

    reg, store = registry_of(registry), store or DataStore.from_env()
    out: list[Path] = []
    for name in names:
        if Path(name).is_file():
            out.append(Path(name))
            continue
        reg.check(str(name))
        files = reg.files(str(name))
        suite = reg.suites.get(str(name))
        if suite is not None and suite.template:
            files.append(suite.template)
        out += [store.path(f) for f in dict.fromkeys(files)]
    return out


def sts_target(gold: Sequence[str | Path]) -> Target:
    """STS gold files of any year (``STS.gs.<dataset>.txt``) as one benchmark, or as a suite
    with ALL, ALLnrm and Mean when there are several."""
    from simeval.kinds.sts import sts_gold_files

    return sts_gold_files([Path(g) for g in gold])


def trec_target(qrels: str | Path) -> Target:
    """A linking benchmark judged by a TREC qrels file (``qid iter docno rel``)."""
    from simeval.data.trec import read_qrels
    from simeval.kinds.base import sha256_of
    from simeval.kinds.linking import LinkingBenchmark

    return LinkingBenchmark(Path(qrels).name, read_qrels(Path(qrels)), data=sha256_of([qrels]))


def pair_target(
    gold: str | Path | None = None,
    benchmark: str | None = None,
    *,
    kind: str | None = None,
    gold_column: str | None = None,
    store: DataStore | None = None,
    registry: Any = None,
    duplicates: str | None = None,
) -> Target:
    """A word-pair benchmark: a gold pair file, or exactly one named pair benchmark (``kind``,
    when given, must agree with it). ``duplicates``: the gold file's policy for a pair given
    twice with different scores, ``"error"`` (default), ``"each"``, ``"mean"`` or ``"first"``
    (:mod:`simeval.kinds.pairs`; a registry entry says it with its ``duplicates`` key)."""
    from simeval.kinds.pairs import PairBenchmark, pair_file, pair_kinds

    if (gold is None) == (benchmark is None):
        raise InputError(None, None, "give exactly one of --gold FILE or --benchmark NAME")
    if gold is not None:
        return pair_file(Path(gold), kind or "graded", gold_column, duplicates=duplicates)
    target = load_target(str(benchmark), store, registry)
    if not isinstance(target, PairBenchmark):
        raise InputError(None, None, f"{benchmark} is not a word-pair benchmark")
    if kind is not None and pair_kinds().get(kind) != target.kind:
        raise InputError(
            None, None, f"--kind {kind} conflicts with {benchmark}, a {target.kind} benchmark"
        )
    return target


def _memory_data(name: str, rows: Iterable[str]) -> dict[str, str]:
    """What a record's ``data`` says of a benchmark held in memory: ``<memory:NAME>`` and the
    sha256 of its rows written as lines of a file, so two runs on the same rows say so."""
    import hashlib

    digest = hashlib.sha256()
    for row in rows:
        digest.update(f"{row}\n".encode())
    return {f"<memory:{name}>": digest.hexdigest()}


def _refuse_unless(value: Any, kinds: tuple[type, ...], argument: str, expected: str) -> None:
    """Refuse ``value`` unless it is each of ``kinds`` (and not a string, a sequence of
    characters), naming ``argument`` and what was ``expected``."""
    if isinstance(value, str | bytes) or not all(isinstance(value, k) for k in kinds):
        raise InputError(None, None, f"{argument}: expected {expected}, got {type(value).__name__}")


def _refuse_a_second_score(
    name: str, pair: tuple[str, str], first: int, before: float, number: int, score: float
) -> None:
    """A pair given twice with different gold scores is refused, as in a user's gold file
    (:func:`simeval.data.pair_files.read_scored_pairs`); ids compare as text (str of each)."""
    from simeval.data.textio import shown

    if score != before:
        raise InputError(
            None, number, f"{name}: pair {shown(pair[0])},{shown(pair[1])} given twice with "
            f"different scores ({before!r} in row {first}, {score!r} here)",
        )  # fmt: skip


@checked()
def benchmark_from_pairs(
    rows: Iterable[tuple[str, str, float]],
    *,
    kind: str = "graded",
    name: str = "pairs",
    description: str = "",
) -> Target:
    """A word-pair benchmark held in memory: ``(word1, word2, gold score)`` rows, as a gold
    pair file would give them (``kind``: ``graded``, correlations; ``related``, gold 1 or 0).

    The record's ``data`` names it by the sha256 of its rows written as a TSV file (word1,
    word2, score with ``repr`` of the float), so two runs on the same rows say so. As in a
    user's gold file, a pair given twice with different scores is refused; given twice with
    the same score it stays two items, with a warning.

    Examples:
        >>> import simeval
        >>> gold = simeval.benchmark_from_pairs([("cat", "dog", 7.5), ("cat", "car", 1.0)])
        >>> gold.gold.pairs
        [('cat', 'dog'), ('cat', 'car')]
    """
    import numpy as np

    from simeval.data.pair_files import ScoredPairs
    from simeval.kinds.pairs import PairBenchmark, pair_kinds

    kinds = pair_kinds()
    if kind not in kinds:
        raise InputError(None, None, f"kind must be {' or '.join(kinds)}, not {kind!r}")
    _refuse_unless(rows, (Iterable,), "rows", "(word1, word2, score) rows")
    pairs, scores = [], []
    first_row: dict[tuple[str, str], int] = {}
    repeats: list[int] = []
    for number, row in enumerate(rows, 1):
        if not isinstance(row, tuple | list) or len(row) != 3:
            raise InputError(None, number, f"{name}: expected (word1, word2, score), got {row!r}")
        a, b, value = row
        score = as_number(value, f"{name}: row {number}: score")
        pair = (str(a), str(b))
        if pair in first_row:
            _refuse_a_second_score(name, pair, first_row[pair], scores[first_row[pair] - 1],
                                   number, score)  # fmt: skip
            repeats.append(number)
        first_row.setdefault(pair, number)
        pairs.append(pair)
        scores.append(score)
    if not pairs:
        raise InputError(None, None, f"{name}: no rows")
    data = _memory_data(name, (f"{a}\t{b}\t{s!r}" for (a, b), s in zip(pairs, scores, strict=True)))
    gold = ScoredPairs(None, pairs, np.array(scores), np.arange(1, len(pairs) + 1))
    if repeats:  # as a user's gold file: identical repeats stay items, counted in a warning
        gold.warnings.append(InputWarning(None, repeats[0], f"{name}: {len(repeats)} row(s) "
                                          "repeat an earlier pair (first here); they are kept "
                                          "as separate items"))  # fmt: skip
    return PairBenchmark(name, kinds[kind], gold, description, data)


@checked()
def benchmark_from_qrels(
    qrels: Mapping[str, Mapping[str, int]] | Any, *, name: str = "qrels"
) -> Target:
    """A linking benchmark held in memory, judged by ranx-style qrels ``{query_id: {doc_id:
    relevance}}`` or ranx's ``Qrels`` object (relevance > 0 is relevant, as trec_eval reads a
    qrels file); score a run ``{query_id: {doc_id: score}}`` or ranx's ``Run`` against it with
    :func:`simeval.score`. Ids compare as
    text, as in a qrels file: ``{1: {...}, "1": {...}}`` judging one document twice for
    query 1 is refused, as a qrels file judging it on two lines is.

    Examples:
        >>> import simeval
        >>> target = simeval.benchmark_from_qrels({"q1": {"d1": 1}, "q2": {"d7": 1}})
        >>> run = {"q1": {"d1": 0.9, "d2": 0.5}, "q2": {"d3": 0.8, "d7": 0.4}}
        >>> simeval.score(target, run)[0].metrics["recip_rank"]
        0.75
    """
    import numpy as np

    from simeval.data.trec import Qrels, id_in_memory, refuse_repeats_in_memory
    from simeval.kinds.linking import LinkingBenchmark
    from simeval.kinds.predictions import as_query_dict

    qrels = as_query_dict(qrels)
    _refuse_unless(qrels, (Mapping,), "qrels", "ranx-style qrels {query_id: {doc_id: relevance}}")
    qids, docnos, relevance = [], [], []
    for qid, judged in qrels.items():
        if not isinstance(judged, Mapping):
            raise InputError(None, None, f"{name}: query {qid!r}: expected {{doc_id: relevance}}")
        for docno, rel in judged.items():
            if isinstance(rel, bool) or not isinstance(rel, int | np.integer):
                raise InputError(
                    None, None, f"{name}: query {qid!r}, document {docno!r}: relevance {rel!r} "
                    "is not an integer",
                )  # fmt: skip
            qids.append(id_in_memory(qid, name, "query"))
            docnos.append(id_in_memory(docno, name, "document"))
            relevance.append(int(rel))
    if not qids:
        raise InputError(None, None, f"{name}: no judgements")
    lines = (f"{q.decode()} 0 {d.decode()} {r}" for q, d, r in zip(qids, docnos, relevance,
             strict=True))  # fmt: skip
    qid_array, docno_array = np.array(qids, dtype=bytes), np.array(docnos, dtype=bytes)
    refuse_repeats_in_memory(qid_array, docno_array, name, "judged")
    judged = Qrels(None, qid_array, docno_array, np.array(relevance, dtype=np.int64),
                   np.arange(1, len(qids) + 1))  # fmt: skip
    return LinkingBenchmark(name, judged, data=_memory_data(name, lines))


@checked()
def benchmark_from_sts(
    pairs: Sequence[tuple[str, str]], gold: Sequence[float | None], *, name: str = "sts"
) -> Target:
    """An STS benchmark held in memory: sentence pairs and their gold scores (``None`` or NaN
    for a line the gold leaves unscored, as a blank line of ``STS.gs.*.txt``), scored as the
    STS Perl scorer scores a file: Pearson over the scored lines.

    Examples:
        >>> import simeval
        >>> target = simeval.api.benchmark_from_sts(
        ...     [("A man plays.", "A man is playing."), ("Dogs run.", "A cat sleeps."),
        ...      ("It rains.", "Rain falls.")], [4.8, 0.4, 3.9])
        >>> simeval.score(target, [0.9, 0.1, 0.7])[0].metrics["pearson"] > 0.99
        True
    """
    import numpy as np

    from simeval.kinds.sts import STSBenchmark

    _refuse_unless(pairs, (Sized, Iterable), "pairs", "a list of (sentence1, sentence2)")
    _refuse_unless(gold, (Sized, Iterable), "gold", "a list of scores (None: an unscored line)")
    if any(not isinstance(p, tuple | list) or len(p) != 2 for p in pairs):
        raise InputError(None, None, f"{name}: every pair must be (sentence1, sentence2)")
    rows = [tuple(map(str, p)) for p in pairs]
    if len(rows) != len(gold) or not rows:
        raise InputError(
            None, None, f"{name}: {len(rows)} sentence pairs and {len(gold)} gold scores"
        )
    values = as_numbers(gold, f"{name}: gold score", missing=True)
    if np.isnan(values).all():
        raise InputError(None, None, f"{name}: no line has a gold score")
    data = _memory_data(name, (f"{a}\t{b}\t{g!r}" for (a, b), g in zip(rows, values, strict=True)))
    return STSBenchmark(name, name, rows, values, data=data)  # type: ignore[arg-type]


def recorded_benchmarks(
    names: Iterable[str],
    recorded: Sequence[str],
    where: str,
    registry: Registry | str | Path | Iterable[str | Path] | None = None,
) -> list[str]:
    """The benchmarks of a results folder that ``names`` (given on a command line) stand for:
    a name the folder has results for is itself (a suite recorded by its own name, as RUSSE's
    sum or STS ALL, included); a suite of the catalog or of the registry files that is not
    recorded (a group) is its members the folder has, groups within groups expanded. Each
    once, in the order given.

    Raises:
        InputError: a name with no results in ``where`` (the folder): one the registry knows
            says so; one it does not know asks for the ``--registry`` file that declares it.

    Examples:
        >>> recorded_benchmarks(["words"], ["rg65", "mc30", "russe-hj"], "results/main")
        ['rg65', 'mc30']
    """
    reg = registry_of(registry)
    found: list[str] = []
    for name in names:
        have = _recorded_parts(reg, name, set(recorded))
        if have:
            found += [n for n in have if n not in found]
            continue
        if name in reg.names:
            suite = reg.suites.get(name)
            members = f" (nor for its members {', '.join(suite.members)})" if suite else ""
            raise InputError(None, None, f"no results for {name} in {where}{members}")
        raise InputError(
            None,
            None,
            f"no results for {name} in {where}, and neither the catalog nor a --registry file "
            "names it (for a benchmark of your own, give the registry file that declares it: "
            "--registry FILE)",
        )
    return found


def _recorded_parts(reg: Registry, name: str, recorded: set[str]) -> list[str]:
    """``name`` if recorded, else the recorded parts of its members (a suite's), in order."""
    if name in recorded:
        return [name]
    suite = reg.suites.get(name)
    members = suite.members if suite is not None else ()
    return [part for m in members for part in _recorded_parts(reg, m, recorded)]
