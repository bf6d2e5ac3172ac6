"""`simeval report`, `leaderboard`, `compare`, `agreement`: reading results folders."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from simeval.api.options import (
    ALPHA,
    BOARD_TOP,
    COMBINE,
    FORMAT,
    JOBS,
    KEEP_DOMINATED,
    LEVEL,
    REPLICATES,
    REPORT_TOP,
    SEED,
    TIERS,
)
from simeval.cli.common import (
    DEFAULT_RESULTS,
    RESULTS_ENV,
    DataDir,
    RegistryFiles,
    ResultsIn,
    RichSteps,
    Wide,
    app,
    choices_of,
    computing,
    err,
    guarded,
    plain,
    print_tables,
    print_wrapped,
    registry_of,
    say_warning,
    store_of,
    typer_option,
)
from simeval.report.format import number, p_value
from simeval.report.terminal import SIMPLE, Column, TerminalTable

PARTIAL_MARK = "†"  # a score computed on fewer items than the gold (`simeval results`)


@app.command("results")
@guarded
def results_cmd(
    folder: ResultsIn = DEFAULT_RESULTS,
    metric: Annotated[
        str | None,
        typer.Option(
            "--metric",
            "-m",
            help="Show this metric instead of the main one, for the benchmarks that have it "
            "(spearman for STS sets and STS-B, pooled_spearman for STS years: MTEB's figures).",
        ),
    ] = None,
    benchmark: Annotated[
        list[str] | None,
        typer.Option(
            "--benchmark",
            "-b",
            help="Only this benchmark's row (repeatable); a suite (of the catalog or of "
            "--registry) gives its members' rows.",
        ),
    ] = None,
    registry: RegistryFiles = None,
    wide: Wide = False,
) -> None:
    """One table of the recorded results: a row per benchmark (with its main metric), a
    column per measure (the latest record of each pair wins). Systems that do not fit the
    terminal's width go on to a further table; long names are numbered, with a legend."""
    from simeval.api import results_table

    table_of = results_table(folder, metric, benchmark or (), registry_of(registry))
    columns = [
        Column("benchmark", key=True, name=True, tag="b"),
        Column("metric", key=True),
        *(Column(m, number=True, header_is_name=True) for m in table_of.measures),
    ]
    partial = {  # (benchmark, measure) -> (scored, gold): a score on fewer items than the gold
        cell: (scored, gold) for cell, (scored, gold) in table_of.coverage.items() if scored < gold
    }
    rows = [
        [
            bench,
            name,
            *(
                number(by[m]) + (f" {PARTIAL_MARK}" if (bench, m) in partial else "")
                if m in by
                else ""
                for m in table_of.measures
            ),
        ]
        for bench, name, by in table_of.rows
    ]
    notes = [  # in the table's order: row by row, column by column
        f"{PARTIAL_MARK} {bench}, {m}: {partial[bench, m][0]}/{partial[bench, m][1]} scored "
        "(fewer items than the gold)"
        for bench, _, by in table_of.rows
        for m in table_of.measures
        if m in by and (bench, m) in partial
    ]
    title = f"{metric} per benchmark" if metric else "main metric per benchmark"
    print_tables([(TerminalTable(columns, rows, title), notes)], wide)


# -- reports ----------------------------------------------------------------------------------

# the options `report`, `leaderboard` and `compare` share with their API functions
# (simeval.api.options): ranges, choices, help and defaults from one declaration each
Replicates = Annotated[int, typer_option(REPLICATES, "--bootstrap", "-B")]
Seed = Annotated[int, typer_option(SEED)]
Level = Annotated[float, typer_option(LEVEL)]
Alpha = Annotated[float, typer_option(ALPHA)]


