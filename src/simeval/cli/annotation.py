"""`simeval build annotation …`: annotation campaigns as RUSSE 2015 and SimLex-999 ran them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from simeval.cli.common import (
    SEED_RANGE,
    DataDir,
    Typer,
    build_app,
    guarded,
    out,
    plain,
    print_tables,
    store_of,
)
from simeval.report.terminal import Column, TerminalTable

annotation_app = Typer(
    rich_markup_mode=None,
    help="Annotation campaigns: hand out assignments (COUNT or SD mode), aggregate answers with "
    "the SimLex-999 rater checks, and simulate which mode needs fewer answers.",
    no_args_is_help=True,
)
build_app.add_typer(annotation_app, name="annotation")

Out = Annotated[Path, typer.Argument(help="A new folder to write into (never overwritten).")]
Pairs = Annotated[
    Path, typer.Option("--pairs", help="The pairs to annotate: a pair file (word1 word2 …).")
]
Scale = Annotated[str, typer.Option(help="The rating scale LOW:HIGH (RUSSE 0:3, SimLex 0:6).")]
Seed = Annotated[int, typer.Option(**SEED_RANGE, help="Seed: the same seed, the same assignments.")]


@annotation_app.command("assign")
@guarded
def assign(
    out_dir: Out,
    pairs: Pairs,
    mode: Annotated[
        str, typer.Option(help="count: fewer annotations, likelier; sd: higher SD, likelier.")
    ] = "count",
    number: Annotated[int, typer.Option("--assignments", min=1, help="Assignments to make.")] = 10,
    size: Annotated[int, typer.Option(min=1, help="Pairs per assignment (RUSSE: 15).")] = 15,
    answers: Annotated[
        Path | None, typer.Option(help="Answers so far (CSV rater,word1,word2,rating[,time]).")
    ] = None,
    scale: Scale = "0:10",
    seed: Seed = 0,
) -> None:
    """Hand out assignments of SIZE distinct pairs, each pair drawn with probability 1/(1 +
    annotations so far) in count mode or proportional to the SD of its ratings in sd mode
    (unrated pairs first); writes assignments.csv (assignment,word1,word2), manifest.json and
    log.tsv."""
    from simeval.api.annotation import annotation_assign

    built = annotation_assign(
        out_dir,
        pairs,
        mode=mode,
        number=number,
        size=size,
        answers=answers,
        scale=scale,
        seed=seed,
    )
    out.print(plain(f"wrote {out_dir}: {built.summary}"))


@annotation_app.command("aggregate")
@guarded
def aggregate_cmd(
    out_dir: Out,
    pairs: Pairs,
    answers: Annotated[
        Path, typer.Option(help="The answers: CSV rater,word1,word2,rating[,time].")
    ],
    scale: Scale = "0:10",
    rescale: Annotated[
        str | None, typer.Option(help="Map the scale linearly to LOW:HIGH (SimLex: 0:10).")
    ] = None,
    consistency: Annotated[
        Path | None, typer.Option(help="Pairs of the consistency set (shift raters off by > 1).")
    ] = None,
    checkpoints: Annotated[
        Path | None, typer.Option(help="Control pairs: word1,word2,low,high; a miss excludes.")
    ] = None,
    min_gain: Annotated[
        float, typer.Option(help="Exclude a rater whose exclusion raises agreement this much.")
    ] = 0.01,
) -> None:
    """Check raters the SimLex-999 way (shift, then exclude: checkpoints, one SD below the
    mean agreement, agreement gain) and aggregate the ratings: benchmark.csv (word1, word2,
    sim = mean, sd, n), raters.tsv, agreement in manifest.json. The folder is a benchmark:
    `simeval evaluate MEASURE -b OUT_DIR`."""
    from simeval.api.annotation import annotation_aggregate

    built = annotation_aggregate(
        out_dir,
        pairs,
        answers,
        scale=scale,
        rescale=rescale,
        consistency=consistency,
        checkpoints=checkpoints,
        min_gain=min_gain,
    )
    heads = ("pairwise ρ", "leave-one-out ρ", "α ordinal", "α interval", "mean SD")
    row = [f"{v:.4f}" for v in vars(built.extra["agreement"]).values()]
    table = TerminalTable(
        [Column(c, number=True) for c in heads], [row], f"{out_dir}: {built.summary}"
    )
    print_tables([(table, [])])


@annotation_app.command("simulate")
@guarded
def simulate_cmd(
    out_dir: Out,
    target: Annotated[
        list[float] | None,
        typer.Option(help="Width of the 95% interval of a pair's mean to reach (repeatable)."),
    ] = None,
    size: Annotated[int, typer.Option(min=1, help="Pairs per assignment (RUSSE: 15).")] = 15,
    replays: Annotated[int, typer.Option(min=1, help="Seeded campaigns per mode.")] = 10,
    seed: Seed = 0,
    html: Annotated[Path | None, typer.Option(help="Write the curves as an HTML page.")] = None,
    answers_of: Annotated[
        str,
        typer.Option(
            help="Write answers.csv (and pairs.tsv) of this mode's first replay at the first "
            "target: the input of `simeval build annotation aggregate`."
        ),
    ] = "sd",
    data_dir: DataDir = None,
) -> None:
    """Replay WordSim-353's 29 raters (set1, set2) as the crowd and count, for count and sd
    modes, the answers needed until every pair's mean has a 95% interval narrower than TARGET
    (or has used up its raters)."""
    from simeval.api.annotation import annotation_simulate

    built = annotation_simulate(
        out_dir,
        targets=target or [3.0, 4.0],
        size=size,
        replays=replays,
        seed=seed,
        html=html,
        answers_of=answers_of,
        store=store_of(data_dir),
    )
    import numpy as np  # here, not at the top: `simeval --help` need not load numpy

    heads = ("target", "mode", "all pairs done", "90% done", "capped")
    rows = [
        [
            f"{t:g}",
            mode,
            f"{comp.mean:,.0f} ± {comp.sd:,.0f}",
            f"{ninety:,.0f}",
            f"{np.mean(comp.capped):.1f}",
        ]
        for t, mode, comp, ninety in built.extra["rows"]
    ]
    table = TerminalTable([Column(c, number=True) for c in heads], rows, built.summary)
    print_tables([(table, [])])
    a = built.extra["agreement"]
    out.print(
        plain(
            f"pool: {built.counts['ratings']:,} ratings, α ordinal {a.alpha_ordinal:.2f}, "
            f"α interval {a.alpha_interval:.2f}, mean SD per pair {a.mean_sd:.2f} (0-10 scale); "
            "RUSSE 2015 for scale: 4,200 answers, α 0.49, mean SD 0.62 (0-3 scale)"
        )
    )
    if html is not None:
        out.print(plain(f"wrote {html}"))
