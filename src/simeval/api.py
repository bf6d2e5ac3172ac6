"""Run a measure on benchmarks and suites through the same task code as ``simeval score``.

``evaluate("overlap", "sts12")`` asks the measure what each target requests (word pairs, text
pairs or documents to link), turns its answers into the task's submission, and scores that
with ``Task.evaluate`` exactly as a submission file would be scored; it returns Result records
(optionally appended to a results folder). ``predict`` writes the same submission as the
task's official file(s); ``score`` reads a file and scores it. Nothing here depends on the kind
of task: every kind implements the contract of :mod:`simeval.kinds.base`.

Targets: a benchmark (``simlex999``, ``russe-hj``, ``sts12-msrvid``), a suite (``russe``,
``sts12``, ``xling``), a group (``words``), a name from a user registry file (``registry=``
or ``SIMEVAL_REGISTRY``), or a path: a pair file, an STS folder or a linking folder.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from simeval.data.store import DataStore
from simeval.errors import InputError
from simeval.measures import Measure, create_measure
from simeval.results.record import Result, Timer
from simeval.results.store import load_results, save_results, system_name
from simeval.tasks.registry import Registry

__all__ = [
    "evaluate",
    "load_results",
    "load_target",
    "predict",
    "results_frame",
    "save_results",
    "score",
]

Target = Any  # kinds.base.Benchmark | kinds.base.Suite


def registry_of(registry: Registry | str | Path | Iterable[str | Path] | None) -> Registry:
    """A Registry, or the default one with these registry files added."""
    if isinstance(registry, Registry):
        return registry
    if registry is None:
        return Registry.default()
    files = [registry] if isinstance(registry, str | Path) else list(registry)
    return Registry.default(files)


def load_target(
    name: str,
    store: DataStore | None = None,
    registry: Registry | str | Path | None = None,
    **how: Any,
) -> Target:
    """The benchmark or suite ``name`` (or at path ``name``; ``how``: ``kind``, ``gold_column``
    for a pair file). Collections with a builder are built once into the cache."""
    from simeval.datasets.bucc import build_collection

    return registry_of(registry).load(name, store, build_collection, **how)


def load_targets(
    names: Iterable[str],
    store: DataStore | None = None,
    registry: Registry | str | Path | None = None,
    **how: Any,
) -> list[Target]:
    """Targets by name, groups expanded, each once, in the order given."""
    reg = registry_of(registry)
    expanded: list[str] = []
    for name in names:
        reg.check(name)
        expanded += [n for n in reg.expand(name) if n not in expanded]
    store = store or DataStore.from_env()
    return [load_target(n, store, reg, **how) for n in expanded]


def prepare(measure: Measure, targets: Iterable[Target], scored_only: bool = False) -> None:
    """Let the measure load what every target needs, in one go (one pass over a vector file);
    ``scored_only``: what evaluating them needs (not STS lines without gold)."""
    words: set[str] = set()
    texts: set[str] = set()
    for t in targets:
        for request in t.requests(scored_only):
            words |= request.words()
            texts |= request.texts()
    measure.prepare(words, texts)


def measure_of(measure: Any, **how: Any) -> Measure:
    """A spec string, a Measure, an object with ``encode(list[str])`` or a function
    ``f(pairs) -> scores`` as a Measure (``how``: ``name``, ``fingerprint``, ``batch``;
    :mod:`simeval.measures.python`)."""
    if isinstance(measure, str):
        if how:
            raise InputError(None, None, f"{sorted(how)} apply to Python objects, not specs")
        return create_measure(measure)
    from simeval.measures.python import as_measure

    return as_measure(measure, **how)


def evaluate(
    measure: Any,
    *targets: str | Target,
    store: DataStore | None = None,
    results_dir: str | Path | None = None,
    on_target: Callable[[str], None] | None = None,
    registry: Registry | str | Path | None = None,
    **how: Any,
) -> list[Result]:
    """Evaluate ``measure`` on the targets: names, paths, or loaded benchmarks and suites.

    ``measure``: a spec string (``"overlap"``), a Measure, an encoder object with
    ``encode(list[str]) -> array`` (a sentence-transformers model), or a function
    ``f(pairs) -> scores``; for the last two ``name=``, ``fingerprint=`` (caches the
    embeddings on disk under that key) and ``batch=`` may be given.
    Returns one Result per benchmark (plus one per suite with its aggregate); with
    ``results_dir`` they are also appended to ``results_dir/results.jsonl``.
    """
    m = measure_of(measure, **how)
    if not targets:
        raise InputError(None, None, "name at least one benchmark or suite")
    store = store or DataStore.from_env()
    reg = registry_of(registry)
    loaded: list[Target] = []
    for t in targets:  # in the order given, each benchmark or suite once
        for target in load_targets([t], store, reg) if isinstance(t, str) else [t]:
            if all(target.name != x.name for x in loaded):
                loaded.append(target)
    # a benchmark also named as a member of a suite is evaluated once, with the suite
    members = {b.name for t in loaded for b in t.members}
    loaded = [t for t in loaded if t.members or t.name not in members]
    with Timer() as timer:
        prepare(m, loaded, scored_only=True)
    results: list[Result] = []
    for target in loaded:
        if on_target:
            on_target(target.name)
        with Timer() as t:
            found = target.evaluate(target.submit(m, scored_only=True), missing=m.missing)
        for r in found:
            r.seconds = t.seconds
        results.extend(found)
    facts = {**m.extra(), "prepare_seconds": round(timer.seconds, 3)}
    for r in results:
        r.system = {**m.describe(), **facts}
    if results_dir is not None:
        save_results(results_dir, results)
    return results


def predict(
    measure: Any,
    target: str | Target,
    out: str | Path,
    store: DataStore | None = None,
    registry: Registry | str | Path | None = None,
    **how: Any,
) -> list[Path]:
    """Write the measure's submission for ``target`` as the task's official file(s): RUSSE's
    test.csv with ``sim`` filled in (empty where the measure cannot score), a folder of
    STS.output.<dataset>.txt files, a word1,word2,sim file for a pair benchmark, BUCC runs."""
    m = measure_of(measure, **how)
    loaded = load_target(target, store, registry) if isinstance(target, str) else target
    folder = getattr(loaded, "layout", "") == "folder"  # a suite of one file per member
    if not folder and (Path(out).is_dir() or str(out).endswith("/")):
        raise InputError(
            out, None, f"{loaded.name} is one file: --out names that file, not a folder"
        )
    prepare(m, [loaded])
    return loaded.write_submission(loaded.submit(m), Path(out))


def score(
    target: str | Target,
    path: str | Path,
    *,
    store: DataStore | None = None,
    registry: Registry | str | Path | None = None,
    system: dict[str, Any] | None = None,
    read: dict[str, Any] | None = None,
    **options: Any,
) -> list[Result]:
    """Score the submission at ``path`` (a file, or a folder for a suite of several files)
    against ``target``; ``read`` goes to the reader (``column``), ``options`` to the task
    (``missing``, ``complete``, ``max_retrieved``)."""
    from simeval.data.textio import sha256_file

    loaded = load_target(target, store, registry) if isinstance(target, str) else target
    path = Path(path)
    submission = loaded.read_submission(path, **(read or {}))
    if system is None:
        system = {"kind": "submission", "path": str(path)}
        if path.is_file():
            system["sha256"] = sha256_file(path)
        system.update({k: v for k, v in (read or {}).items() if v is not None})
    return loaded.evaluate(submission, system=system, **options)


def results_frame(folder: str | Path) -> Any:
    """Results as a pandas DataFrame: a row per result, a column per metric (``pandas``)."""
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover
        raise ImportError("results_frame needs pandas: pip install 'simeval[frames]'") from exc
    rows = []
    for r in load_results(folder):
        row = {
            "benchmark": r["benchmark"],
            "measure": system_name(r["system"]),
            "main_metric": r["main_metric"],
            "score": r["metrics"].get(r["main_metric"]),
            **{f"metric.{k}": v for k, v in r["metrics"].items()},
            **{f"coverage.{k}": v for k, v in r["coverage"].items()},
            "seconds": r["seconds"],
            "created": r["created"],
        }
        rows.append(row)
    return pd.DataFrame(rows)
