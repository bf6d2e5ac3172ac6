"""The document-linking task kind (BUCC 2015): success@1, success@5 and MRR via trec_eval rules."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from simeval.data.trec import Qrels, Run
from simeval.errors import InputWarning
from simeval.metrics import evaluate_trec
from simeval.tasks.result import Result, Timer, warning_texts

LINKING = "linking"


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
        qrel_q = set(self.qrels.qids.tolist())
        run_q = set(run.qids.tolist())
        warnings: list[InputWarning] = []
        unknown = run_q - qrel_q
        if unknown:
            warnings.append(
                InputWarning(
                    run.path,
                    None,
                    f"{len(unknown)} run queries have no judgements (e.g. {min(unknown)}); ignored",
                )
            )
        absent = qrel_q - run_q
        if absent:
            how = "counted as 0 (-c)" if complete else "left out of the averages, as trec_eval does"
            warnings.append(
                InputWarning(
                    run.path,
                    None,
                    f"{len(absent)} judged queries are not in the run (e.g. {min(absent)}); {how}",
                )
            )
        if self.max_candidates is not None:
            _, counts = np.unique(run.qids, return_counts=True)
            if len(counts) and counts.max() > self.max_candidates:
                warnings.append(
                    InputWarning(
                        run.path,
                        None,
                        f"{int((counts > self.max_candidates).sum())}"
                        f" queries have more than {self.max_candidates} "
                        "candidates; all are scored",
                    )
                )
        return Result(
            benchmark=self.name,
            task=LINKING,
            main_metric="recip_rank",
            metrics=metrics,
            coverage={
                "gold": len(qrel_q),
                "scored": len(run_q & qrel_q),
                "missing": len(absent),
                "extra": len(unknown),
            },
            system=system or {},
            data=dict(self.data),
            warnings=warning_texts(warnings),
            settings={"complete": complete},
            seconds=timer.seconds,
        )
