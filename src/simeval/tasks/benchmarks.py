"""Named benchmarks and suites, defined over the data catalog.

A benchmark is a gold file (or part of one) plus a task kind. Suites group benchmarks reported
together: ``russe`` (hj, rt, ae, ae2 scored from the one 14,835-pair file participants returned)
and ``sts12`` (the five 2012 test sets with ALL, ALLnrm and Mean).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from simeval.data.pairs import ScoredPairs, read_scored_pairs
from simeval.data.store import DataStore
from simeval.data.sts import read_sts_gold, read_sts_input
from simeval.errors import InputError, InputWarning
from simeval.results.record import Result, Timer, warning_texts
from simeval.tasks.items import GRADED, LINKING, RELATED, RUSSE_SUITE, concat_items
from simeval.tasks.linking import LinkingBenchmark, LinkingSuite
from simeval.tasks.pairs import PairBenchmark, extra_pairs
from simeval.tasks.sts import STSBenchmark, STSSuite

Benchmark = PairBenchmark | STSBenchmark | LinkingBenchmark


@dataclass(frozen=True)
class PairSpec:
    path: str
    task: str
    description: str
    column: str | None = None
    score_range: tuple[float, float] | None = None
    exclude: str | None = None  # pairs of this gold file are removed (rt-train = rt - rt-test)
    # (column, gold file): a 1/0 column marking the pairs that file also holds (subsets)
    marks: tuple[tuple[str, str], ...] = ()


RUSSE_RANGE = (0.0, 1.0)
PAIR_SPECS: dict[str, PairSpec] = {
    "russe-hj": PairSpec(
        "russe/hj-test.csv",
        GRADED,
        "RUSSE 2015 HJ: 333 Russian pairs with human judgements (Spearman)",
        score_range=RUSSE_RANGE,
    ),
    "russe-rt": PairSpec(
        "russe/rt-test.csv",
        RELATED,
        "RUSSE 2015 RT: 9,548 RuThes pairs, half related (average precision)",
        score_range=RUSSE_RANGE,
    ),
    "russe-ae": PairSpec(
        "russe/ae-test.csv",
        RELATED,
        "RUSSE 2015 AE: 1,952 associative thesaurus pairs, half related",
        score_range=RUSSE_RANGE,
    ),
    "russe-ae2": PairSpec(
        "russe/ae2-test.csv",
        RELATED,
        "RUSSE 2015 AE2: 3,002 sociation.org pairs, half related",
        score_range=RUSSE_RANGE,
    ),
    "russe-hj-train": PairSpec(
        "russe/hj-train.csv", GRADED, "RUSSE HJ train sample (66 pairs)", score_range=RUSSE_RANGE
    ),
    "russe-rt-train": PairSpec(
        "russe/rt.csv",
        RELATED,
        "RUSSE RT train: rt.csv without the rt-test pairs",
        score_range=RUSSE_RANGE,
        exclude="russe/rt-test.csv",
    ),
    "russe-ae-train": PairSpec(
        "russe/ae-train.csv", RELATED, "RUSSE AE train (20,967 pairs)", score_range=RUSSE_RANGE
    ),
    "russe-ae2-train": PairSpec(
        "russe/ae2-train.csv", RELATED, "RUSSE AE2 train (83,770 pairs)", score_range=RUSSE_RANGE
    ),
    "simlex999": PairSpec(
        "simlex999/SimLex-999.txt",
        GRADED,
        "SimLex-999: 999 English pairs, similarity 0-10, POS/concreteness/association kept",
        column="SimLex999",
    ),
    "wordsim353": PairSpec(
        "wordsim353/combined.csv",
        GRADED,
        "WordSim-353: 353 English pairs, 0-10 (similarity/relatedness split marked)",
        marks=(
            ("similarity", "wordsim353/similarity.tab"),
            ("relatedness", "wordsim353/relatedness.tab"),
        ),
    ),
    "wordsim353-sim": PairSpec(
        "wordsim353/similarity.tab",
        GRADED,
        "WordSim-353 similarity split (Agirre et al. 2009), 203 pairs",
    ),
    "wordsim353-rel": PairSpec(
        "wordsim353/relatedness.tab",
        GRADED,
        "WordSim-353 relatedness split (Agirre et al. 2009), 252 pairs",
    ),
    "rg65": PairSpec("rg65/EN-RG-65.txt", GRADED, "RG-65: 65 English noun pairs, 0-4"),
    "mc30": PairSpec("mc30/EN-MC-30.txt", GRADED, "MC-30: 30 English noun pairs, 0-4"),
}

STS12_TEST = ("MSRpar", "MSRvid", "SMTeuroparl", "surprise.OnWN", "surprise.SMTnews")
STS12_TRAIN = ("MSRpar", "MSRvid", "SMTeuroparl")


def _sts_name(dataset: str, split: str) -> str:
    short = dataset.removeprefix("surprise.").lower()
    return f"sts12-{short}" if split == "test" else f"sts12-train-{short}"


STS_SPECS: dict[str, tuple[str, str]] = {
    **{_sts_name(d, "test"): (d, "test") for d in STS12_TEST},
    **{_sts_name(d, "train"): (d, "train") for d in STS12_TRAIN},
}
XLING_LANGUAGES = ("de", "fr", "ru", "tr", "zh")
XLING_SPECS = {f"xling-{x}-en": x for x in XLING_LANGUAGES}

# Benchmarks reported side by side, without an aggregate score.
GROUPS = {"words": ("simlex999", "wordsim353", "rg65", "mc30")}
SUITES = {
    "russe": ("russe-hj", "russe-rt", "russe-ae", "russe-ae2"),
    "sts12": tuple(_sts_name(d, "test") for d in STS12_TEST),
    "xling": tuple(XLING_SPECS),
}


def list_benchmarks() -> list[tuple[str, str, str]]:
    """(name, task kind, description) of every named benchmark."""
    out = [(n, s.task, s.description) for n, s in PAIR_SPECS.items()]
    for name, (dataset, split) in STS_SPECS.items():
        out.append((name, "sts", f"SemEval-2012 STS {split} set {dataset}"))
    for name, lang in XLING_SPECS.items():
        out.append((name, LINKING, _xling_description(lang)))
    return out


def _xling_description(lang: str) -> str:
    return (
        f"{lang}-en document linking (BUCC 2015 style) from every {lang}-en pair in xling/, "
        "BUCC preparation (first sentence dropped, IQR length filter, half held out)"
    )


def load_xling(lang: str, store: DataStore | None = None, options: Any = None) -> LinkingBenchmark:
    """``xling-<lang>-en``: every staged X-en document pair, prepared as BUCC 2015 did
    (:mod:`simeval.build.bucc`, default options); the test split is the benchmark and the
    train split comes with it for learned rankers."""
    from simeval.build.bucc import prepare
    from simeval.data.docpairs import xling_pairs

    pairs, data = xling_pairs(lang, store)
    collection = prepare(pairs, lang, options)
    collection.meta["data"] = data
    name = f"xling-{lang}-en"
    return LinkingBenchmark.from_collection(name, collection, _xling_description(lang), data)


def _load_pairs(name: str, spec: PairSpec, store: DataStore) -> PairBenchmark:
    path = store.path(spec.path)
    data = {spec.path: store.sha256(spec.path)}
    gold = read_scored_pairs(path, spec.column, require_scores=True, keep_duplicates=True)
    if spec.exclude:
        removed = {
            p for p in read_scored_pairs(store.path(spec.exclude), keep_duplicates=True).pairs
        }
        gold = gold.take(np.array([p not in removed for p in gold.pairs], dtype=bool))
        data[spec.exclude] = store.sha256(spec.exclude)
    for column, marker in spec.marks:
        marked = {p for p in read_scored_pairs(store.path(marker), keep_duplicates=True).pairs}
        gold.columns[column] = ["1" if p in marked else "0" for p in gold.pairs]
        data[marker] = store.sha256(marker)
    return PairBenchmark(name, spec.task, gold, spec.description, data, spec.score_range)


def _load_sts(name: str, store: DataStore) -> STSBenchmark:
    dataset, split = STS_SPECS[name]
    inp = f"sts2012/{split}/STS.input.{dataset}.txt"
    gs = f"sts2012/{split}/STS.gs.{dataset}.txt"
    pairs = read_sts_input(store.path(inp))
    gold = read_sts_gold(store.path(gs))
    if len(pairs) != len(gold):
        raise InputError(store.path(gs), None, f"{len(gold)} gold lines for {len(pairs)} pairs")
    data = {p: store.sha256(p) for p in (inp, gs)}
    return STSBenchmark(name, dataset, pairs, gold, f"SemEval-2012 STS {split} {dataset}", data)


def load_benchmark(name: str, store: DataStore | None = None) -> Benchmark:
    """The named benchmark (``russe-hj``, ``simlex999``, ``sts12-msrpar``, …)."""
    store = store or DataStore.from_env()
    if name in PAIR_SPECS:
        return _load_pairs(name, PAIR_SPECS[name], store)
    if name in STS_SPECS:
        return _load_sts(name, store)
    if name in XLING_SPECS:
        return load_xling(XLING_SPECS[name], store)
    known = ", ".join([*PAIR_SPECS, *STS_SPECS, *XLING_SPECS])
    raise InputError(None, None, f"unknown benchmark {name!r}; known: {known}")


@dataclass
class RusseSuite:
    """RUSSE 2015: four benchmarks scored from the one file participants returned."""

    name: str
    benchmarks: list[PairBenchmark]
    template: ScoredPairs  # test.csv: the 14,835 lines (14,781 distinct pairs) participants got

    def evaluate(
        self,
        predictions: ScoredPairs,
        *,
        missing: str = "zero",
        system: dict[str, Any] | None = None,
    ) -> list[Result]:
        """A result per benchmark, then a ``russe`` result with the four official scores
        (HJ Spearman; RT, AE, AE2 average precision as computed in 2015) and their sum
        (the ranking of RUSSE Table 5)."""
        with Timer() as timer:
            expected = frozenset(self.template.pairs)
            results = [
                b.evaluate(predictions, missing=missing, system=system, extra_ok=expected)
                for b in self.benchmarks
            ]
            index = predictions.lookup()
            unscored = [
                p for p in expected if p not in index or np.isnan(predictions.scores[index[p]])
            ]
            n_extra, extra_warnings = extra_pairs(predictions, expected, "test.csv")
        warnings: list[InputWarning] = [*predictions.warnings, *extra_warnings]
        metrics = {
            b.name.removeprefix("russe-"): r.score
            for b, r in zip(self.benchmarks, results, strict=True)
        }
        metrics["sum"] = float(sum(metrics.values()))
        results.append(
            Result(
                benchmark=self.name,
                task=RUSSE_SUITE,
                main_metric="sum",
                metrics=metrics,
                coverage={
                    "gold": len(expected),
                    "scored": len(expected) - len(unscored),
                    "missing": len(unscored),
                    "extra": n_extra,
                },
                system=system or {},
                data={k: v for b in self.benchmarks for k, v in b.data.items()},
                warnings=warning_texts(warnings),
                settings={"missing": missing, "members": [b.name for b in self.benchmarks]},
                seconds=timer.seconds,
                items=concat_items([(r.benchmark, r.task, r.items) for r in results]),
            )
        )
        return results


def load_suite(name: str, store: DataStore | None = None) -> RusseSuite | STSSuite | LinkingSuite:
    """The named suite: ``russe``, ``sts12`` or ``xling``."""
    store = store or DataStore.from_env()
    if name not in SUITES:
        raise InputError(None, None, f"unknown suite {name!r}; known: {', '.join(SUITES)}")
    members = [load_benchmark(n, store) for n in SUITES[name]]
    if name == "xling":
        return LinkingSuite(name, members, "Cross-language document linking, de/fr/ru/tr/zh-en")  # type: ignore[arg-type]
    if name == "russe":
        template = read_scored_pairs(store.path("russe/test.csv"), keep_duplicates=True)
        return RusseSuite(name, members, template)  # type: ignore[arg-type]
    return STSSuite(name, members, "SemEval-2012 STS test: five datasets")  # type: ignore[arg-type]
