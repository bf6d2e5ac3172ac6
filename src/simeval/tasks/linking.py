"""The document-linking task kind (BUCC 2015): success@1, success@5 and MRR via trec_eval rules."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from simeval.data.documents import LinkingCollection
from simeval.data.trec import Qrels, Run
from simeval.errors import InputWarning
from simeval.metrics import evaluate_trec
from simeval.metrics.keys import as_text
from simeval.results.record import Result, Timer, warning_texts
from simeval.tasks.items import LINKING, LINKING_METRICS, LINKING_SUITE, concat_items


def collection_qrels(collection: LinkingCollection, split: str = "test") -> Qrels:
    """The gold links of one split as TREC qrels (relevance 1)."""
    queries = collection.split(split)
    qids = np.array([q.id.encode() for q in queries], dtype=bytes)
    docnos = np.array([collection.links[q.id].encode() for q in queries], dtype=bytes)
    n = len(queries)
    return Qrels(None, qids, docnos, np.ones(n, np.int64), np.arange(1, n + 1))


def by_source(sources: np.ndarray, items: dict[str, np.ndarray]) -> dict[str, dict[str, float]]:
    """Per-query metrics averaged within each source (plus the number of queries)."""
    out: dict[str, dict[str, float]] = {}
    for source in sorted(set(sources.tolist())):
        rows = sources == source
        out[str(source)] = {k: float(items[k][rows].mean()) for k in LINKING_METRICS}
        out[str(source)]["num_q"] = int(rows.sum())
    return out


@dataclass
class LinkingBenchmark:
    """Queries with judged relevant documents (qrels)."""

    name: str
    qrels: Qrels
    description: str = ""
    data: dict[str, str] = field(default_factory=dict)
    max_candidates: int | None = None  # BUCC 2015 allowed 5
    # the documents, when the benchmark was built from a collection (measures need them)
    collection: LinkingCollection | None = None

    @classmethod
    def from_collection(
        cls,
        name: str,
        collection: LinkingCollection,
        description: str = "",
        data: dict[str, str] | None = None,
    ) -> LinkingBenchmark:
        """The test split of ``collection`` as a benchmark (at most 5 candidates, as BUCC)."""
        qrels = collection_qrels(collection, "test")
        return cls(name, qrels, description, dict(data or {}), 5, collection)

    def evaluate(
        self, run: Run, *, complete: bool = False, system: dict[str, Any] | None = None
    ) -> Result:
        """trec_eval's success_1, success_5, recip_rank (MRR) and num_* for ``run``.

        ``complete`` counts queries of the qrels absent from the run as 0 (trec_eval ``-c``).
        """
        with Timer() as timer:
            ev = evaluate_trec(
                run.qids,
                run.docnos,
                run.scores,
                self.qrels.qids,
                self.qrels.docnos,
                self.qrels.relevance,
                complete=complete,
            )
        metrics = {
            k: ev.aggregates[k]
            for k in (
                "success_1",
                "success_5",
                "recip_rank",
                "num_q",
                "num_ret",
                "num_rel",
                "num_rel_ret",
            )
        }
        warnings: list[InputWarning] = []
        unknown, absent = ev.unjudged, ev.absent
        if len(unknown):
            warnings.append(
                InputWarning(
                    run.path,
                    None,
                    f"{len(unknown)} run queries have no judgements (e.g. {unknown[0]}); ignored",
                )
            )
        if len(absent):
            how = "counted as 0 (-c)" if complete else "left out of the averages, as trec_eval does"
            warnings.append(
                InputWarning(
                    run.path,
                    None,
                    f"{len(absent)} judged queries are not in the run (e.g. {absent[0]}); {how}",
                )
            )
        over = int((ev.per_query["num_ret"] > (self.max_candidates or np.inf)).sum())
        if over:
            warnings.append(
                InputWarning(
                    run.path,
                    None,
                    f"{over} queries have more than {self.max_candidates} candidates; "
                    "all are scored",
                )
            )
        judged = len(ev.qids) + (0 if complete else len(absent))
        items = {
            "qid": as_text(np.asarray(ev.qids)).astype(str),
            **{k: np.asarray(ev.per_query[k], dtype=float) for k in LINKING_METRICS},
        }
        if self.collection is not None:
            source = {q.id: q.source for q in self.collection.queries}
            items["source"] = np.asarray([source.get(q, "") for q in items["qid"]], dtype=str)
        return Result(
            benchmark=self.name,
            task=LINKING,
            main_metric="recip_rank",
            metrics=metrics,
            coverage={
                "gold": judged,
                "scored": judged - len(absent),
                "missing": len(absent),
                "extra": len(unknown),
            },
            system=system or {},
            data=dict(self.data),
            warnings=warning_texts(warnings),
            settings={"complete": complete},
            seconds=timer.seconds,
            items=items,
            breakdown=by_source(items["source"], items) if "source" in items else {},
        )


@dataclass
class LinkingSuite:
    """Linking benchmarks reported together (``xling``: one per language), with the mean of
    success@1, success@5 and MRR over the members (each language weighs the same)."""

    name: str
    benchmarks: list[LinkingBenchmark]
    description: str = ""

    def evaluate(
        self, runs: dict[str, Run], *, system: dict[str, Any] | None = None
    ) -> list[Result]:
        """A result per member (``runs`` maps member names to runs), then the suite's."""
        with Timer() as timer:
            results = [b.evaluate(runs[b.name], system=system) for b in self.benchmarks]
        metrics = {k: float(np.mean([r.metrics[k] for r in results])) for k in LINKING_METRICS}
        results.append(
            Result(
                benchmark=self.name,
                task=LINKING_SUITE,
                main_metric="recip_rank",
                metrics=metrics,
                coverage={
                    k: sum(r.coverage.get(k, 0) for r in results)
                    for k in ("gold", "scored", "missing", "extra")
                },
                system=system or {},
                data={k: v for b in self.benchmarks for k, v in b.data.items()},
                warnings=[w for r in results for w in r.warnings],
                settings={"members": [b.name for b in self.benchmarks]},
                seconds=timer.seconds,
                items=concat_items([(r.benchmark, r.task, r.items) for r in results]),
                breakdown={
                    r.benchmark: {k: r.metrics[k] for k in LINKING_METRICS} for r in results
                },
            )
        )
        return results
