"""`simeval score …`: submission files scored as the official scorers do, through the task
contract (``api.score``): read and validate the file, align it with the gold, compute the
kind's metrics from the rows."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Annotated, Any

import typer

from simeval.cli.common import (
    Complete,
    DataDir,
    Duplicates,
    F,
    GoldColumn,
    JsonFlag,
    KeepIn,
    Kind,
    MaxRetrieved,
    Missing,
    RegistryFiles,
    SystemName,
    Wide,
    guarded,
    keep_results,
    print_results,
    registry_of,
    score_app,
    settings_options,
    store_of,
    task_options,
    with_parameters,
)


@dataclass(frozen=True)
class ScoreOptions:
    """The options the ``score`` commands share, each declared here once (its Typer option
    in its annotation, its default); a command takes the ones :func:`score_options` names,
    in this order after its own, and gets them as one ``how``."""

    missing: Missing = None
    complete: Complete = False
    max_retrieved: MaxRetrieved = None
    kind: Kind = None
    gold_column: GoldColumn = None
    duplicates: Duplicates = None
    registry: RegistryFiles = None
    data_dir: DataDir = None
    keep: KeepIn = None  # the output's four, every command's
    name: SystemName = None
    as_json: JsonFlag = False
    wide: Wide = False

    def task_options(self) -> dict[str, Any]:
        """The scoring policies given (the task's defaults for the others)."""
        return task_options(
            missing=self.missing, complete=self.complete or None, max_retrieved=self.max_retrieved
        )

    def gold_file(self) -> dict[str, Any]:
        """How a gold pair file is read (the ones given)."""
        return task_options(
            kind=self.kind, gold_column=self.gold_column, duplicates=self.duplicates
        )


OUTPUT = ("keep", "name", "as_json", "wide")
GOLD_FILE = ("kind", "gold_column", "duplicates")
LINKING = ("complete", "max_retrieved")


def score_options(*names: str) -> Callable[[F], F]:
    """The command with the shared options ``names`` and the output's (:data:`OUTPUT`) as
    its last options, handed to it as ``how`` (a :class:`ScoreOptions`)."""
    taken = {*names, *OUTPUT}
    skip = [f.name for f in fields(ScoreOptions) if f.name not in taken]
    return with_parameters(settings_options(ScoreOptions, skip), "how", ScoreOptions)


def _score(
    target: Any,
    path: Path | list[Path],
    how: ScoreOptions,
    title: str = "",
    read: dict[str, Any] | None = None,
) -> None:
    from simeval.api import score

    results = score(
        target,
        path,
        store=store_of(how.data_dir),
        registry=registry_of(how.registry),
        read=read,
        **how.task_options(),
    )
    keep_results(results, how.keep, how.name)
    print_results(results, how.as_json, title, how.wide)


@score_app.command("file")
@guarded
@score_options("missing", *LINKING, *GOLD_FILE, "registry", "data_dir")
def score_file(
    target: Annotated[
        str,
        typer.Argument(
            help="A benchmark or suite (see `simeval benchmarks`), a name from --registry, or "
            "a path: a gold pair file, an STS folder, a linking folder or a folder built by "
            "`simeval build negatives`.",
            show_default=False,
        ),
    ],
    path: Annotated[
        Path,
        typer.Argument(
            help="The submission: a file, or a folder of the members' files for a suite "
            "(STS.output.<dataset>.txt, <benchmark>.run, <benchmark>.csv).",
            show_default=False,
        ),
    ],
    column: Annotated[
        str | None,
        typer.Option(
            "--column", "--pred-column", help="Pair submissions: the system's score column."
        ),
    ] = None,
    *,
    how: ScoreOptions,
) -> None:
    """Score a submission against any benchmark or suite: catalog, registry or path."""
    from simeval.api import load_target

    loaded = load_target(
        target, store_of(how.data_dir), registry_of(how.registry), **how.gold_file()
    )
    _score(loaded, path, how, read={"column": column})


@score_app.command("russe")
@guarded
@score_options("missing", "data_dir")
def score_russe(
    file: Annotated[Path, typer.Argument(help="test.csv with the sim column filled in.")],
    column: Annotated[str, typer.Option(help="Column holding the system's scores.")] = "sim",
    *,
    how: ScoreOptions,
) -> None:
    """Score a RUSSE 2015 submission: HJ (Spearman), RT, AE, AE2 (average precision as in
    2015, plus step-wise AP, accuracy and ROC AUC). Pairs without a score count as 0, as in
    the official scorer, and are counted."""
    _score("russe", file, how, title=f"RUSSE 2015 — {file}", read={"column": column})


@score_app.command("sts12")
@guarded
@score_options("data_dir")
def score_sts12(
    path: Annotated[Path, typer.Argument(help="Folder holding STS.output.<dataset>.txt files.")],
    *,
    how: ScoreOptions,
) -> None:
    """Score SemEval-2012 STS outputs: Pearson per test set, ALL, ALLnrm and Mean."""
    _score("sts12", path, how, title=f"SemEval-2012 STS — {path}")


@score_app.command("sts")
@guarded
@score_options()
def score_sts(
    gold: Annotated[list[Path], typer.Option("--gold", help="STS.gs files (any year).")],
    pred: Annotated[list[Path], typer.Option("--pred", help="System outputs, same order.")],
    *,
    how: ScoreOptions,
) -> None:
    """Score STS outputs of any year against gold files; with several datasets also ALL,
    ALLnrm and Mean."""
    from simeval.api import sts_target
    from simeval.errors import InputError

    if len(gold) != len(pred):
        raise InputError(
            None, None, f"{len(gold)} --gold files but {len(pred)} --pred files; give them in pairs"
        )
    _score(sts_target(gold), pred, how)


@score_app.command("pairs")
@guarded
@score_options(*GOLD_FILE, "missing", "registry", "data_dir")
def score_pairs(
    pred: Annotated[Path, typer.Option("--pred", help="The system's pair file.")],
    gold: Annotated[
        Path | None,
        typer.Option(
            "--gold", help="A gold pair file (csv, tsv or space separated, header optional)."
        ),
    ] = None,
    benchmark: Annotated[
        str | None,
        typer.Option(help="A named benchmark instead of --gold (see `simeval benchmarks`)."),
    ] = None,
    pred_column: Annotated[
        str | None, typer.Option(help="System score column (same rules); e.g. usim.")
    ] = None,
    *,
    how: ScoreOptions,
) -> None:
    """Score a word-pair file against a gold pair file or a named benchmark."""
    from simeval.api import pair_target

    target = pair_target(
        gold,
        benchmark,
        store=store_of(how.data_dir),
        registry=registry_of(how.registry),
        **how.gold_file(),
    )
    _score(target, pred, how, read={"column": pred_column})


@score_app.command("trec")
@guarded
@score_options(*LINKING)
def score_trec(
    qrels: Annotated[Path, typer.Option("--qrels", help="TREC qrels: qid iter docno rel.")],
    run: Annotated[
        Path,
        typer.Option(
            "--run", help="TREC run: qid Q0 docno rank score runid (BUCC: id1 X id2 Y score run)."
        ),
    ],
    *,
    how: ScoreOptions,
) -> None:
    """Score a ranked run with trec_eval's rules: success@1, success@5, MRR (recip_rank),
    MAP (map), R-precision (Rprec), P@5/10, recall@5/10 and nDCG@5/10 (P_5, recall_5,
    ndcg_cut_5, ...), num_q, num_ret, num_rel, num_rel_ret."""
    from simeval.cli.lean import trec_results

    results = trec_results(qrels, run, complete=how.complete, max_retrieved=how.max_retrieved)
    keep_results(results, how.keep, how.name)
    print_results(results, how.as_json, "", how.wide)
