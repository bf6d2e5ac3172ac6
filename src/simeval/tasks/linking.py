"""The document-linking task kind (BUCC 2015): success@1, success@5 and MRR via trec_eval rules."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from simeval.data.trec import Qrels, Run
from simeval.errors import InputWarning
from simeval.metrics import evaluate_trec
from simeval.tasks.items import LINKING, LINKING_METRICS
from simeval.tasks.result import Result, Timer, warning_texts


@dataclass
class LinkingBenchmark:
    """Queries with judged relevant documents (qrels)."""

    name: str
    qrels: Qrels
    description: str = ""
    data: dict[str, str] = field(default_factory=dict)
    max_candidates: int | None = None  # BUCC 2015 allowed 5

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
            items={
                "qid": np.asarray([str(q) for q in ev.qids], dtype=str),
                **{k: np.asarray(ev.per_query[k], dtype=float) for k in LINKING_METRICS},
            },
        )
