"""`simeval score …`: submission files scored as the official scorers do, through the task
contract (``api.score``): read and validate the file, align it with the gold, compute the
kind's metrics from the rows."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from simeval.cli.common import (
    Complete,
    DataDir,
    Duplicates,
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
    store_of,
    task_options,
)


def _score(
    target: Any,
    path: Path | list[Path],
    *,
    data_dir: Path | None,
    registry: list[Path] | None = None,
    keep: Path | None,
    name: str | None,
    as_json: bool,
    wide: bool = False,
    title: str = "",
    read: dict[str, Any] | None = None,
    **options: Any,
) -> None:
    from simeval.api import score

    results = score(
        target,
        path,
        store=store_of(data_dir),
        registry=registry_of(registry),
        read=read,
        **task_options(**options),
    )
    keep_results(results, keep, name)
    print_results(results, as_json, title, wide)


@score_app.command("file")
@guarded
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
    missing: Missing = None,
    complete: Complete = False,
    max_retrieved: MaxRetrieved = None,
    kind: Kind = None,
    gold_column: GoldColumn = None,
    duplicates: Duplicates = None,
    registry: RegistryFiles = None,
    data_dir: DataDir = None,
    keep: KeepIn = None,
    name: SystemName = None,
    as_json: JsonFlag = False,
    wide: Wide = False,
) -> None:
    """Score a submission against any benchmark or suite: catalog, registry or path."""
    from simeval.api import load_target

    how = task_options(kind=kind, gold_column=gold_column, duplicates=duplicates)
    loaded = load_target(target, store_of(data_dir), registry_of(registry), **how)
    linking = {"complete": complete or None, "max_retrieved": max_retrieved}
    _score(
        loaded,
        path,
        data_dir=data_dir,
        keep=keep,
        name=name,
        as_json=as_json,
        wide=wide,
        read={"column": column},
        missing=missing,
        **linking,
    )


@score_app.command("russe")
@guarded
def score_russe(
    file: Annotated[Path, typer.Argument(help="test.csv with the sim column filled in.")],
    column: Annotated[str, typer.Option(help="Column holding the system's scores.")] = "sim",
    missing: Missing = None,
    data_dir: DataDir = None,
    keep: KeepIn = None,
    name: SystemName = None,
    as_json: JsonFlag = False,
    wide: Wide = False,
) -> None:
    """Score a RUSSE 2015 submission: HJ (Spearman), RT, AE, AE2 (average precision as in
    2015, plus step-wise AP, accuracy and ROC AUC). Pairs without a score count as 0, as in
    the official scorer, and are counted."""
    _score(
        "russe",
        file,
        data_dir=data_dir,
        keep=keep,
        name=name,
        as_json=as_json,
        wide=wide,
        title=f"RUSSE 2015 — {file}",
        read={"column": column},
        missing=missing,
    )


@score_app.command("sts12")
@guarded
def score_sts12(
    path: Annotated[Path, typer.Argument(help="Folder holding STS.output.<dataset>.txt files.")],
    data_dir: DataDir = None,
    keep: KeepIn = None,
    name: SystemName = None,
    as_json: JsonFlag = False,
    wide: Wide = False,
) -> None:
    """Score SemEval-2012 STS outputs: Pearson per test set, ALL, ALLnrm and Mean."""
    _score(
        "sts12",
        path,
        data_dir=data_dir,
        keep=keep,
        name=name,
        as_json=as_json,
        wide=wide,
        title=f"SemEval-2012 STS — {path}",
    )


@score_app.command("sts")
@guarded
def score_sts(
    gold: Annotated[list[Path], typer.Option("--gold", help="STS.gs files (any year).")],
    pred: Annotated[list[Path], typer.Option("--pred", help="System outputs, same order.")],
    keep: KeepIn = None,
    name: SystemName = None,
    as_json: JsonFlag = False,
    wide: Wide = False,
) -> None:
    """Score STS outputs of any year against gold files; with several datasets also ALL,
    ALLnrm and Mean."""
    from simeval.api import sts_target
    from simeval.errors import InputError

    if len(gold) != len(pred):
        raise InputError(
            None, None, f"{len(gold)} --gold files but {len(pred)} --pred files; give them in pairs"
        )
    _score(sts_target(gold), pred, data_dir=None, keep=keep, name=name, as_json=as_json, wide=wide)


@score_app.command("pairs")
@guarded
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
    kind: Kind = None,
    gold_column: GoldColumn = None,
    duplicates: Duplicates = None,
    pred_column: Annotated[
        str | None, typer.Option(help="System score column (same rules); e.g. usim.")
    ] = None,
    missing: Missing = None,
    registry: RegistryFiles = None,
    data_dir: DataDir = None,
    keep: KeepIn = None,
    name: SystemName = None,
    as_json: JsonFlag = False,
    wide: Wide = False,
) -> None:
    """Score a word-pair file against a gold pair file or a named benchmark."""
    from simeval.api import pair_target

    target = pair_target(
        gold,
        benchmark,
        kind=task_options(kind=kind).get("kind"),
        gold_column=gold_column,
        store=store_of(data_dir),
        registry=registry_of(registry),
        **task_options(duplicates=duplicates),
    )
    _score(
        target,
        pred,
        data_dir=data_dir,
        keep=keep,
        name=name,
        as_json=as_json,
        wide=wide,
        read={"column": pred_column},
        missing=missing,
    )


@score_app.command("trec")
@guarded
def score_trec(
    qrels: Annotated[Path, typer.Option("--qrels", help="TREC qrels: qid iter docno rel.")],
    run: Annotated[
        Path,
        typer.Option(
            "--run", help="TREC run: qid Q0 docno rank score runid (BUCC: id1 X id2 Y score run)."
        ),
    ],
    complete: Complete = False,
    max_retrieved: MaxRetrieved = None,
    keep: KeepIn = None,
    name: SystemName = None,
    as_json: JsonFlag = False,
    wide: Wide = False,
) -> None:
    """Score a ranked run with trec_eval's rules: success@1, success@5, MRR (recip_rank),
    num_q, num_ret, num_rel, num_rel_ret."""
    from simeval.cli.lean import trec_results

    results = trec_results(qrels, run, complete=complete, max_retrieved=max_retrieved)
    keep_results(results, keep, name)
    print_results(results, as_json, "", wide)
