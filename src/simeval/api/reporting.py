"""Reading results folders (``simeval report``, ``leaderboard``, ``compare``, ``agreement``):
nothing is scored again, everything comes from the recorded records and per-item rows."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
    checked,
)
from simeval.api.progress import Quiet, Steps
from simeval.data.atomic import write_atomic
from simeval.data.store import DataStore
from simeval.errors import InputError, SimevalError


def rater_agreement(store: DataStore | None = None) -> list[Any]:
    """Inter-annotator agreement where individual ratings ship with the data (WordSim-353
    set1 and set2): per file, then pooled by pairs (:mod:`simeval.datasets.agreement`).

    Returns:
        ``Agreement`` rows: name, items, raters, pairwise and leave-one-out Spearman.
    """
    from simeval.datasets.agreement import RATINGS, agreement, pooled, read_ratings

    store = store or DataStore.from_env()
    rows = []
    for bench, files in RATINGS.items():
        parts = [agreement(f, read_ratings(store.path(f))) for f in files]
        rows += [*parts, pooled(f"{bench} (pooled by pairs)", parts)]
    return rows


def agreement_ceilings(store: DataStore | None = None) -> dict[str, dict[str, float]]:
    """The report's ceilings: each benchmark's pooled rater agreement, by benchmark."""
    from simeval.datasets.agreement import RATINGS, agreement, pooled, read_ratings

    store = store or DataStore.from_env()
    found: dict[str, dict[str, float]] = {}
    for bench, files in RATINGS.items():
        both = pooled(bench, [agreement(f, read_ratings(store.path(f))) for f in files])
        found[bench] = {
            "raters, pairwise ρ": both.pairwise,
            "raters, leave-one-out ρ": both.leave_one_out,
        }
    return found


BOARD_OPTIONS = (BOARD_TOP, KEEP_DOMINATED, TIERS, REPLICATES, SEED, LEVEL, ALPHA, COMBINE)


@dataclass
class Report:
    """What :func:`write_report` wrote."""

    path: Path
    size: int  # characters of the page
    systems: int
    benchmarks: int
    warnings: list[str] = field(default_factory=list)


@checked(REPORT_TOP, REPLICATES, SEED, LEVEL, JOBS)
def write_report(
    folder: str | Path,
    html: str | Path,
    *,
    by: Sequence[str] = (),
    top: int = REPORT_TOP.default,
    replicates: int = REPLICATES.default,
    seed: int = SEED.default,
    level: float = LEVEL.default,
    jobs: int = JOBS.default,
    data_dir: str | Path | None = None,
    steps: Steps | None = None,
    registry: Any = None,
) -> Report:
    """Write one self-contained HTML page over the results ``folder``.

    Args:
        by: item columns to split every benchmark by (by value, or by quartile);
        top: systems in each top-N table; replicates, seed, level: the bootstrap;
        jobs: processes building the benchmarks' sections (0: one per CPU);
        data_dir: where the rater files of the agreement ceilings are (default:
            ``SIMEVAL_DATA_DIR``; none found: the report goes without, with a warning);
        steps: progress, a step per benchmark section done (named after the benchmark);
        registry: registry files (or a :class:`~simeval.registry.Registry`) whose benchmarks'
            ``views`` become subsets, as the catalog's do (default: ``SIMEVAL_REGISTRY``'s).

    Writes ``html`` (its folder made if needed). Returns its path, size and counts.

    Examples:
        >>> import pathlib, tempfile, simeval
        >>> folder = pathlib.Path(tempfile.mkdtemp())
        >>> for spec in ("orthographic:kind=prefix", "random:seed=1"):
        ...     _ = simeval.evaluate(spec, "mc30", results_dir=folder)
        >>> report = simeval.write_report(folder, folder / "report.html", replicates=100, jobs=1)
        >>> report.systems, report.benchmarks, (folder / "report.html").is_file()
        (2, 1, True)
    """
    from simeval.api.targets import registry_of
    from simeval.engine import cpus
    from simeval.metrics.stats import Resampling
    from simeval.report.collect import load_grid
    from simeval.report.html import ReportOptions, build_report

    html = Path(html)
    if html.is_dir():
        raise InputError(html, None, "is a folder: --html names the page to write")
    grid = load_grid(folder)
    for column in by:
        found = [set(e.items()) for e in grid.entries.values() if e.has_items]
        if not any(column in columns for columns in found):
            known = sorted(set().union(*found)) if found else []
            raise InputError(
                None,
                None,
                f"--by {column}: no item column of that name; columns: {', '.join(known)}",
            )
    warnings = []
    try:
        ceilings = agreement_ceilings(DataStore.from_env(data_dir))
    except SimevalError as exc:  # no data folder: the report goes without ceilings
        ceilings = {}
        warnings.append(f"no agreement ceilings: {exc}")
    options = ReportOptions(
        Resampling(replicates, seed, level),
        top,
        tuple(by),
        ceilings,
        jobs=jobs or cpus(),
        registry=registry_of(registry),
    )
    steps = steps or Quiet()
    steps.start("report", len(grid.benchmarks))
    page = build_report(grid, options, str(folder), lambda bench: steps.advance(1, bench))
    html.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(html, page.encode("utf-8"))
    return Report(html, len(page), len(grid.systems), len(grid.benchmarks), warnings)


@checked(FORMAT, *BOARD_OPTIONS)
def leaderboard(
    folder: str | Path | Sequence[Any],
    fmt: str = FORMAT.default,
    benchmarks: Sequence[str] = (),
    top: int = BOARD_TOP.default,
    keep_dominated: bool = KEEP_DOMINATED.default,
    metric: str | None = None,
    registry: Any = None,
    tiers: bool = TIERS.default,
    replicates: int = REPLICATES.default,
    seed: int = SEED.default,
    level: float = LEVEL.default,
    alpha: float = ALPHA.default,
    combine: str = COMBINE.default,
) -> Any:
    """The overall leaderboard as in RUSSE 2015 Table 5 (systems beaten on every benchmark
    by another dropped unless ``keep_dominated``, the rest ranked by the sum of their main
    scores, or their mean or mean rank: ``combine``, as a campaign's phase declares it,
    :func:`simeval.report.leaderboard.combined`), then with ``top`` the top N of every
    benchmark (Tables 6-9), rendered as ``fmt``: markdown, latex, csv or html.
    ``benchmarks``: the overall table's columns (default: every benchmark; RUSSE as its four
    parts, STS as ALL), a suite of the catalog or of the ``registry`` files standing for its
    members (:func:`simeval.api.targets.
    recorded_benchmarks`). ``metric``: rank by this
    metric instead of each benchmark's main one. Each metric ranks in its declared direction
    (:mod:`simeval.metrics.catalog`). ``folder``: a results folder, or results in memory (what
    :func:`simeval.evaluate` and :func:`simeval.score` return), the latest of each system and
    benchmark counting.

    ``tiers``: every benchmark's table (the top N, or every system when ``top`` is 0) gains a
    rank interval, LMArena's rank upper bound and a significance tier per system, from a
    paired bootstrap of ``replicates`` at ``level`` (``seed``) and the main metric's paired
    test at ``alpha`` with Holm's correction (:mod:`simeval.report.tiers`); the method is
    stated under each table.

    ``fmt="frame"``: the same tables as a pandas DataFrame, a row per benchmark and system
    (every system, whatever ``top``; the benchmarks of the overall table, and with ``top``
    those of the top lists): ``benchmark``, ``system``, ``metric``, ``rank`` on that
    benchmark, ``score``, ``no_information`` (†), the overall table's ``overall_rank`` and
    ``overall`` (its sum, mean or mean rank: ``combine``; missing for a dominated system), and
    with ``tiers`` ``rank_low``, ``rank_high``, ``upper_bound``, ``tier`` and ``p_holm`` (the
    Holm-adjusted p-value against the tier's best; missing for the best)
    (:func:`simeval.report.leaderboard.board_rows`).

    Examples:
        >>> import simeval
        >>> results = [*simeval.evaluate("orthographic:kind=prefix", "mc30", "rg65"),
        ...            *simeval.evaluate("random:seed=1", "mc30", "rg65")]
        >>> print(simeval.leaderboard(results, "csv").splitlines()[0])
        rank,system,mc30,rg65,sum
        >>> frame = simeval.leaderboard(results, "frame", keep_dominated=True)
        >>> frame[["benchmark", "system", "rank"]].values.tolist()  # doctest: +NORMALIZE_WHITESPACE
        [['mc30', 'orthographic:kind=prefix', 1], ['mc30', 'random:seed=1', 2],
         ['rg65', 'orthographic:kind=prefix', 1], ['rg65', 'random:seed=1', 2]]
    """
    from simeval.report.leaderboard import RENDERERS

    how = (folder, benchmarks, top, keep_dominated, metric, registry, tiers, replicates, seed,
           level, alpha, combine)  # fmt: skip
    if fmt == "frame":
        return _board_frame(*_tables(*how, every=True))
    render = RENDERERS[fmt]
    return "\n".join(render(table) for table in _tables(*how))


def frame_csv(frame: Any) -> str:
    """A leaderboard frame (``fmt="frame"``) as CSV, what ``simeval leaderboard --format
    frame`` prints (:func:`simeval.report.leaderboard.rows_csv`: numbers in full, a missing
    value empty)."""
    from simeval.report.leaderboard import rows_csv

    values = [[v.item() if hasattr(v, "item") else v for v in row] for row in
              frame.astype(object).itertuples(index=False)]  # fmt: skip
    return rows_csv(list(frame.columns), values)


def _board_frame(board: Any, *tables: Any) -> Any:
    """The tables as one DataFrame (:func:`simeval.report.leaderboard.board_rows`)."""
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover
        raise ImportError("fmt='frame' needs pandas: pip install 'simeval[frames]'") from exc
    from simeval.report.leaderboard import BOARD_FIELDS, TIER_FIELDS, board_rows

    tiered = any(t.standings is not None for t in tables)
    columns = [*BOARD_FIELDS, *(TIER_FIELDS if tiered else ())]
    frame = pd.DataFrame(board_rows(board, tables), columns=columns)
    whole = ["rank", "overall_rank", *(("rank_low", "rank_high", "upper_bound", "tier")
                                       if tiered else ())]  # fmt: skip
    frame[whole] = frame[whole].astype("Int64")  # ranks stay integers beside a missing one
    return frame.astype({c: float for c in ("score", "overall", "p_holm") if c in frame})


@checked(*BOARD_OPTIONS)
def leaderboard_tables(
    folder: str | Path | Sequence[Any],
    benchmarks: Sequence[str] = (),
    top: int = BOARD_TOP.default,
    keep_dominated: bool = KEEP_DOMINATED.default,
    metric: str | None = None,
    registry: Any = None,
    tiers: bool = TIERS.default,
    replicates: int = REPLICATES.default,
    seed: int = SEED.default,
    level: float = LEVEL.default,
    alpha: float = ALPHA.default,
    combine: str = COMBINE.default,
) -> list[Any]:
    """The tables :func:`leaderboard` renders: the overall one, then with ``top`` the top N
    of every benchmark (:class:`simeval.report.leaderboard.Table`), with ``tiers`` each
    benchmark's table with its rank tiers (every system when ``top`` is 0)."""
    return _tables(folder, benchmarks, top, keep_dominated, metric, registry, tiers, replicates,
                   seed, level, alpha, combine)  # fmt: skip


def _tables(
    folder: str | Path | Sequence[Any],
    benchmarks: Sequence[str],
    top: int,
    keep_dominated: bool,
    metric: str | None,
    registry: Any,
    tiers: bool,
    replicates: int,
    seed: int,
    level: float,
    alpha: float,
    combine: str,
    every: bool = False,
) -> list[Any]:
    """:func:`leaderboard_tables`; ``every``: a table of every system for each benchmark of
    the overall table (and, with ``top``, of the top lists), as the frame reads them."""
    from simeval.api.targets import recorded_benchmarks
    from simeval.report.html import grid_top, overall_benchmarks
    from simeval.report.leaderboard import overall_table

    grid = _grid(folder)
    where = str(folder) if isinstance(folder, str | Path) else "these results"
    columns = (
        recorded_benchmarks(benchmarks, grid.benchmarks, where, registry)
        if benchmarks
        else overall_benchmarks(grid)
    )
    if tiers and metric is not None:
        raise InputError(
            None, None, "--tiers ranks by each benchmark's main metric (its test's); drop --metric"
        )
    scores = grid.scores(metric)
    have = [b for b in grid.benchmarks if any(b in v for v in scores.values())]
    if metric is not None:
        columns = [b for b in columns if b in have]
        if not columns:
            raise InputError(None, None, f"no result in {folder} has a metric {metric!r}")
    flags = grid.no_information()
    board = overall_table(scores, columns, not keep_dominated, flags, grid.lower(metric), metric,
                          combine)  # fmt: skip
    if every:
        shown = list(dict.fromkeys([*columns, *(have if top else [])]))
        top = 0
    else:
        shown = (have if top else columns) if tiers else (have if top else [])
    n = top or len(grid.systems)
    if not tiers:
        return [board, *(grid_top(grid, b, n, flags, metric) for b in shown)]
    from simeval.metrics.stats import Resampling
    from simeval.report.tiers import grid_tiers, with_tiers

    how = Resampling(replicates, seed, level, alpha)

    tables = [board]
    for b in shown:
        table = grid_top(grid, b, n, flags)
        table.title = table.title if top else f"{b}: rank tiers"
        tables.append(with_tiers(table, grid_tiers(grid, b, how)))
    return tables


def _grid(results: str | Path | Sequence[Any]) -> Any:
    """A results folder, or results in memory, as a grid of (system, benchmark); two systems
    that would be one row are refused (:func:`refuse_name_clash`)."""
    from simeval.report.collect import entry_of, grid_of, load_entries

    if isinstance(results, str | Path):
        entries = load_entries(results)
        refuse_name_clash(entries, f"leaderboard: {results}", reruns=True)
        return grid_of(entries)
    found = results_in_memory(results, "leaderboard: results", "or a results folder")
    entries = [entry_of(r) for r in found]
    refuse_name_clash(entries, "leaderboard: results", reruns=False)
    return grid_of(entries)


def naming_hint() -> str:
    """How to name a system, in the words of the user's door."""
    from simeval.errors import on_command_line

    if on_command_line():
        return "record each system under its own name (--name A when scoring a file)"
    return (
        'name each system: simeval.score(..., name="A"), simeval.evaluate(function, ..., '
        'name="A"), or simeval.api.keep_results(results, None, name="A")'
    )


def refuse_name_clash(entries: list[Any], where: str, reruns: bool) -> None:
    """Refuse entries of which a grid would keep one row under one name
    (:func:`simeval.report.collect.name_clash`: in a folder, a later record of the same system
    replaces the earlier, as a re-run should; two systems sharing a name never do)."""
    from simeval.report.collect import name_clash

    clash = name_clash(entries, reruns)
    if clash is not None:
        name, bench = clash
        what = "results" if not reruns else "records of different systems"
        raise InputError(
            None,
            None,
            f"{where}: two {what} on {bench} are both named {name!r} and would be one row; "
            f"{naming_hint()}",
        )


def results_in_memory(value: Any, argument: str, alternative: str) -> list[Any]:
    """``value`` as a list of results in memory (one :class:`~simeval.results.record.Result`,
    or an iterable of them); anything else is refused, naming ``argument`` and what it takes
    (``alternative``: the other form it accepts)."""
    from simeval.results.record import Result

    if isinstance(value, Result):
        return [value]
    found = list(value) if isinstance(value, Iterable) and not isinstance(value, str) else None
    stranger = next((r for r in found or () if not isinstance(r, Result)), None)
    if found is None or stranger is not None:
        got = type(value).__name__
        if stranger is not None:
            got = f"a {got} holding a {type(stranger).__name__}"
        raise InputError(
            None, None, f"{argument}: expected results in memory (what simeval.evaluate and "
            f"simeval.score return) {alternative}, got {got}",
        )  # fmt: skip
    return found


@checked(REPLICATES, SEED, LEVEL, ALPHA)
def compare(
    a: Any,
    b: Any,
    *,
    replicates: int = REPLICATES.default,
    seed: int = SEED.default,
    level: float = LEVEL.default,
    alpha: float = ALPHA.default,
) -> Any:
    """Is A better than B? Results in memory (what :func:`simeval.evaluate` or
    :func:`simeval.score` return, for two systems on the same benchmarks), compared on every
    benchmark both have, as ``simeval compare`` does on a results folder: A − B on every metric
    with its paired-bootstrap interval at ``level``, and the test suited to the main metric
    (Williams' for correlations, approximate randomization for AP, accuracy and MRR, the
    paired bootstrap for other aggregates), judged at ``alpha``.

    Returns:
        A :class:`~simeval.report.compare.ComparisonReport`: ``.verdicts``, ``.to_frame()``,
        ``.to_markdown()``, ``.to_latex()``, ``.to_csv()``.

    Examples:
        >>> import simeval
        >>> a = simeval.evaluate("orthographic:kind=prefix", "rg65")
        >>> b = simeval.evaluate("random:seed=1", "rg65")
        >>> report = simeval.compare(a, b, replicates=200)
        >>> report.verdicts[0].main.test
        'Williams'
    """
    from simeval.metrics.stats import Resampling
    from simeval.report.collect import entry_of
    from simeval.report.compare import ComparisonReport
    from simeval.report.compare import compare as compare_entries

    sides = []
    for letter, side in (("a", a), ("b", b)):
        folder = "(for a results folder, simeval.compare_systems)"
        found = [entry_of(r) for r in results_in_memory(side, f"compare: {letter}", folder)]
        refuse_name_clash(found, f"compare: {letter}", reruns=False)
        sides.append({e.benchmark: e for e in found})
    same = {e.system for e in sides[0].values()} & {e.system for e in sides[1].values()}
    if same:
        raise InputError(
            None,
            None,
            f"compare: A and B are both named {sorted(same)[0]!r}: the verdict could not say "
            f"which is better; {naming_hint()}",
        )
    common = [bench for bench in sides[0] if bench in sides[1]]
    if not common:
        have_a, have_b = (", ".join(side) or "no results" for side in sides)
        raise InputError(None, None, f"A ({have_a}) and B ({have_b}) have no benchmark in common")
    how = Resampling(replicates, seed, level, alpha)
    verdicts = [compare_entries(sides[0][bench], sides[1][bench], how) for bench in common]
    return ComparisonReport(verdicts, level, alpha)


def terminal_table(table: Any) -> tuple[Any, list[str]]:
    """A table of :func:`leaderboard_tables` for a terminal, with its notes
    (:func:`simeval.report.leaderboard.to_terminal`): rank and system repeated in every part
    of a narrow terminal, the best cells in bold."""
    from simeval.report.leaderboard import to_terminal

    return to_terminal(table)


def verdict_text(verdict: Any, alpha: float = ALPHA.default) -> str:
    """A verdict of :func:`compare_systems` in words, judged at ``alpha``: which system is
    better on the main metric, by which test, or why there is none
    (:func:`simeval.report.compare.verdict_text`)."""
    from simeval.report.compare import verdict_text as in_words

    return in_words(verdict, alpha)


def benchmarks_in(folder: str | Path, names: Sequence[str], registry: Any = None) -> list[str]:
    """The benchmarks of the results ``folder`` that ``names`` stand for, a suite of the
    catalog or of the ``registry`` files (not recorded by its own name) as its members
    (:func:`simeval.api.targets.recorded_benchmarks`)."""
    from simeval.api.targets import recorded_benchmarks
    from simeval.report.collect import load_grid

    return recorded_benchmarks(names, load_grid(folder).benchmarks, str(folder), registry)


@checked(REPLICATES, SEED, LEVEL)
def compare_systems(
    folder: str | Path,
    a: str,
    b: str,
    benchmark: str,
    replicates: int = REPLICATES.default,
    seed: int = SEED.default,
    level: float = LEVEL.default,
) -> tuple[str, str, Any]:
    """Is A better than B on ``benchmark``? ``a`` and ``b`` name systems of the results
    ``folder`` (or a unique part of their names).

    Returns:
        The two systems' full names and the comparison (:func:`simeval.report.compare.
        compare`): A − B for every metric with its paired bootstrap interval, and the test
        suited to the main metric.

    Examples:
        >>> import tempfile, simeval
        >>> folder = tempfile.mkdtemp()
        >>> for spec in ("orthographic:kind=prefix", "random:seed=1"):
        ...     _ = simeval.evaluate(spec, "rg65", results_dir=folder)
        >>> a, b, verdict = simeval.compare_systems(folder, "prefix", "random", "rg65", 200)
        >>> a, b, verdict.main.test
        ('orthographic:kind=prefix', 'random:seed=1', 'Williams')
    """
    from simeval.metrics.stats import Resampling
    from simeval.report.collect import grid_of, load_entries
    from simeval.report.compare import compare

    entries = load_entries(folder)
    grid = grid_of(entries)
    sa, sb = grid.resolve(a), grid.resolve(b)
    if sa == sb:
        raise InputError(
            None, None, f"A ({a!r}) and B ({b!r}) are the same system, {sa}: name two systems"
        )
    on_bench = [e for e in entries if e.benchmark == benchmark and e.system in (sa, sb)]
    refuse_name_clash(on_bench, f"compare: {folder}", reruns=True)
    ea, eb = grid.get(sa, benchmark), grid.get(sb, benchmark)
    for system, e in ((sa, ea), (sb, eb)):
        if e is None:
            raise InputError(None, None, f"{system} has no result on {benchmark} in {folder}")
    assert ea is not None and eb is not None
    return sa, sb, compare(ea, eb, Resampling(replicates, seed, level))
