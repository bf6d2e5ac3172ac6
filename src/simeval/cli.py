"""The ``simeval`` command line: a thin layer over the Python API.

Exit status: 0 on success, 2 when input or data is invalid (the message names file and line).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from simeval.errors import SimevalError

app = typer.Typer(
    help=__doc__.split("\n")[0] + "\n\nSee `simeval COMMAND --help`.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
data_app = typer.Typer(
    help="The data catalog: list, describe, fetch and verify data sets.", no_args_is_help=True
)
score_app = typer.Typer(
    help="Score submission files exactly as the official scorers do, with validation.",
    no_args_is_help=True,
)
build_app = typer.Typer(
    help="Build benchmark datasets (BUCC 2015-style linking collections).", no_args_is_help=True
)
app.add_typer(data_app, name="data")
app.add_typer(score_app, name="score")
app.add_typer(build_app, name="build")

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)
F = TypeVar("F", bound=Callable[..., Any])
STATE: dict[str, Any] = {"data_dir": None}

DataDir = Annotated[
    Path | None,
    typer.Option(
        "--data-dir",
        envvar="SIMEVAL_DATA_DIR",
        show_envvar=True,
        help="Local data mirror laid out like shared/data (russe/, sts2012/, ...).",
    ),
]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print results as JSON lines.")]
KeepIn = Annotated[
    Path | None,
    typer.Option(
        "--results",
        help="Also append the records, with their per-item rows, to this folder's "
        "results.jsonl (for `simeval report` and `simeval compare`).",
    ),
]
SystemName = Annotated[
    str | None,
    typer.Option("--name", help="The system's name in reports (default: the file's path)."),
]
Missing = Annotated[
    str,
    typer.Option(
        "--missing",
        help="What a gold pair without a score gets: zero (RUSSE's official rule), "
        "skip (evaluate covered pairs only) or error.",
    ),
]


def guarded(fn: F) -> F:
    """Turn simeval errors into a one-line message and exit status 2."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except SimevalError as exc:
            err.print(f"[bold red]error:[/] {exc}", highlight=False)
            raise typer.Exit(2) from None

    return wrapper  # type: ignore[return-value]


def _store(data_dir: Path | None) -> Any:
    from simeval.data.store import DataStore

    return DataStore.from_env(data_dir)


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        if value != value:
            return "–"
        return f"{value:.0f}" if value.is_integer() and abs(value) >= 10 else f"{value:.4f}"
    return str(value)


def report(results: Sequence[Any], as_json: bool, title: str = "") -> None:
    """Print results: a table per task kind (or JSON lines), warnings on standard error."""
    from simeval.tasks.result import Result

    seen: set[str] = set()
    for r in results:
        for w in r.warnings:
            if w not in seen:
                seen.add(w)
                err.print(f"[yellow]warning:[/] {w}", highlight=False)
    if as_json:
        for r in results:
            sys.stdout.write(r.to_json() + "\n")
        return
    groups: dict[tuple[str, ...], list[Result]] = {}
    for r in results:
        groups.setdefault(tuple(r.metrics), []).append(r)
    for metric_names, rows in groups.items():
        table = Table(title=title or None, title_justify="left")
        table.add_column("benchmark")
        for m in metric_names:
            table.add_column(m + (" *" if m == rows[0].main_metric else ""), justify="right")
        table.add_column("scored / gold", justify="right")
        table.add_column("missing", justify="right")
        for r in rows:
            cov = r.coverage
            table.add_row(
                r.benchmark,
                *(_fmt(r.metrics[m]) for m in metric_names),
                f"{cov.get('scored', 0)} / {cov.get('gold', 0)}",
                str(cov.get("missing", 0)),
            )
        out.print(table)
    out.print("[dim]* main metric[/]")


def _keep(results: Sequence[Any], folder: Path | None, name: str | None) -> None:
    """Name the system and append the records to ``folder`` when asked."""
    for r in results:
        if name:
            r.system["name"] = name
    if folder is not None:
        from simeval.tasks.records import save_results

        save_results(folder, results)
        err.print(f"[dim]appended {len(results)} records to {folder / 'results.jsonl'}[/]")


def _system(path: Path, column: str | None = None) -> dict[str, Any]:
    from simeval.data.textio import sha256_file

    d: dict[str, Any] = {"kind": "submission", "path": str(path), "sha256": sha256_file(path)}
    if column:
        d["column"] = column
    return d


