"""Run a measure on benchmarks and suites through the same task code as ``simeval score``.

``evaluate("overlap", "sts12")`` scores the measure on every item of the targets, hands the
scores to ``Task.evaluate`` exactly as a submission file's scores would be, and returns Result
records (optionally appended to a results folder as JSON lines). ``predict`` writes the same
scores as the task's official submission files.

Targets: a benchmark (``simlex999``, ``russe-hj``, ``sts12-msrvid``), a suite (``russe``,
``sts12``) or a group (``words`` = simlex999, wordsim353, rg65, mc30).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from simeval.data.pairs import ScoredPairs, write_pairs
from simeval.data.store import DataStore
from simeval.data.sts import STSOutput, write_sts_output
from simeval.data.trec import Run, write_run
from simeval.errors import InputError, InputWarning
from simeval.measures import Measure, create_measure
from simeval.measures.search import LinkingInput, Progress, Ranker, TopK, rank_by_pairs
from simeval.results.record import Result, Timer
from simeval.results.store import load_results, save_results, system_name
from simeval.tasks.benchmarks import (
    GROUPS,
    PAIR_SPECS,
    STS_SPECS,
    SUITES,
    XLING_SPECS,
    RusseSuite,
    load_benchmark,
    load_suite,
)
from simeval.tasks.linking import LinkingBenchmark, LinkingSuite
from simeval.tasks.pairs import PairBenchmark
from simeval.tasks.sts import STSBenchmark, STSSuite

Target = PairBenchmark | STSBenchmark | RusseSuite | STSSuite | LinkingBenchmark | LinkingSuite
LINKING_DEPTH = 5  # candidates per query, as BUCC 2015 allowed
__all__ = ["evaluate", "load_results", "predict", "results_frame", "save_results"]


def expand_targets(names: Iterable[str]) -> list[str]:
    """Benchmark and suite names with groups expanded, duplicates dropped, order kept."""
    out: list[str] = []
    for name in names:
        for n in GROUPS.get(name, (name,)):
            if n not in (*PAIR_SPECS, *STS_SPECS, *XLING_SPECS, *SUITES):
                known = ", ".join([*SUITES, *GROUPS, *PAIR_SPECS, *STS_SPECS, *XLING_SPECS])
                raise InputError(None, None, f"unknown benchmark or suite {n!r}; known: {known}")
            if n not in out:
                out.append(n)
    return out


def load_targets(names: Iterable[str], store: DataStore | None = None) -> list[Target]:
    store = store or DataStore.from_env()
    return [
        load_suite(n, store) if n in SUITES else load_benchmark(n, store)
        for n in expand_targets(names)
    ]


def _items(target: Target) -> tuple[list[tuple[str, str]], bool]:
    """The pairs a measure must score for ``target`` and whether they are words."""
    if isinstance(target, LinkingBenchmark | LinkingSuite):
        return [], False  # rankers read whole collections (linking_input)
    if isinstance(target, PairBenchmark):
        return list(dict.fromkeys(target.gold.pairs)), True
    if isinstance(target, RusseSuite):
        return list(dict.fromkeys(target.template.pairs)), True
    if isinstance(target, STSBenchmark):
        return target.pairs, False
    return [p for b in target.benchmarks for p in b.pairs], False  # type: ignore[union-attr]


def _scores(measure: Measure, target: Target) -> tuple[list[tuple[str, str]], np.ndarray]:
    """The pairs of ``target`` and the measure's scores for them."""
    pairs, words = _items(target)
    return pairs, measure.score_words(pairs) if words else measure.score_texts(pairs)


def _as_pairs(pairs: list[tuple[str, str]], scores: np.ndarray) -> ScoredPairs:
    return ScoredPairs(None, pairs, scores, np.arange(1, len(pairs) + 1))