@app.command("agreement")
@guarded
def agreement_cmd(data_dir: DataDir = None, wide: Wide = False) -> None:
    """Inter-annotator agreement where individual ratings ship with the data (WordSim-353
    set1 and set2): average pairwise Spearman (the SimLex-999 paper's measure: 0.61 for
    WordSim-353) and leave-one-out (each rater against the mean of the others). The report
    draws the pooled values as ceilings."""
    from simeval.api.reporting import rater_agreement

    rows = rater_agreement(store_of(data_dir))
    columns = [
        Column("ratings", key=True, name=True),
        *(Column(c, number=True) for c in ("pairs", "raters", "pairwise", "leave-one-out")),
    ]
    cells = [
        [a.name, str(a.items), str(a.raters), number(a.pairwise), number(a.leave_one_out)]
        for a in rows
    ]
    title = "Inter-annotator agreement (Spearman's ρ)"
    print_tables([(TerminalTable(columns, cells, title), [])], wide)


@app.command("report")
@computing
def report_cmd(
    folder: ResultsIn = DEFAULT_RESULTS,
    html_out: Annotated[
        Path, typer.Option("--html", help="Where to write the self-contained HTML report.")
    ] = Path("report.html"),
    by: Annotated[
        list[str] | None,
        typer.Option(
            "--by",
            help="Also split every benchmark by this item column (e.g. POS, concQ); by value, "
            "or by quartile for a column of many numbers. Repeatable.",
        ),
    ] = None,
    top: Annotated[int, typer_option(REPORT_TOP)] = REPORT_TOP.default,
    replicates: Replicates = REPLICATES.default,
    seed: Seed = SEED.default,
    level: Level = LEVEL.default,
    jobs: Annotated[int, typer_option(JOBS, "--jobs", "-j")] = JOBS.default,
    data_dir: DataDir = None,
    registry: RegistryFiles = None,
) -> None:
    """Write one HTML file over a results folder: the overall leaderboard (dominated systems
    dropped, ranked by the sum of main scores), top-N per benchmark, every metric with its
    bootstrap interval and p-value against the best (Holm), subsets (SimLex-999 POS,
    concreteness quartiles and SimAssoc333; WordSim-353 similarity/relatedness; suite
    members), agreement ceilings, scatter plots and precision-recall curves. Nothing is
    scored again: everything comes from the recorded per-item rows."""
    from rich.progress import BarColumn, MofNCompleteColumn, TimeElapsedColumn

    from simeval.api.reporting import write_report

    columns = (
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with RichSteps(columns=columns) as steps:
        report = write_report(
            folder,
            html_out,
            by=by or (),
            top=top,
            replicates=replicates,
            seed=seed,
            level=level,
            jobs=jobs,
            data_dir=data_dir,
            steps=steps,
            registry=registry_of(registry),
        )
    for warning in report.warnings:
        say_warning(warning)
    err.print(
        plain(
            f"wrote {html_out} ({report.size // 1024} KiB): {report.systems} systems, "
            f"{report.benchmarks} benchmarks"
        ),
        highlight=False,
    )


BoardFormat = choices_of("BoardFormat", FORMAT, "text")  # text: the terminal's table
Combine = choices_of("Combine", COMBINE)
COMBINE_DEFAULT = Combine(COMBINE.default)


@app.command("leaderboard")
@guarded
def leaderboard_cmd(
    folder: ResultsIn = DEFAULT_RESULTS,
    fmt: Annotated[
        BoardFormat,
        typer_option(
            FORMAT,
            "--format",
            "-f",
            help="text (a table fitted to the terminal; --wide: whole), markdown, latex, csv "
            "or html (the tables as printed), or frame: the board as data, CSV with a row per "
            "benchmark and system (rank, score, overall rank and, with --tiers, rank interval "
            "ends, upper bound, tier, Holm-adjusted p).",
        ),
    ] = BoardFormat.text,
    benchmark: Annotated[
        list[str] | None,
        typer.Option(
            "--benchmark",
            "-b",
            help="Columns of the overall table (default: every benchmark; RUSSE as its four "
            "parts, STS as ALL). Repeatable; a suite (of the catalog or of --registry) gives "
            "its members.",
        ),
    ] = None,
    top: Annotated[int, typer_option(BOARD_TOP)] = BOARD_TOP.default,
    keep_dominated: Annotated[bool, typer_option(KEEP_DOMINATED)] = KEEP_DOMINATED.default,
    metric: Annotated[
        str | None,
        typer.Option(
            "--metric", "-m", help="Rank by this metric instead of the main one, where recorded."
        ),
    ] = None,
    registry: RegistryFiles = None,
    wide: Wide = False,
    tiers: Annotated[bool, typer_option(TIERS, "--tiers")] = TIERS.default,
    replicates: Replicates = REPLICATES.default,
    seed: Seed = SEED.default,
    level: Level = LEVEL.default,
    alpha: Alpha = ALPHA.default,
    combine: Annotated[Combine, typer_option(COMBINE)] = COMBINE_DEFAULT,
) -> None:
    """The overall leaderboard as in RUSSE 2015 Table 5: systems beaten on every benchmark by
    another are dropped, the rest ranked by the sum of their main scores (or, with --combine,
    their mean or mean rank); best per column
    marked, each metric in its declared direction. With --top N, the top N per benchmark too
    (RUSSE Tables 6-9). With --tiers, each benchmark's table shows every system's rank
    interval, rank upper bound and significance tier, the method stated under it. With
    --format frame, the board as data: a CSV row per benchmark and system."""
    from simeval.api.reporting import frame_csv, leaderboard, leaderboard_tables, terminal_table

    how = (benchmark or (), top, keep_dominated, metric, registry_of(registry), tiers,
           replicates, seed, level, alpha, combine.value)  # fmt: skip
    if fmt is BoardFormat.text:
        print_tables([terminal_table(t) for t in leaderboard_tables(folder, *how)], wide)
    elif fmt is BoardFormat.frame:
        sys.stdout.write(frame_csv(leaderboard(folder, fmt.value, *how)))
    else:
        sys.stdout.write(leaderboard(folder, fmt.value, *how))


SHORT_TESTS = {"approximate randomization": "AR", "paired bootstrap": "bootstrap"}


@app.command("compare")
@computing
def compare_cmd(
    a: Annotated[str, typer.Argument(help="System A: its name (or a unique part of it).")],
    b: Annotated[str, typer.Argument(help="System B.")],
    benchmark: Annotated[
        str,
        typer.Option(
            "--benchmark",
            "-b",
            help="The benchmark; a suite (of the catalog or of --registry) not recorded by "
            "its own name compares each of its members.",
        ),
    ],
    folder: Annotated[
        Path,
        typer.Option(
            "--results",
            envvar=RESULTS_ENV,
            show_envvar=True,
            help="The results folder holding both systems (default: your own runs' folder).",
        ),
    ] = DEFAULT_RESULTS,
    replicates: Replicates = REPLICATES.default,
    seed: Seed = SEED.default,
    level: Level = LEVEL.default,
    alpha: Alpha = ALPHA.default,
    registry: RegistryFiles = None,
    wide: Wide = False,
) -> None:
    """Is A better than B on a benchmark? Prints A − B for every metric with its paired
    bootstrap interval, and the verdict of the test suited to the main metric: Williams' test
    for correlations, approximate randomization for AP, accuracy and MRR, the paired bootstrap
    for other aggregates."""
    from simeval.api.reporting import benchmarks_in, compare_systems, verdict_text

    for bench in benchmarks_in(folder, [benchmark], registry_of(registry)):
        sa, sb, v = compare_systems(folder, a, b, bench, replicates, seed, level)
        print_wrapped(f"{bench}: A = {sa}, B = {sb}, {v.n} items", wide)
        columns = [
            Column("metric", key=True),
            Column("A", number=True),
            Column("B", number=True),
            Column(f"A − B [{level:.0%} interval]", number=True),
            Column("p", number=True),
            Column("test"),
        ]
        rows = []
        for name, c in v.metrics.items():
            interval = c.interval
            span = "" if interval is None else f" [{number(interval.low)}, {number(interval.high)}]"
            rows.append(
                [
                    name + (" *" if name == v.main.metric else ""),
                    number(c.a),
                    number(c.b),
                    number(c.difference) + span,
                    p_value(c.p_value),
                    SHORT_TESTS.get(c.test, c.test),
                ]
            )
        print_tables([(TerminalTable(columns, rows, box=SIMPLE), [])], wide)
        print_wrapped(f"verdict: {verdict_text(v, alpha)}", wide)
    print_wrapped("* main metric; AR: approximate randomization", wide, "dim")