# -- data -------------------------------------------------------------------------------------


@data_app.command("list")
def data_list() -> None:
    """List the catalogued data sets."""
    from simeval.data.catalog import CATALOG

    table = Table()
    for c in ("name", "files", "MB", "licence", "title"):
        table.add_column(c)
    for e in CATALOG.values():
        table.add_row(
            e.name,
            str(len(e.files)),
            f"{sum(f.size for f in e.files) / 1e6:.1f}",
            e.licence,
            e.title,
        )
    out.print(table)


@data_app.command("info")
@guarded
def data_info(name: str, data_dir: DataDir = None) -> None:
    """Describe a data set: source, licence, citation, files and where they are found."""
    from simeval.data.catalog import CATALOG

    if name not in CATALOG:
        raise typer.BadParameter(f"unknown data set {name!r}; known: {', '.join(CATALOG)}")
    e = CATALOG[name]
    store = _store(data_dir)
    out.print(f"[bold]{e.title}[/] ({e.name})\n{e.description}\n")
    out.print(f"upstream: {e.upstream}\nlicence:  {e.licence}")
    if e.note:
        out.print(f"note:     {e.note}")
    table = Table()
    for c in ("file", "bytes", "sha256", "local copy"):
        table.add_column(c)
    for f in e.files:
        local = store.locate(f.path)
        table.add_row(f.path, str(f.size), f.sha256[:16] + "…", str(local) if local else "–")
    out.print(table)
    out.print("citation:\n" + e.citation, highlight=False)


@data_app.command("fetch")
@guarded
def data_fetch(
    names: Annotated[list[str] | None, typer.Argument(help="Data sets (default: all).")] = None,
    data_dir: DataDir = None,
) -> None:
    """Make data sets available: found in the mirror or cache, else downloaded and verified."""
    from rich.progress import Progress

    from simeval.data.catalog import CATALOG

    chosen = names or list(CATALOG)
    with Progress(console=err, transient=True) as progress:
        task = progress.add_task("fetching", total=None)

        def show(path: str, done: int, total: int) -> None:
            progress.update(task, description=path, completed=done, total=total)

        store = _store(data_dir)
        store.progress = show
        for name in chosen:
            if name not in CATALOG:
                raise typer.BadParameter(f"unknown data set {name!r}")
            paths = store.fetch(name)
            root = paths[0].parents[len(Path(CATALOG[name].files[0].path).parts) - 1]
            out.print(f"{name}: {len(paths)} files ready in {root}")


@data_app.command("verify")
@guarded
def data_verify(
    names: Annotated[list[str] | None, typer.Argument(help="Data sets (default: all).")] = None,
    data_dir: DataDir = None,
) -> None:
    """Check the sha256 of every local file against the catalog; exit 1 if any is wrong or
    missing."""
    from simeval.data.catalog import CATALOG

    store = _store(data_dir)
    bad = 0
    for name in names or list(CATALOG):
        statuses = store.verify(name)
        ok = sum(s == "ok" for _, s in statuses)
        out.print(f"{name}: {ok}/{len(statuses)} files ok")
        for path, status in statuses:
            if status != "ok":
                bad += 1
                out.print(f"  [red]{path}: {status}[/]", highlight=False)
    if bad:
        raise typer.Exit(1)


@app.command("benchmarks")
def benchmarks() -> None:
    """List the named benchmarks and suites."""
    from simeval.tasks.benchmarks import SUITES, list_benchmarks

    table = Table()
    for c in ("name", "task", "description"):
        table.add_column(c)
    for row in list_benchmarks():
        table.add_row(*row)
    for name, members in SUITES.items():
        table.add_row(name, "suite", ", ".join(members))
    out.print(table)


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

    suite = load_suite("russe", _store(data_dir))
    predictions = read_scored_pairs(file, column)
    results = suite.evaluate(predictions, missing=missing, system=_system(file, column))
    _keep(results, keep, name)
    report(results, as_json, f"RUSSE 2015 — {file}")


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

    suite = load_suite("sts12", _store(data_dir))
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
    _keep(results, keep, name)
    report(results, as_json, f"SemEval-2012 STS — {path}")


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
    _keep(results, keep, name)
    report(results, as_json)


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
        bench = load_benchmark(benchmark, _store(data_dir))
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
    result = bench.evaluate(predictions, missing=missing, system=_system(pred, pred_column))
    result.warnings = [str(w) for w in predictions.warnings] + result.warnings
    _keep([result], keep, name)
    report([result], as_json)


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
    result = bench.evaluate(read_run(run), complete=complete, system=_system(run))
    _keep([result], keep, name)
    report([result], as_json)