def _sts_outputs(target: STSBenchmark | STSSuite, scores: np.ndarray) -> dict[str, STSOutput]:
    """Per-dataset outputs; a pair the measure cannot score gets 0 (STS needs every line)."""
    benches = [target] if isinstance(target, STSBenchmark) else target.benchmarks
    out, start = {}, 0
    for b in benches:
        part = scores[start : start + len(b.pairs)]
        start += len(b.pairs)
        out[b.dataset] = STSOutput(None, np.nan_to_num(part, nan=0.0), None)
    return out


def linking_input(benchmark: LinkingBenchmark) -> LinkingInput:
    """The documents of a linking benchmark as a ranker sees them: test queries, every English
    document, and the train queries with the position of their gold document."""
    coll = benchmark.collection
    if coll is None:
        raise InputError(None, None, f"{benchmark.name} has qrels only, no documents to rank")
    position = {d.id: i for i, d in enumerate(coll.corpus)}
    train = coll.split("train")
    return LinkingInput(
        coll.lang,
        [q.text for q in coll.split("test")],
        [d.text for d in coll.corpus],
        [q.text for q in train],
        np.array([position[coll.links[q.id]] for q in train], dtype=np.int64),
    )


def rank(
    measure: Measure,
    benchmark: LinkingBenchmark,
    k: int = LINKING_DEPTH,
    progress: Progress | None = None,
) -> Run:
    """The measure's top ``k`` English documents for every test query, as a run."""
    data = linking_input(benchmark)
    if isinstance(measure, Ranker):
        top: TopK = measure.rank(data, k, progress)
    else:
        top = rank_by_pairs(measure, data, k, progress)
    coll = benchmark.collection
    assert coll is not None
    qids = np.array([q.id.encode() for q in coll.split("test")], dtype=bytes)
    docnos = np.array([d.id.encode() for d in coll.corpus], dtype=bytes)
    found = top.index >= 0
    rows = np.nonzero(found)[0]
    n = int(found.sum())
    return Run(
        None,
        qids[rows],
        docnos[top.index[found]],
        top.score[found].astype(float),
        np.arange(1, n + 1),
        system_name(measure.describe()),
    )


def _evaluate_target(measure: Measure, target: Target) -> list[Result]:
    """Score ``target`` through its task; the caller fills in each Result's system."""
    if isinstance(target, LinkingBenchmark | LinkingSuite):
        # facts of each ranking (dictionary coverage, BLI precision) belong to its language
        benches = [target] if isinstance(target, LinkingBenchmark) else target.benchmarks
        runs, facts = {}, {}
        for b in benches:
            runs[b.name] = rank(measure, b)
            facts[b.name] = measure.extra()
        if isinstance(target, LinkingBenchmark):
            results = [target.evaluate(runs[target.name])]
        else:
            results = target.evaluate(runs)
        for r in results:
            r.settings["facts"] = facts.get(r.benchmark, {})
        return results
    pairs, scores = _scores(measure, target)
    if isinstance(target, PairBenchmark):
        return [target.evaluate(_as_pairs(pairs, scores), missing=measure.missing)]
    if isinstance(target, RusseSuite):
        return target.evaluate(_as_pairs(pairs, scores), missing=measure.missing)
    outputs = _sts_outputs(target, scores)
    unscored = int(np.isnan(scores).sum())
    if isinstance(target, STSBenchmark):
        results = [target.evaluate(outputs[target.dataset])]
    else:
        results = target.evaluate(outputs)
    if unscored:
        text = str(
            InputWarning(None, None, f"{unscored} sentence pairs could not be scored; scored 0")
        )
        for r in results:
            r.warnings.append(text)
    return results


def prepare(measure: Measure, targets: Sequence[Target]) -> None:
    """Let the measure load what every target needs, in one go (one pass over a vector file)."""
    words: set[str] = set()
    texts: set[str] = set()
    for t in targets:
        pairs, is_words = _items(t)
        (words if is_words else texts).update(x for p in pairs for x in p)
    measure.prepare(words, texts)


