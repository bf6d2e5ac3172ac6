"""`simeval evaluate`, `predict` and `train`: measures run on benchmarks."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from simeval.api.training import TrainSettings
from simeval.cli.common import (
    DEFAULT_RESULTS,
    SEED_RANGE,
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
    err,
    out,
    plain,
    print_results,
    registry_of,
    said_appended,
    store_of,
    task_options,
)

# -- evaluate and predict ---------------------------------------------------------------------

MeasureArg = Annotated[
    str,
    typer.Argument(
        help="Measure spec: overlap | jaccard | random:seed=1 | orthographic:kind=levenshtein"
        "|prefix|dice | vectors:path=FILE,format=auto,oov=zero|skip|backoff | "
        "encoder:model=NAME_OR_PATH,backend=torch|onnx (default: the offline "
        "all-MiniLM-L6-v2 on torch; onnx: exported once, then run by ONNX Runtime) | "
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
        said_appended(len(found), results, how_to_change=results == DEFAULT_RESULTS)


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


D = TrainSettings()  # the defaults shown by --help are the api's
TYPED = ("COMMANDLINE", "ENVIRONMENT")  # typer's own ParameterSource, compared by name


@app.command("train")
@computing
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
            "3), the shared ones (kind, out, on, exclude, seed, epochs, evaluate, "
            "measure-options, results, data-dir, registry) at the top and each trainer's under "
            "[vectors], [encoder], [combine] or [graph]; a flag given here overrides the file. "
            "An unknown key or a wrong type is an error naming the file and the key.",
        ),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="The model folder to write.", show_default=False)
    ] = None,
    corpus: Annotated[
        Path | None,
        typer.Option(help="A text file, a folder of .txt files or a .tar.xz/.tar.gz."),
    ] = None,
    lang: Annotated[
        str | None, typer.Option(help="ru or en: sentence splitting and tokens.")
    ] = None,
    on: Annotated[
        list[str] | None,
        typer.Option("--on", help="encoder, combine: a benchmark to train on (repeat it)."),
    ] = None,
    exclude: Annotated[
        list[str] | None,
        typer.Option(
            "--exclude",
            help="encoder, combine, graph: leave out every training pair that this benchmark or "
            "suite (graph: or pair file) holds, in either direction (repeat it).",
        ),
    ] = None,
    measure: Annotated[
        list[str] | None,
        typer.Option(
            "--measure", help="combine: a measure spec whose scores are a column (repeat it)."
        ),
    ] = None,
    features: Annotated[
        str,
        typer.Option(
            help="combine: cheap feature groups, comma-separated: length, orthographic, "
            "overlap, pos (Russian words), frequency (needs --frequency); none for none."
        ),
    ] = D.features,
    model: Annotated[
        str, typer.Option(help="combine: linear (ridge / logistic) | boosting.")
    ] = D.model,
    frequency: Annotated[
        Path | None,
        typer.Option(help="combine: a `simeval train` model folder whose vocab.txt ranks words."),
    ] = None,
    cross_fit: Annotated[
        int,
        typer.Option(
            "--cross-fit",
            metavar="K",
            help="combine: fit on out-of-fold scores: each fine-tuned encoder:model=FOLDER "
            "measure is fine-tuned again K times with the settings its simeval-train.json "
            "records, each time without one of K folds of the pairs (drawn by --seed), which "
            "it then scores; scoring still uses FOLDER's encoder. 0: off.",
        ),
    ] = D.cross_fit,
    base: Annotated[
        str, typer.Option(help="encoder: the model to start from (a folder).")
    ] = D.base,
    loss: Annotated[str, typer.Option(help="encoder: cosine | cosent | both.")] = D.loss,
    batch: Annotated[int, typer.Option(help="encoder: pairs per step.")] = D.batch,
    lr: Annotated[float, typer.Option(help="encoder: peak learning rate (AdamW).")] = D.lr,
    relations: Annotated[
        list[Path] | None,
        typer.Option("--relations", help="graph: a CSV with word1,word2,sim (repeat it)."),
    ] = None,
    threshold: Annotated[
        float, typer.Option(help="graph: sim at or above this is a relation.")
    ] = D.threshold,
    learn: Annotated[
        bool, typer.Option(help="graph: also fit the learned scorer (model.json).")
    ] = D.learn,
    vectors: Annotated[
        str | None,
        typer.Option(help="graph --learn: a word-vector model whose cosine is a feature."),
    ] = None,
    folds: Annotated[int, typer.Option(help="graph --learn: cross-fitting folds.")] = D.folds,
    lemmatize: Annotated[
        bool, typer.Option(help="Lemmas instead of word forms (pymorphy3 / simplemma).")
    ] = D.lemmatize,
    one_per_line: Annotated[
        bool, typer.Option(help="Each non-empty line of a file is a document.")
    ] = D.one_per_line,
    min_count: Annotated[int, typer.Option(help="Drop rarer words.")] = D.min_count,
    window: Annotated[int, typer.Option(help="Context window on each side.")] = D.window,
    dim: Annotated[int, typer.Option(help="Dimensions (svd, word2vec, fasttext).")] = D.dim,
    contexts: Annotated[
        int,
        typer.Option(help="Count models: 0 = every word is a context; N = top N non-stop words."),
    ] = D.contexts,
    max_words: Annotated[int, typer.Option(help="Cap the vocabulary (0: no cap).")] = D.max_words,
    alpha: Annotated[float, typer.Option(help="PPMI context smoothing exponent.")] = D.alpha,
    shift: Annotated[float, typer.Option(help="PPMI shift k (log k subtracted).")] = D.shift,
    power: Annotated[float, typer.Option(help="SVD eigenvalue weighting p (0, 0.5, 1).")] = D.power,
    sg: Annotated[int, typer.Option(help="word2vec/fasttext: 1 skip-gram, 0 CBOW.")] = D.sg,
    epochs: Annotated[
        int | None,
        typer.Option(
            help="word2vec/fasttext/encoder epochs (default: 5; encoder: 4).", show_default=False
        ),
    ] = None,
    seed: Annotated[int, typer.Option(**SEED_RANGE, help="Random seed.")] = D.seed,
    workers: Annotated[int, typer.Option(help="Processes / threads.")] = D.workers,
    evaluate: Annotated[
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
    ] = D.measure_options,
    results: ResultsOut = DEFAULT_RESULTS,
    data_dir: DataDir = None,
    registry: RegistryFiles = None,
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
        said_appended(len(trained.results), settings.results,
                      how_to_change=settings.results == DEFAULT_RESULTS)  # fmt: skip