# -- evaluate and predict ---------------------------------------------------------------------

MeasureArg = Annotated[
    str,
    typer.Argument(
        help="Measure spec: overlap | jaccard | random:seed=1 | orthographic:kind=levenshtein"
        "|prefix|dice | vectors:path=FILE,format=auto,oov=zero|skip|backoff | "
        "encoder:model=NAME_OR_PATH (default: the offline all-MiniLM-L6-v2).",
        show_default=False,
    ),
]


def _with_progress(measure: Any, label: str) -> Any:
    """Attach a rich progress bar to a measure's long steps (vector scan, encoding)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    progress = Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
    )
    task = progress.add_task(label, total=None)

    def update(done: int, total: int) -> None:
        progress.update(task, completed=done, total=total)

    if hasattr(measure, "progress"):
        measure.progress = update
    return progress


@app.command("evaluate")
@guarded
def evaluate_cmd(
    measure: MeasureArg,
    benchmark: Annotated[
        list[str] | None,
        typer.Option(
            "--benchmark", "-b", help="A benchmark (repeatable); see `simeval benchmarks`."
        ),
    ] = None,
    suite: Annotated[
        list[str] | None,
        typer.Option(
            "--suite",
            "-s",
            help="russe, sts12, xling (de/fr/ru/tr/zh-en document linking), or the group "
            "words (simlex999, wordsim353, rg65, mc30); repeatable.",
        ),
    ] = None,
    results: Annotated[
        Path, typer.Option("--results", help="Folder whose results.jsonl gets every record.")
    ] = Path("results"),
    save: Annotated[bool, typer.Option(help="Append the records to --results.")] = True,
    data_dir: DataDir = None,
    as_json: JsonFlag = False,
) -> None:
    """Run a measure on benchmarks and suites, score it with the same code as `simeval score`,
    print the table and append the result records to RESULTS/results.jsonl."""
    from simeval.api import evaluate
    from simeval.measures import create_measure

    m = create_measure(measure)
    targets = [*(suite or []), *(benchmark or [])]
    progress = _with_progress(m, f"{m.name}: loading / encoding")
    with progress:
        found = evaluate(
            m,
            *targets,
            store=_store(data_dir),
            results_dir=results if save else None,
            on_target=lambda name: err.print(f"[dim]scoring {name}[/]", highlight=False),
        )
    report(found, as_json, f"{measure}")
    if save and not as_json:
        err.print(f"[dim]appended {len(found)} records to {results / 'results.jsonl'}[/]")


@app.command("predict")
@guarded
def predict_cmd(
    measure: MeasureArg,
    out_path: Annotated[
        Path,
        typer.Option(
            "--out",
            help="Output: a folder for STS.output.<dataset>.txt files or for xling's "
            "<benchmark>.run files, or a file (RUSSE test.csv with sim filled in, "
            "word1,word2,sim for a pair benchmark, a BUCC run for one xling-X-en).",
        ),
    ],
    suite: Annotated[
        str, typer.Option("--suite", "-s", help="sts12, russe, xling, or a benchmark name.")
    ] = "sts12",
    data_dir: DataDir = None,
) -> None:
    """Write a measure's predictions as the task's official submission files, so it can take
    part in a shared task as a file (score them back with `simeval score`)."""
    from simeval.api import predict
    from simeval.measures import create_measure

    m = create_measure(measure)
    with _with_progress(m, f"{m.name}: loading / encoding"):
        written = predict(m, suite, out_path, store=_store(data_dir))
    out.print(f"wrote {len(written)} file(s): {', '.join(map(str, written))}")


@app.command("train")
@guarded
def train_cmd(
    kind: Annotated[
        str,
        typer.Argument(help="ppmi | svd | word2vec | fasttext", show_default=False),
    ],
    corpus: Annotated[
        Path, typer.Option(help="A text file, a folder of .txt files or a .tar.xz/.tar.gz.")
    ],
    lang: Annotated[str, typer.Option(help="ru or en: sentence splitting and tokens.")],
    out_dir: Annotated[Path, typer.Option("--out", help="The model folder to write.")],
    lemmatize: Annotated[
        bool, typer.Option(help="Lemmas instead of word forms (pymorphy3 / simplemma).")
    ] = False,
    one_per_line: Annotated[
        bool, typer.Option(help="Each non-empty line of a file is a document.")
    ] = False,
    min_count: Annotated[int, typer.Option(help="Drop rarer words.")] = 5,
    window: Annotated[int, typer.Option(help="Context window on each side.")] = 5,
    dim: Annotated[int, typer.Option(help="Dimensions (svd, word2vec, fasttext).")] = 300,
    contexts: Annotated[
        int,
        typer.Option(help="Count models: 0 = every word is a context; N = top N non-stop words."),
    ] = 0,
    max_words: Annotated[int, typer.Option(help="Cap the vocabulary (0: no cap).")] = 0,
    alpha: Annotated[float, typer.Option(help="PPMI context smoothing exponent.")] = 0.75,
    shift: Annotated[float, typer.Option(help="PPMI shift k (log k subtracted).")] = 1.0,
    power: Annotated[float, typer.Option(help="SVD eigenvalue weighting p (0, 0.5, 1).")] = 0.5,
    sg: Annotated[int, typer.Option(help="word2vec/fasttext: 1 skip-gram, 0 CBOW.")] = 1,
    epochs: Annotated[int, typer.Option(help="word2vec/fasttext epochs.")] = 5,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 1,
    workers: Annotated[int, typer.Option(help="Processes / threads.")] = 2,
    evaluate_on: Annotated[
        list[str] | None,
        typer.Option("--evaluate", help="Evaluate the model at once on these suites/benchmarks."),
    ] = None,
    measure_options: Annotated[
        str,
        typer.Option(
            "--measure-options",
            help="Options of the vectors: measure used by --evaluate, e.g. "
            "oov=backoff,fallback=zero for a lemmatized model.",
        ),
    ] = "",
    results: Annotated[
        Path, typer.Option("--results", help="Where --evaluate appends its records.")
    ] = Path("results"),
    data_dir: DataDir = None,
) -> None:
    """Train a similarity model from a corpus into a model folder that `vectors:path=FOLDER`
    reads; the folder's config.json records every setting and the corpus sha256."""
    from rich.progress import Progress

    from simeval.cache import cache_root
    from simeval.errors import InputError
    from simeval.text.tokenize import LANGUAGES
    from simeval.train.models import KINDS, TrainConfig, train
    from simeval.train.prepared import prepare_corpus

    if kind not in KINDS:
        raise InputError(None, None, f"unknown model kind {kind!r}; one of {', '.join(KINDS)}")
    if lang not in LANGUAGES:
        raise InputError(None, None, f"--lang must be one of {', '.join(LANGUAGES)}")
    config = TrainConfig(
        kind=kind,
        lang=lang,
        lemmatize=lemmatize,
        min_count=min_count,
        window=window,
        dim=dim,
        contexts=contexts,
        max_words=max_words,
        alpha=alpha,
        shift=shift,
        power=power,
        sg=sg,
        epochs=epochs,
        seed=seed,
        workers=workers,
    )
    with Progress(console=err, transient=True) as progress:
        task = progress.add_task(f"tokenizing {corpus.name}", total=None)
        prepared = prepare_corpus(
            corpus,
            lang,
            lemmatize,
            cache_root() / "corpora",
            one_per_line=one_per_line,
            progress=lambda n: progress.update(task, completed=n),
        )
        progress.update(task, description=f"training {kind}", completed=0, total=prepared.sentences)
        folder = train(config, prepared, out_dir, progress=lambda n: progress.advance(task, n))
    err.print(
        f"{prepared.documents:,} documents, {prepared.sentences:,} sentences, "
        f"{prepared.tokens:,} tokens -> {folder}",
        highlight=False,
    )
    if evaluate_on:
        from simeval.api import evaluate

        spec = f"vectors:path={folder}" + (f",{measure_options}" if measure_options else "")
        found = evaluate(spec, *evaluate_on, store=_store(data_dir), results_dir=results)
        report(found, False, f"{kind} on {corpus.name}")


