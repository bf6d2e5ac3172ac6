"""`simeval evaluate`, `predict` and `train`: measures run on benchmarks."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from simeval.api.training import SHARED, TRAINERS, TrainSettings
from simeval.cli.common import (
    DEFAULT_RESULTS,
    DataDir,
    Duplicates,
    GoldColumn,
    JsonFlag,
    Kind,
    MissingPolicy,
    RegistryFiles,
    ResultsOut,
    RichSteps,
    Wide,
    app,
    computing,
    default_used,
    err,
    out,
    plain,
    print_results,
    registry_of,
    said_appended,
    settings_options,
    store_of,
    task_options,
    with_parameters,
)

# -- evaluate and predict ---------------------------------------------------------------------

MeasureArg = Annotated[
    str,
    typer.Argument(
        help="Measure spec: overlap | jaccard | random:seed=1 | orthographic:kind=levenshtein"
        "|prefix|dice | vectors:path=FILE,format=auto,oov=zero|skip|backoff | "
        "encoder:model=NAME_OR_PATH,backend=torch|onnx (default: the offline "
        "all-MiniLM-L6-v2 on onnx: exported once, then run by ONNX Runtime; a model folder "
        "on torch) | "
        "graph:path=DIR,score=walk|adamic_adar|common|learned,fallback=zero|skip|vectors"
        "|learned (learned=FOLDER of `simeval train combine` scores the pairs the graph "
        "does not connect).",
        show_default=False,
    ),
]


class _LazyProgress:
    """A progress bar that appears only once the measure reports progress (a vector scan,
    an encoding run), so measures that load nothing show no empty bar."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.bar: Any = None
        self.task: Any = None

    def update(self, done: int, total: int) -> None:
        if self.bar is None:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

            self.bar = Progress(
                "[progress.description]{task.description}",
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=err,
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task(self.label, total=total)
        self.bar.update(self.task, completed=done, total=total)

    def __enter__(self) -> _LazyProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


def _with_progress(measure: Any, label: str) -> _LazyProgress:
    """Attach a progress bar to a measure's long steps (vector scan, encoding)."""
    progress = _LazyProgress(label)
    if hasattr(measure, "progress"):
        measure.progress = progress.update
    return progress


@app.command("evaluate")
@computing
def evaluate_cmd(
    ctx: typer.Context,
    measure: MeasureArg,
    benchmark: Annotated[
        list[str] | None,
        typer.Option(
            "--benchmark",
            "-b",
            help="A benchmark (repeatable; see `simeval benchmarks`), a name from --registry, "
            "or a path: a gold pair file, an STS folder, a linking folder or a folder built by "
            "`simeval build negatives`.",
        ),
    ] = None,
    suite: Annotated[
        list[str] | None,
        typer.Option(
            "--suite",
            "-s",
            help="russe, sts12, xling (de/fr/ru/tr/zh-en document linking), xling-hard (the "
            "same, each side a different half of the pair's sentences), the group words "
            "(simlex999, wordsim353, rg65, mc30), or a registry suite; repeatable.",
        ),
    ] = None,
    kind: Kind = None,
    gold_column: GoldColumn = None,
    duplicates: Duplicates = None,
    missing: Annotated[
        MissingPolicy | None,
        typer.Option(
            "--missing",
            help="What a gold pair the measure cannot score gets: zero (RUSSE's rule), skip "
            "(evaluate the scored pairs only) or error (default: the measure's, zero unless "
            "its spec says otherwise, e.g. vectors:oov=skip).",
            show_default=False,
        ),
    ] = None,
    registry: RegistryFiles = None,
    results: ResultsOut = DEFAULT_RESULTS,
    save: Annotated[bool, typer.Option(help="Append the records to --results.")] = True,
    data_dir: DataDir = None,
    as_json: JsonFlag = False,
    wide: Wide = False,
) -> None:
    """Run a measure on benchmarks and suites, score it with the same code as `simeval score`,
    print the table and append the result records to RESULTS/results.jsonl."""
    from simeval.api import evaluate, load_targets, measure_of

    m = measure_of(measure)
    store = store_of(data_dir)
    how = task_options(kind=kind, gold_column=gold_column, duplicates=duplicates)
    targets = load_targets(
        [*(suite or []), *(benchmark or [])], store, registry_of(registry), **how
    )
    progress = _with_progress(m, f"{m.name}: loading / encoding")
    with progress:
        found = evaluate(
            m,
            *targets,
            store=store,
            results_dir=results if save else None,
            on_target=lambda name: err.print(plain(f"scoring {name}", style="dim")),
            **task_options(missing=missing),
        )
    print_results(found, as_json, f"{measure}", wide)
    if save:
        said_appended(len(found), results, how_to_change=default_used(ctx, "results"))


@app.command("predict")
@computing
def predict_cmd(
    measure: MeasureArg,
    out_path: Annotated[
        str,  # as typed: a trailing / says a folder (a Path would drop it)
        typer.Option(
            "--out",
            metavar="<path>",
            help="Output: a folder for a suite of several files (STS.output.<dataset>.txt, "
            "<benchmark>.run) or a file (RUSSE test.csv with sim filled in, word1,word2,sim "
            "for a pair benchmark, a BUCC run for one linking benchmark).",
        ),
    ],
    suite: Annotated[
        str,
        typer.Option(
            "--suite",
            "-s",
            "--benchmark",
            "-b",
            help="What to predict (one; -b and -s are the same option here): a suite (sts12, "
            "russe, xling), a benchmark, a registry name, or a path, as `evaluate -b` takes "
            "one: a gold pair file, an STS folder, a linking folder.",
        ),
    ] = "sts12",
    kind: Kind = None,
    gold_column: GoldColumn = None,
    duplicates: Duplicates = None,
    registry: RegistryFiles = None,
    data_dir: DataDir = None,
) -> None:
    """Write a measure's predictions as the task's official submission files, so it can take
    part in a shared task as a file (score them back with `simeval score`)."""
    from simeval.api import load_target, measure_of, predict

    m = measure_of(measure)
    how = task_options(kind=kind, gold_column=gold_column, duplicates=duplicates)
    target = load_target(suite, store_of(data_dir), registry_of(registry), **how)
    with _with_progress(m, f"{m.name}: loading / encoding"):
        written = predict(m, target, out_path)
    out.print(plain(f"wrote {len(written)} file(s): {', '.join(map(str, written))}"))


SECTIONS = [f"[{s}]" for s in TRAINERS]
TYPED = ("COMMANDLINE", "ENVIRONMENT")  # typer's own ParameterSource, compared by name
SETTINGS = settings_options(  # every setting but kind (the argument) is an option
    TrainSettings,
    skip=("kind",),
    shared={
        "results": (ResultsOut, DEFAULT_RESULTS),
        "data_dir": (DataDir, None),
        "registry": (RegistryFiles, None),
    },
)


@app.command("train")
@computing
@with_parameters(SETTINGS)
def train_cmd(
    ctx: typer.Context,
    kind: Annotated[
        str | None,
        typer.Argument(
            help="ppmi | svd | word2vec | fasttext (from --corpus); encoder (fine-tune a "
            "sentence encoder on the graded benchmarks named by --on); combine (fit a "
            "combination of --measure scores and --features on the benchmarks named by --on); "
            "graph (a relation graph from --relations, the pairs of --exclude removed). May "
            "be given in --config instead.",
            show_default=False,
        ),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            metavar="FILE.toml",
            help="Read the settings from a TOML file: the flags' names as keys (min-count = "
            f"3), the shared ones ({', '.join(n.replace('_', '-') for n in SHARED)}) at the top "
            f"and each trainer's under {', '.join(SECTIONS[:-1])} or {SECTIONS[-1]}; a flag "
            "given here overrides the file. An unknown key or a wrong type is an error naming "
            "the file and the key.",
        ),
    ] = None,
    **settings: Any,  # the options of SETTINGS, read from ctx (which of them were typed)
) -> None:
    """Train a similarity model into a model folder: from a corpus, one that
    `vectors:path=FOLDER` reads (its config.json records every setting and the corpus sha256);
    `encoder`, a sentence encoder fine-tuned on graded benchmarks that `encoder:model=FOLDER`
    loads (its simeval-train.json records the settings, the data's sha256 and the losses).
    Settings may come from a TOML file (--config), the flags overriding it."""
    from simeval.api.training import train, train_settings

    given = {  # typed flags (and environment variables) override the file; defaults do not
        name: value
        for name, value in ctx.params.items()
        if name != "config" and getattr(ctx.get_parameter_source(name), "name", "") in TYPED
    }
    settings = train_settings(config, given)
    with RichSteps(log_lines=settings.kind == "encoder" or settings.cross_fit > 0) as steps:
        trained = train(settings, steps)
    err.print(plain(trained.summary), highlight=False)
    if trained.results:
        if settings.kind == "graph":
            title = f"graph {trained.folder.name}"
        elif settings.kind in ("encoder", "combine"):
            title = f"{settings.kind} from {trained.folder.name}"
        else:
            title = f"{settings.kind} on {Path(str(settings.corpus)).name}"
        print_results(trained.results, False, title)
        chosen = "results" in given or settings.results != DEFAULT_RESULTS  # or by --config
        said_appended(len(trained.results), settings.results, how_to_change=not chosen)