def evaluate(
    measure: str | Measure,
    *targets: str | Target,
    store: DataStore | None = None,
    results_dir: str | Path | None = None,
    on_target: Callable[[str], None] | None = None,
) -> list[Result]:
    """Evaluate ``measure`` (a spec string or a Measure) on the targets: names, or loaded
    benchmarks and suites (an ad hoc ``PairBenchmark`` built from any gold file, say).

    Returns one Result per benchmark (plus one per suite with its aggregate); with
    ``results_dir`` they are also appended to ``results_dir/results.jsonl``.
    """
    m = create_measure(measure) if isinstance(measure, str) else measure
    if not targets:
        raise InputError(None, None, "name at least one benchmark or suite")
    store = store or DataStore.from_env()
    loaded: list[Target] = []
    for t in targets:  # in the order given, each benchmark or suite once
        for target in load_targets([t], store) if isinstance(t, str) else [t]:
            if all(target.name != x.name for x in loaded):
                loaded.append(target)
    with Timer() as timer:
        prepare(m, loaded)
    results: list[Result] = []
    for target in loaded:
        if on_target:
            on_target(target.name)
        with Timer() as t:
            found = _evaluate_target(m, target)
        for r in found:
            r.seconds = t.seconds
        results.extend(found)
    facts = {**m.extra(), "prepare_seconds": round(timer.seconds, 3)}
    for r in results:
        r.system = {**m.describe(), **facts}
    if results_dir is not None:
        save_results(results_dir, results)
    return results


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


def predict(
    measure: str | Measure,
    target: str,
    out: str | Path,
    store: DataStore | None = None,
) -> list[Path]:
    """Write the official submission file(s) for ``target``: RUSSE's test.csv with ``sim``
    filled in (empty where the measure cannot score), STS.output.<dataset>.txt files in the
    folder ``out``, or a word1,word2,sim file for a pair benchmark."""
    m = create_measure(measure) if isinstance(measure, str) else measure
    (loaded,) = load_targets([target], store)
    out = Path(out)
    if isinstance(loaded, LinkingBenchmark | LinkingSuite):
        return _predict_linking(m, loaded, out)
    prepare(m, [loaded])
    pairs, scores = _scores(m, loaded)
    if isinstance(loaded, STSBenchmark | STSSuite):
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for dataset, output in _sts_outputs(loaded, scores).items():
            f = out / f"STS.output.{dataset}.txt"
            write_sts_output(f, output.scores)
            written.append(f)
        return written
    if isinstance(loaded, RusseSuite):
        by_pair = dict(zip(pairs, scores, strict=True))
        pairs = loaded.template.pairs  # every line of test.csv, in its order
        scores = np.array([by_pair[p] for p in pairs])
    out.parent.mkdir(parents=True, exist_ok=True)
    write_pairs(out, pairs, scores)
    return [out]


def _predict_linking(
    measure: Measure, target: LinkingBenchmark | LinkingSuite, out: Path
) -> list[Path]:
    """BUCC 2015 runs: ``id1 X id2 Y score run.name``, at most five candidates per query; one
    file for a benchmark, ``<benchmark>.run`` files in the folder ``out`` for a suite."""
    benches = [target] if isinstance(target, LinkingBenchmark) else target.benchmarks
    if isinstance(target, LinkingSuite):
        out.mkdir(parents=True, exist_ok=True)
    written = []
    for b in benches:
        run = rank(measure, b)
        path = out / f"{b.name}.run" if isinstance(target, LinkingSuite) else out
        path.parent.mkdir(parents=True, exist_ok=True)
        name = "".join(c if c.isalnum() or c in "-_." else "_" for c in run.name) or "simeval"
        write_run(path, run.qids, run.docnos, run.scores, name, depth=LINKING_DEPTH, bucc=True)
        written.append(path)
    return written