@app.command("results")
@guarded
def results_cmd(
    folder: Annotated[Path, typer.Argument(help="A folder holding results.jsonl.")] = Path(
        "results"
    ),
) -> None:
    """One table of the recorded results: a row per benchmark (with its main metric), a
    column per measure (the latest record of each pair wins)."""
    from simeval.api import results_frame

    frame = results_frame(folder)
    latest = frame.drop_duplicates(["measure", "benchmark"], keep="last")
    measures = list(dict.fromkeys(latest["measure"]))
    # long specs (vectors:path=...) become numbered columns with a legend below the table
    labels = [str(m) if len(str(m)) <= 24 else f"[{i}]" for i, m in enumerate(measures, 1)]
    table = Table(title=f"{folder / 'results.jsonl'}: main metric per benchmark")
    table.add_column("benchmark")
    table.add_column("metric")
    for label in labels:
        table.add_column(label, justify="right", no_wrap=True, min_width=6)
    for bench, rows in latest.groupby("benchmark", sort=False):
        by = dict(zip(rows["measure"], rows["score"], strict=True))
        metric = str(rows["main_metric"].iloc[0])
        table.add_row(str(bench), metric, *(_fmt(by[m]) if m in by else "" for m in measures))
    out.print(table)
    for label, m in zip(labels, measures, strict=True):
        if label != m:
            out.print(f"{label} {m}", highlight=False)


