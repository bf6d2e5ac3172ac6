"""`simeval score …`: submission files scored as the official scorers do."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from simeval.cli.common import (
    DataDir,
    JsonFlag,
    KeepIn,
    Missing,
    SystemName,
    guarded,
    keep_results,
    print_results,
    score_app,
    store_of,
    submission,
)

# -- score ------------------------------------------------------------------------------------


@score_app.command("russe")
@guarded
def score_russe(
    file: Annotated[Path, typer.Argument(help="test.csv with the sim column filled in.")],
    column: Annotated[str, typer.Option(help="Column holding the system's scores.")] = "sim",
    missing: Missing = "zero",
    data_dir: DataDir = None,
    keep: KeepIn = None,
    name: SystemName = None,
    as_json: JsonFlag = False,
) -> None:
    """Score a RUSSE 2015 submission: HJ (Spearman), RT, AE, AE2 (average precision as in
    2015, plus step-wise AP, accuracy and ROC AUC). Pairs without a score count as 0, as in
    the official scorer, and are counted."""
    from simeval.data.pairs import read_scored_pairs
    from simeval.tasks.benchmarks import load_suite

    suite = load_suite("russe", store_of(data_dir))
    predictions = read_scored_pairs(file, column)
    results = suite.evaluate(predictions, missing=missing, system=submission(file, column))
    keep_results(results, keep, name)
    print_results(results, as_json, f"RUSSE 2015 — {file}")


@score_app.command("sts12")
@guarded
def score_sts12(
    path: Annotated[Path, typer.Argument(help="Folder holding STS.output.<dataset>.txt files.")],
    data_dir: DataDir = None,
    keep: KeepIn = None,
    name: SystemName = None,
    as_json: JsonFlag = False,
) -> None:
    """Score SemEval-2012 STS outputs: Pearson per test set, ALL, ALLnrm and Mean."""
    from simeval.data.sts import read_sts_output
    from simeval.errors import InputError
    from simeval.tasks.benchmarks import load_suite

    suite = load_suite("sts12", store_of(data_dir))
    if not path.is_dir():
        raise InputError(path, None, "expected a folder with STS.output.<dataset>.txt files")
    outputs = {}
    for b in suite.benchmarks:  # type: ignore[union-attr]
        f = path / f"STS.output.{b.dataset}.txt"
        if not f.is_file():
            raise InputError(
                f,
                None,
                f"missing: every 2012 test set needs an output file "
                f"({', '.join(x.dataset for x in suite.benchmarks)})",
            )
        outputs[b.dataset] = read_sts_output(f, len(b.gold))
    results = suite.evaluate(outputs, system={"kind": "submission", "path": str(path)})
    keep_results(results, keep, name)
    print_results(results, as_json, f"SemEval-2012 STS — {path}")


@score_app.command("sts")
@guarded
def score_sts(
    gold: Annotated[list[Path], typer.Option("--gold", help="STS.gs files (any year).")],
    pred: Annotated[list[Path], typer.Option("--pred", help="System outputs, same order.")],
    keep: KeepIn = None,
    name: SystemName = None,
    as_json: JsonFlag = False,
) -> None:
    """Score STS outputs of any year against gold files; with several datasets also ALL,
    ALLnrm and Mean."""
    from simeval.data.sts import read_sts_gold, read_sts_output
    from simeval.data.textio import sha256_file
    from simeval.errors import InputError
    from simeval.tasks.sts import STSBenchmark, STSSuite

    if len(gold) != len(pred):
        raise InputError(
            None, None, f"{len(gold)} --gold files but {len(pred)} --pred files; give them in pairs"
        )
    benches, outputs = [], {}
    for g, p in zip(gold, pred, strict=True):
        values = read_sts_gold(g)
        name = g.name.removeprefix("STS.gs.").removesuffix(".txt")
        b = STSBenchmark(name, name, [], values, data={str(g): sha256_file(g)})
        benches.append(b)
        outputs[name] = read_sts_output(p, len(values))
    if len(benches) == 1:
        results = [benches[0].evaluate(outputs[benches[0].dataset])]
    else:
        results = STSSuite("sts", benches).evaluate(outputs)
    keep_results(results, keep, name)
    print_results(results, as_json)


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
    kind: Annotated[
        str,
        typer.Option(help="graded (correlations) or related (gold 1/0: AP, accuracy, ROC AUC)."),
    ] = "graded",
    gold_column: Annotated[
        str | None,
        typer.Option(help="Gold score column: name or 1-based number (default: sim or the third)."),
    ] = None,
    pred_column: Annotated[
        str | None, typer.Option(help="System score column (same rules); e.g. usim.")
    ] = None,
    missing: Missing = "error",
    data_dir: DataDir = None,
    keep: KeepIn = None,
    name: SystemName = None,
    as_json: JsonFlag = False,
) -> None:
    """Score a word-pair file against a gold pair file or a named benchmark."""
    from simeval.data.pairs import read_scored_pairs
    from simeval.data.textio import sha256_file
    from simeval.errors import InputError
    from simeval.tasks.benchmarks import load_benchmark
    from simeval.tasks.pairs import GRADED, RELATED, PairBenchmark

    if (gold is None) == (benchmark is None):
        raise InputError(None, None, "give exactly one of --gold FILE or --benchmark NAME")
    if benchmark is not None:
        bench = load_benchmark(benchmark, store_of(data_dir))
        if not isinstance(bench, PairBenchmark):
            raise InputError(None, None, f"{benchmark} is not a word-pair benchmark")
    else:
        assert gold is not None
        if kind not in ("graded", "related"):
            raise InputError(None, None, f"--kind must be graded or related, not {kind!r}")
        g = read_scored_pairs(gold, gold_column, require_scores=True, keep_duplicates=True)
        task = GRADED if kind == "graded" else RELATED
        bench = PairBenchmark(gold.name, task, g, data={str(gold): sha256_file(gold)})
    predictions = read_scored_pairs(pred, pred_column)
    result = bench.evaluate(predictions, missing=missing, system=submission(pred, pred_column))
    result.warnings = [str(w) for w in predictions.warnings] + result.warnings
    keep_results([result], keep, name)
    print_results([result], as_json)


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
    complete: Annotated[
        bool,
        typer.Option(
            "-c",
            "--complete",
            help="Average over every judged query, missing ones scoring 0 (trec_eval -c).",
        ),
    ] = False,
    keep: KeepIn = None,
    name: SystemName = None,
    as_json: JsonFlag = False,
) -> None:
    """Score a ranked run with trec_eval's rules: success@1, success@5, MRR (recip_rank),
    num_q, num_ret, num_rel, num_rel_ret."""
    from simeval.data.textio import sha256_file
    from simeval.data.trec import read_qrels, read_run
    from simeval.tasks.linking import LinkingBenchmark

    bench = LinkingBenchmark(qrels.name, read_qrels(qrels), data={str(qrels): sha256_file(qrels)})
    result = bench.evaluate(read_run(run), complete=complete, system=submission(run))
    keep_results([result], keep, name)
    print_results([result], as_json)
