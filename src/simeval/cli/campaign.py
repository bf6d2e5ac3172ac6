"""`simeval build campaign …`: annotation campaigns as RUSSE 2015 and SimLex-999 ran them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from rich.table import Table
from rich.text import Text

from simeval.cli.common import DataDir, build_app, guarded, out, store_of
from simeval.errors import InputError

campaign_app = typer.Typer(
    rich_markup_mode=None,
    help="Annotation campaigns: hand out assignments (COUNT or SD mode), aggregate answers with "
    "the SimLex-999 rater checks, and simulate which mode needs fewer answers.",
    no_args_is_help=True,
)
build_app.add_typer(campaign_app, name="campaign")

Out = Annotated[Path, typer.Argument(help="A new folder to write into (never overwritten).")]
Pairs = Annotated[
    Path, typer.Option("--pairs", help="The pairs to annotate: a pair file (word1 word2 …).")
]
Scale = Annotated[str, typer.Option(help="The rating scale LOW:HIGH (RUSSE 0:3, SimLex 0:6).")]
Seed = Annotated[int, typer.Option(help="Seed: the same seed, the same assignments.")]


def _range(text: str, what: str) -> tuple[float, float]:
    try:
        low, high = (float(x) for x in text.split(":"))
    except ValueError:
        raise InputError(None, None, f"{what}: expected LOW:HIGH, e.g. 0:6, not {text!r}") from None
    if not low < high:
        raise InputError(None, None, f"{what}: LOW must be below HIGH, got {text!r}")
    return low, high


def _digests(*paths: Path | None) -> dict[str, str]:
    from simeval.data.textio import sha256_file

    return {str(p): sha256_file(p) for p in paths if p is not None}


@campaign_app.command("assign")
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
    from simeval.datasets.campaign import MODES, make_assignments, read_answers, read_campaign_pairs
    from simeval.datasets.folder import building

    if mode not in MODES:
        raise InputError(None, None, f"--mode must be {' or '.join(MODES)}, not {mode!r}")
    low_high = _range(scale, "--scale")
    items = read_campaign_pairs(pairs)
    matrix = np.full((len(items), 0), np.nan)
    if answers is not None:
        matrix = read_answers(answers, items, low_high).matrix()
    chosen = make_assignments(matrix, mode, number, size, seed)
    settings = {"mode": mode, "assignments": number, "size": size, "scale": scale, "seed": seed}
    with building(out_dir, "campaign-assign", settings) as b:
        b.inputs = _digests(pairs, answers)
        with (b.path / "assignments.csv").open("w", encoding="utf-8") as f:
            f.write("assignment,word1,word2\n")
            for k, rows in enumerate(chosen, 1):
                for i in rows:
                    f.write(f"{k},{items[i][0]},{items[i][1]}\n")
                    b.note("assign", f"{items[i][0]},{items[i][1]}", f"assignment {k}", mode)
        b.counts = {"pairs": len(items), "answers_so_far": int(np.sum(~np.isnan(matrix)))}
        b.counts["handed_out"] = sum(len(r) for r in chosen)
    out.print(Text(f"wrote {out_dir}: {number} assignments of {size} pairs ({mode} mode)"))


def _pair_rows(path: Path | None, items: list[tuple[str, str]]) -> np.ndarray | None:
    from simeval.data.pairs import read_pair_keys

    if path is None:
        return None
    wanted = read_pair_keys(path)
    return np.array([p in wanted for p in items], dtype=bool)


def _checkpoints(
    path: Path | None, items: list[tuple[str, str]]
) -> dict[int, tuple[float, float]] | None:
    """A checkpoint file: word1,word2,low,high (the allowed ratings of a control pair)."""
    from simeval.data.pairs import read_pair_table
    from simeval.data.textio import parse_float

    if path is None:
        return None
    index = {p: i for i, p in enumerate(items)}
    table = read_pair_table(path)
    out_: dict[int, tuple[float, float]] = {}
    for cells, line in zip(table.rows, table.lines, strict=True):
        if len(cells) < 4:
            raise InputError(path, line, "expected word1,word2,low,high")
        pair = (cells[0], cells[1])
        if pair not in index:
            raise InputError(path, line, "this checkpoint pair is not in the campaign")
        low = parse_float(cells[2], path, line, "low")
        high = parse_float(cells[3], path, line, "high")
        out_[index[pair]] = (low, high)
    return out_


@campaign_app.command("aggregate")
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
    from simeval.data.pairs import format_score
    from simeval.datasets.campaign import (
        aggregate,
        campaign_agreement,
        rater_quality,
        read_answers,
        read_campaign_pairs,
    )
    from simeval.datasets.folder import building

    low_high = _range(scale, "--scale")
    target = _range(rescale, "--rescale") if rescale else None
    items = read_campaign_pairs(pairs)
    given = read_answers(answers, items, low_high)
    quality = rater_quality(
        given.matrix(),
        given.raters,
        low_high,
        _pair_rows(consistency, items),
        _checkpoints(checkpoints, items),
        min_gain,
    )
    if not quality.raters:
        raise InputError(answers, None, "every rater was excluded: nothing to aggregate")
    agg = aggregate(quality.matrix, low_high, target)
    agreement = campaign_agreement(quality.matrix)
    settings = {"scale": scale, "rescale": rescale, "min_gain": min_gain}
    with building(out_dir, "campaign-aggregate", settings) as b:
        b.inputs = _digests(pairs, answers, consistency, checkpoints)
        b.benchmark = {"file": "benchmark.csv", "kind": "graded"}
        rated = agg.count > 0
        with (b.path / "benchmark.csv").open("w", encoding="utf-8") as f:
            f.write("word1,word2,sim,sd,n\n")
            for i in np.flatnonzero(rated):
                sd = "" if np.isnan(agg.sd[i]) else format_score(float(agg.sd[i]))
                f.write(
                    f"{items[i][0]},{items[i][1]},{format_score(float(agg.mean[i]))},{sd},"
                    f"{agg.count[i]}\n"
                )
        for i in np.flatnonzero(~rated):
            b.note("aggregate", f"{items[i][0]},{items[i][1]}", "left out", "no rating")
        decided = {d.rater: d for d in quality.decisions if d.action == "excluded"}
        with (b.path / "raters.tsv").open("w", encoding="utf-8") as f:
            f.write("rater\tanswers\toutcome\twhy\n")
            counts = np.bincount(given.rater, minlength=len(given.raters))
            for name, n in zip(given.raters, counts, strict=True):
                shifted = [
                    d.why for d in quality.decisions if d.rater == name and d.action == "shifted"
                ]
                outcome = "excluded" if name in decided else "shifted" if shifted else "kept"
                why = decided[name].why if name in decided else "; ".join(shifted)
                f.write(f"{name}\t{n}\t{outcome}\t{why}\n")
        for d in quality.decisions:
            b.note("raters", d.rater, d.action, d.why)
        b.counts = {
            "pairs": len(items),
            "pairs_rated": int(rated.sum()),
            "answers": len(given.rating),
            "raters": len(given.raters),
            "raters_kept": len(quality.raters),
            "agreement": {k: round(v, 6) for k, v in vars(agreement).items()},
        }
    table = Table(
        title=Text(
            f"{out_dir}: {int(rated.sum())} pairs, {len(quality.raters)} of "
            f"{len(given.raters)} raters kept"
        )
    )
    for c in ("pairwise ρ", "leave-one-out ρ", "α ordinal", "α interval", "mean SD"):
        table.add_column(c, justify="right")
    table.add_row(*(f"{v:.4f}" for v in vars(agreement).values()))
    out.print(table)


def _write_answers(
    folder: Path, trace: Any, pool: np.ndarray, words: list[tuple[str, str]], raters: list[str]
) -> None:
    """A replay's answers as a campaign's answers CSV, and the pairs it was about. WordSim-353
    lists a few pairs twice (money/cash); a rater's second answer to the same pair is left
    out, as a campaign takes one answer per rater and pair."""
    seen: set[tuple[str, tuple[str, str]]] = set()
    with (folder / "answers.csv").open("w", encoding="utf-8") as f:
        f.write("rater,word1,word2,rating,time\n")
        for i, j in trace.given:
            if (raters[j], words[i]) not in seen:
                seen.add((raters[j], words[i]))
                f.write(f"{raters[j]},{words[i][0]},{words[i][1]},{pool[i, j]:g},\n")
    with (folder / "pairs.tsv").open("w", encoding="utf-8") as f:
        f.write("word1\tword2\n")
        f.writelines(f"{a}\t{b}\n" for a, b in dict.fromkeys(words))


@campaign_app.command("simulate")
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
            "target: the input of `simeval build campaign aggregate`."
        ),
    ] = "sd",
    data_dir: DataDir = None,
) -> None:
    """Replay WordSim-353's 29 raters (set1, set2) as the crowd and count, for count and sd
    modes, the answers needed until every pair's mean has a 95% interval narrower than TARGET
    (or has used up its raters)."""
    from simeval.datasets.agreement import RATINGS, read_ratings
    from simeval.datasets.campaign import campaign_agreement
    from simeval.datasets.folder import building
    from simeval.datasets.simulate import compare_modes

    targets = target or [3.0, 4.0]
    store = store_of(data_dir)
    from simeval.data.pairs import read_pair_table

    if answers_of not in ("count", "sd"):
        raise InputError(None, None, f"--answers-of must be count or sd, not {answers_of!r}")
    parts = [read_ratings(store.path(f)) for f in RATINGS["wordsim353"]]
    words = [
        (r[0], r[1]) for f in RATINGS["wordsim353"] for r in read_pair_table(store.path(f)).rows
    ]
    raters = [f"set{k}-{j + 1}" for k, p in enumerate(parts, 1) for j in range(p.shape[1])]
    pool = np.full((sum(p.shape[0] for p in parts), sum(p.shape[1] for p in parts)), np.nan)
    r = c = 0
    for p in parts:  # the two rater groups rated disjoint pairs
        pool[r : r + p.shape[0], c : c + p.shape[1]] = p
        r, c = r + p.shape[0], c + p.shape[1]
    agreement = campaign_agreement(pool)
    settings = {"targets": targets, "size": size, "replays": replays, "seed": seed}
    rows, curves = [], {}
    with building(out_dir, "campaign-simulate", settings) as b:
        b.inputs = {f: store.sha256(f) for f in RATINGS["wordsim353"]}
        with (b.path / "simulation.tsv").open("w", encoding="utf-8") as f:
            f.write("target\tmode\tseed\tanswers_all_done\tanswers_90pc_done\tcapped\n")
            for t in targets:
                comparison, traces = compare_modes(pool, t, size, replays, seed)
                for mode, ts in traces.items():
                    for tr in ts:
                        what = f"{mode} mode, seed {tr.seed}, target {t:g}"
                        b.note("replay", what, f"{tr.needed} answers", f"{tr.capped} pairs capped")
                        f.write(
                            f"{t:g}\t{mode}\t{tr.seed}\t{tr.needed}\t{tr.answers_until(0.9)}\t"
                            f"{tr.capped}\n"
                        )
                    curves[f"{mode}, width < {t:g}"] = (ts[0].answers, ts[0].done)
                    if mode == answers_of and t == targets[0]:
                        _write_answers(b.path, ts[0], pool, words, raters)
                    rows.append(
                        (t, mode, comparison[mode], np.mean([x.answers_until(0.9) for x in ts]))
                    )
        b.counts = {
            "pairs": pool.shape[0],
            "raters": pool.shape[1],
            "ratings": int(np.sum(~np.isnan(pool))),
            "agreement": {k: round(v, 6) for k, v in vars(agreement).items()},
        }
    table = Table(title=Text(f"answers needed, mean of {replays} replays ({pool.shape[0]} pairs)"))
    for col in ("target", "mode", "all pairs done", "90% done", "capped"):
        table.add_column(col, justify="right")
    for t, mode, comp, ninety in rows:
        table.add_row(
            f"{t:g}",
            mode,
            f"{comp.mean:,.0f} ± {comp.sd:,.0f}",
            f"{ninety:,.0f}",
            f"{np.mean(comp.capped):.1f}",
        )
    out.print(table)
    a = agreement
    out.print(
        Text(
            f"pool: {int(np.sum(~np.isnan(pool))):,} ratings, α ordinal {a.alpha_ordinal:.2f}, "
            f"α interval {a.alpha_interval:.2f}, mean SD per pair {a.mean_sd:.2f} (0-10 scale); "
            "RUSSE 2015 for scale: 4,200 answers, α 0.49, mean SD 0.62 (0-3 scale)"
        )
    )
    if html is not None:
        from simeval.report.html import simulation_page

        html.write_text(simulation_page(rows, curves, a, size, replays), encoding="utf-8")
        out.print(Text(f"wrote {html}"))