# -- reports ----------------------------------------------------------------------------------

ResultsDir = Annotated[
    Path, typer.Argument(help="A folder holding results.jsonl (and items/ beside it).")
]
Replicates = Annotated[
    int, typer.Option("--bootstrap", "-B", min=50, help="Bootstrap replicates (and AR rounds).")
]
Seed = Annotated[int, typer.Option(help="Seed of the resampling: the same seed, the same numbers.")]
Level = Annotated[
    float, typer.Option(min=0.5, max=0.999, help="Confidence level of the intervals.")
]


def _ceilings(data_dir: Path | None) -> dict[str, dict[str, float]]:
    """Agreement ceilings of the benchmarks whose individual ratings are in the data folder."""
    from simeval.build.agreement import RATINGS, agreement, pooled, read_ratings

    out: dict[str, dict[str, float]] = {}
    try:
        store = _store(data_dir)
        for bench, files in RATINGS.items():
            parts = [agreement(f, read_ratings(store.path(f))) for f in files]
            both = pooled(bench, parts)
            out[bench] = {
                "raters, pairwise ρ": both.pairwise,
                "raters, leave-one-out ρ": both.leave_one_out,
            }
    except SimevalError as exc:  # no data folder: the report goes without ceilings
        err.print(f"[yellow]warning:[/] no agreement ceilings: {exc}", highlight=False)
    return out


@build_app.command("linking")
@guarded
def build_linking(
    out_dir: Annotated[Path, typer.Argument(help="Folder to write the benchmark into.")],
    lang: Annotated[str, typer.Option(help="Language of the X side (de, fr, ru, tr, zh).")],
    inputs: Annotated[
        list[str] | None,
        typer.Option(
            "--input",
            help="FORMAT:FILE[,FILE...][@SOURCE], repeatable. Formats: ntrex:IDS,X,EN; "
            "wmt-sgm:X,EN; wmt-xml:FILE; wmt-txt:DOCS,EN,X; marked-lines:X,EN; xquad:X,EN; "
            "wiki-tsv:ARCHIVE,MEMBER. Default: every source staged in xling/ for LANG.",
        ),
    ] = None,
    drop_first: Annotated[
        bool, typer.Option(help="Drop each document's first sentence (BUCC: yes).")
    ] = True,
    iqr: Annotated[
        bool, typer.Option(help="Keep pairs whose length ratio is within the IQR (BUCC: yes).")
    ] = True,
    test_share: Annotated[
        float, typer.Option(help="Share of kept pairs held back as test, per source.")
    ] = 0.5,
    drop_sentences: Annotated[
        float,
        typer.Option(help="Comparability noise: drop each sentence with this probability."),
    ] = 0.0,
    seed: Annotated[int, typer.Option(help="Seed of the noise and the split.")] = 0,
    data_dir: DataDir = None,
) -> None:
    """Build a BUCC 2015-style linking benchmark from linked document pairs: drop first
    sentences, filter by length ratio, split train/test, write queries, English corpus and
    qrels (layout: simeval.data.documents)."""
    from simeval.build.linking import Preparation, prepare
    from simeval.data.docpairs import read_input, xling_pairs
    from simeval.data.documents import write_collection
    from simeval.data.textio import sha256_file

    options = Preparation(drop_first, drop_sentences, iqr, test_share, seed)
    if inputs:
        pairs, data = [], {}
        for spec in inputs:
            found, files = read_input(spec, lang)
            pairs += found
            data.update({str(f): sha256_file(f) for f in files})
    else:
        pairs, data = xling_pairs(lang, _store(data_dir))
    collection = prepare(pairs, lang, options)
    collection.meta["data"] = data
    written = write_collection(collection, out_dir)
    c = collection.meta["counts"]
    out.print(
        f"{c['read']} pairs read, {c['non_empty']} non-empty, {c['kept']} kept "
        f"({c['train']} train, {c['test']} test), {c['corpus']} English documents"
    )
    out.print(f"wrote {', '.join(str(p) for p in written)}")


@app.command("agreement")
@guarded
def agreement_cmd(data_dir: DataDir = None) -> None:
    """Inter-annotator agreement where individual ratings ship with the data (WordSim-353
    set1 and set2): average pairwise Spearman (the SimLex-999 paper's measure: 0.61 for
    WordSim-353) and leave-one-out (each rater against the mean of the others). The report
    draws the pooled values as ceilings."""
    from simeval.build.agreement import RATINGS, agreement, pooled, read_ratings

    store = _store(data_dir)
    table = Table(title="Inter-annotator agreement (Spearman's ρ)")
    for column in ("ratings", "pairs", "raters", "pairwise", "leave-one-out"):
        table.add_column(column, justify="left" if column == "ratings" else "right")
    for bench, files in RATINGS.items():
        parts = [agreement(f, read_ratings(store.path(f))) for f in files]
        for a in [*parts, pooled(f"{bench} (pooled by pairs)", parts)]:
            table.add_row(
                a.name, str(a.items), str(a.raters), _fmt(a.pairwise), _fmt(a.leave_one_out)
            )
    out.print(table)


@app.command("report")
@guarded
def report_cmd(
    folder: ResultsDir = Path("results"),
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
    top: Annotated[int, typer.Option(min=1, help="Systems in each top-N table.")] = 5,
    replicates: Replicates = 1000,
    seed: Seed = 0,
    level: Level = 0.95,
    data_dir: DataDir = None,
) -> None:
    """Write one HTML file over a results folder: the overall leaderboard (dominated systems
    dropped, ranked by the sum of main scores), top-N per benchmark, every metric with its
    bootstrap interval and p-value against the best (Holm), subsets (SimLex-999 POS,
    concreteness quartiles and SimAssoc333; WordSim-353 similarity/relatedness; suite
    members), agreement ceilings, scatter plots and precision-recall curves. Nothing is
    scored again: everything comes from the recorded per-item rows."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from simeval.report.collect import load_grid
    from simeval.report.html import ReportOptions, build_report

    grid = load_grid(folder)
    options = ReportOptions(replicates, seed, level, top, by or (), _ceilings(data_dir))
    bar = Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
    )
    with bar:
        task = bar.add_task("report", total=len(grid.benchmarks))

        def step(bench: str) -> None:  # called as each benchmark starts
            bar.update(task, completed=grid.benchmarks.index(bench), description=bench)

        page = build_report(grid, options, str(folder), step)
    html_out.parent.mkdir(parents=True, exist_ok=True)
    html_out.write_text(page, encoding="utf-8")
    err.print(
        f"wrote {html_out} ({len(page) // 1024} KiB): {len(grid.systems)} systems, "
        f"{len(grid.benchmarks)} benchmarks",
        highlight=False,
    )


@app.command("leaderboard")
@guarded
def leaderboard_cmd(
    folder: ResultsDir = Path("results"),
    fmt: Annotated[
        str, typer.Option("--format", "-f", help="markdown, latex, csv or html.")
    ] = "markdown",
    benchmark: Annotated[
        list[str] | None,
        typer.Option(
            "--benchmark",
            "-b",
            help="Columns of the overall table (default: every benchmark; RUSSE as its four "
            "parts, STS as ALL). Repeatable.",
        ),
    ] = None,
    top: Annotated[
        int, typer.Option(min=0, help="Also print the top N of every benchmark (0: none).")
    ] = 0,
    keep_dominated: Annotated[
        bool, typer.Option(help="Keep systems another beats on every benchmark.")
    ] = False,
) -> None:
    """The overall leaderboard as in RUSSE 2015 Table 5: systems beaten on every benchmark by
    another are dropped, the rest ranked by the sum of their main scores; best per column
    marked. With --top N, the top N per benchmark too (RUSSE Tables 6-9)."""
    from simeval.errors import InputError
    from simeval.report.collect import load_grid
    from simeval.report.html import overall_benchmarks
    from simeval.report.leaderboard import RENDERERS, overall_table, top_table

    if fmt not in RENDERERS:
        raise InputError(None, None, f"--format must be one of {', '.join(RENDERERS)}")
    grid = load_grid(folder)
    columns = benchmark or overall_benchmarks(grid)
    unknown = [b for b in columns if b not in grid.benchmarks]
    if unknown:
        raise InputError(None, None, f"no results for {', '.join(unknown)} in {folder}")
    scores = grid.scores()
    render = RENDERERS[fmt]
    sys.stdout.write(render(overall_table(scores, columns, prune=not keep_dominated)))
    for b in grid.benchmarks if top else []:
        have = {s: v for s, v in scores.items() if b in v}
        sys.stdout.write("\n" + render(top_table(have, b, top, grid.main_metric(b))))


def _p(p: float) -> str:
    if p >= 1e-4:
        return f"{p:.4f}"
    return f"{p:.1e}" if p > 1e-300 else "< 1e-300"


def _p_is(p: float) -> str:
    text = _p(p)
    return text if text.startswith("<") else f"= {text}"


@app.command("compare")
@guarded
def compare_cmd(
    a: Annotated[str, typer.Argument(help="System A: its name (or a unique part of it).")],
    b: Annotated[str, typer.Argument(help="System B.")],
    benchmark: Annotated[str, typer.Option("--benchmark", "-b", help="The benchmark.")],
    folder: Annotated[
        Path, typer.Option("--results", help="The results folder holding both systems.")
    ] = Path("results"),
    replicates: Replicates = 1000,
    seed: Seed = 0,
    level: Level = 0.95,
    alpha: Annotated[float, typer.Option(help="Significance level of the verdict.")] = 0.05,
) -> None:
    """Is A better than B on a benchmark? Prints A − B for every metric with its paired
    bootstrap interval, and the verdict of the test suited to the main metric: Williams' test
    for correlations, approximate randomization for AP, accuracy and MRR, the paired bootstrap
    for other aggregates."""
    from simeval.errors import InputError
    from simeval.report.collect import load_grid
    from simeval.report.compare import compare

    grid = load_grid(folder)
    sa, sb = grid.resolve(a), grid.resolve(b)
    ea, eb = grid.get(sa, benchmark), grid.get(sb, benchmark)
    for system, e in ((sa, ea), (sb, eb)):
        if e is None:
            raise InputError(None, None, f"{system} has no result on {benchmark} in {folder}")
    assert ea is not None and eb is not None
    v = compare(ea, eb, replicates, seed, level)
    table = Table(title=f"{benchmark}: A − B over {v.n} items (A = {sa}; B = {sb})")
    for column in ("metric", "A", "B", "A − B", f"{level:.0%} interval", "p", "test"):
        table.add_column(column, justify="left" if column in ("metric", "test") else "right")
    for name, c in v.metrics.items():
        interval = c.interval
        span = "" if interval is None else f"[{_fmt(interval.low)}, {_fmt(interval.high)}]"
        table.add_row(
            name + (" *" if name == v.main.metric else ""),
            _fmt(c.a),
            _fmt(c.b),
            _fmt(c.difference),
            span,
            _p(c.p_value),
            c.test,
        )
    out.print(table)
    m = v.main
    better = sa if m.difference > 0 else sb
    if m.p_value < alpha:
        verdict = f"{better} is better on {m.metric} ({m.test}, p {_p_is(m.p_value)} < {alpha})"
    else:
        verdict = (
            f"no significant difference on {m.metric} ({m.test}, p {_p_is(m.p_value)} ≥ {alpha})"
        )
    out.print(f"verdict: {verdict}", highlight=False)


def main() -> None:
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
