"""`simeval evaluate`, `predict` and `train`: measures run on benchmarks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.text import Text

from simeval.cli.common import (
    DEFAULT_RESULTS,
    DataDir,
    GoldColumn,
    JsonFlag,
    Kind,
    RegistryFiles,
    app,
    err,
    guarded,
    out,
    prepared_corpus,
    print_results,
    registry_of,
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
        "graph:path=DIR,score=walk|adamic_adar|common|learned,fallback=zero|skip|vectors.",
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
@guarded
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
    registry: RegistryFiles = None,
    results: Annotated[
        Path, typer.Option("--results", help="Folder whose results.jsonl gets every record.")
    ] = DEFAULT_RESULTS,
    save: Annotated[bool, typer.Option(help="Append the records to --results.")] = True,
    data_dir: DataDir = None,
    as_json: JsonFlag = False,
) -> None:
    """Run a measure on benchmarks and suites, score it with the same code as `simeval score`,
    print the table and append the result records to RESULTS/results.jsonl."""
    from simeval.api import evaluate, load_targets
    from simeval.measures import create_measure

    m = create_measure(measure)
    store = store_of(data_dir)
    how = task_options(kind=kind, gold_column=gold_column)
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
            on_target=lambda name: err.print(Text(f"scoring {name}", style="dim")),
        )
    print_results(found, as_json, f"{measure}")
    if save and not as_json:
        err.print(
            Text(f"appended {len(found)} record(s) to {results / 'results.jsonl'}", style="dim")
        )


@app.command("predict")
@guarded
def predict_cmd(
    measure: MeasureArg,
    out_path: Annotated[
        Path,
        typer.Option(
            "--out",
            help="Output: a folder for a suite of several files (STS.output.<dataset>.txt, "
            "<benchmark>.run) or a file (RUSSE test.csv with sim filled in, word1,word2,sim "
            "for a pair benchmark, a BUCC run for one linking benchmark).",
        ),
    ],
    suite: Annotated[
        str,
        typer.Option(
            "--suite", "-s", help="sts12, russe, xling, a benchmark, a registry name or a path."
        ),
    ] = "sts12",
    kind: Kind = None,
    gold_column: GoldColumn = None,
    registry: RegistryFiles = None,
    data_dir: DataDir = None,
) -> None:
    """Write a measure's predictions as the task's official submission files, so it can take
    part in a shared task as a file (score them back with `simeval score`)."""
    from simeval.api import load_target, predict
    from simeval.measures import create_measure

    m = create_measure(measure)
    how = task_options(kind=kind, gold_column=gold_column)
    target = load_target(suite, store_of(data_dir), registry_of(registry), **how)
    with _with_progress(m, f"{m.name}: loading / encoding"):
        written = predict(m, target, out_path)
    out.print(Text(f"wrote {len(written)} file(s): {', '.join(map(str, written))}"))


def _training_benchmarks(
    on: list[str], out_dir: Path, data_dir: Path | None
) -> tuple[Any, list[Any]]:
    """The store and the benchmarks of ``--on``, once ``--on`` and ``--out`` are checked."""
    from simeval.api import load_target
    from simeval.errors import InputError

    if not on:
        raise InputError(None, None, "name the benchmarks to train on with --on (repeat it)")
    if out_dir.exists():
        raise InputError(out_dir, None, "exists: choose a new folder (nothing is overwritten)")
    store = store_of(data_dir)
    return store, [load_target(name, store) for name in on]


def _train_encoder(
    out_dir: Path,
    on: list[str],
    base: str,
    loss: str,
    batch: int,
    lr: float,
    epochs: int,
    seed: int,
    data_dir: Path | None,
    exclude: list[str],
) -> Path:
    """`simeval train encoder` (see :mod:`simeval.train.encoder`)."""
    import time

    from rich.progress import Progress

    from simeval.measures.encoder import DEFAULT_MODEL, default_model_path
    from simeval.train.encoder import EncoderConfig, train_encoder
    from simeval.train.pairs import training_pairs

    store, benchmarks = _training_benchmarks(on, out_dir, data_dir)
    data = training_pairs(benchmarks, exclude=_excluded(exclude, store))
    base_path = default_model_path() if base == DEFAULT_MODEL else Path(base)
    config = EncoderConfig(base, list(on), epochs, batch, lr, loss=loss, seed=seed)
    steps = -(-len(data.a) // batch) * epochs
    done = 0
    started = time.perf_counter()
    with Progress(console=err, transient=True) as progress:
        task = progress.add_task(f"fine-tuning on {len(data.a):,} pairs", total=steps)

        def advance(n: int, value: float) -> None:
            nonlocal done
            done += n
            progress.update(task, advance=n, description=f"fine-tuning, loss {value:.4f}")
            if not err.is_terminal and (done % max(1, steps // 20) == 0 or done == steps):
                # a log file gets a line every 5% instead of the live bar
                spent = time.perf_counter() - started
                err.print(f"step {done}/{steps}  loss {value:.4f}  {spent:.0f} s", highlight=False)

        folder = train_encoder(config, data, out_dir, base_path, advance)
    record = json.loads((folder / "simeval-train.json").read_text(encoding="utf-8"))
    err.print(
        Text(
            f"{len(data.a):,} pairs, {epochs} epochs, {record['seconds']:.0f} s, loss per epoch "
            f"{record['loss_per_epoch']} -> {folder}"
        ),
        highlight=False,
    )
    return folder


def _excluded(names: list[str], store: Any) -> list[Any]:
    """The benchmarks of ``--exclude`` (suites expanded): no pair of theirs is trained on."""
    from simeval.api import load_targets

    found = []
    for target in load_targets(names, store) if names else []:
        found += list(target.members) or [target]
    return found


def _train_combine(
    out_dir: Path,
    on: list[str],
    measures: list[str],
    features: str,
    model: str,
    frequency: Path | None,
    seed: int,
    data_dir: Path | None,
    exclude: list[str],
) -> Path:
    """`simeval train combine` (see :mod:`simeval.train.combine`)."""
    from simeval.kinds import kind
    from simeval.measures import create_measure
    from simeval.train.combine import CombineConfig, train_combination
    from simeval.train.pairs import training_pairs

    store, benchmarks = _training_benchmarks(on, out_dir, data_dir)
    kinds = [kind(b.kind) for b in benchmarks]
    binary = all(k.binary_gold for k in kinds)
    groups = [g.strip() for g in features.split(",") if g.strip() and g.strip() != "none"]
    config = CombineConfig(
        on=list(on),
        measures=list(measures),
        features=groups,
        model=model,
        texts=all(k.text_pairs for k in kinds),
        binary=binary,
        frequency=str(frequency) if frequency else None,
        seed=seed,
    )
    data = training_pairs(benchmarks, binary=binary, exclude=_excluded(exclude, store))
    built = [create_measure(spec) for spec in measures]
    err.print(Text(f"fitting {model} on {len(data.a):,} pairs", style="dim"))
    folder = train_combination(config, data, built, out_dir)
    record = json.loads((folder / "combine.json").read_text(encoding="utf-8"))
    cv = record["cross_validated"]
    err.print(
        Text(
            f"{len(data.a):,} pairs, {record['seconds']:.0f} s, 5-fold {cv['metric']} "
            f"{cv['value']:.4f} -> {folder}"
        ),
        highlight=False,
    )
    return folder


def _exclusion_files(names: list[str], data_dir: Path | None) -> list[Path]:
    """The files whose pairs `train graph` removes: a path as given, or every file a
    benchmark or suite reads (a one-file suite's template, RUSSE's test.csv, included)."""
    from simeval.api import registry_of

    registry, store = registry_of(None), store_of(data_dir)
    out: list[Path] = []
    for name in names:
        if Path(name).is_file():
            out.append(Path(name))
            continue
        registry.check(name)
        files = registry.files(name)
        suite = registry.suites.get(name)
        if suite is not None and suite.template:
            files.append(suite.template)
        out += [store.path(f) for f in dict.fromkeys(files)]
    return out


def _train_graph(
    out_dir: Path,
    relations: list[Path],
    exclude: list[str],
    threshold: float,
    learn: bool,
    vectors: str | None,
    folds: int,
    seed: int,
    data_dir: Path | None,
) -> Path:
    """`simeval train graph` (see :mod:`simeval.train.graph`)."""
    import time

    from simeval.errors import InputError
    from simeval.train import graph as g

    if not relations:
        raise InputError(None, None, "name the relation files with --relations (repeat it)")
    start = time.perf_counter()
    files = _exclusion_files(exclude, data_dir)
    data = g.read_relations(relations, files, threshold)
    folder = g.write_graph(data, out_dir, threshold)
    record = json.loads((folder / g.RECORD).read_text(encoding="utf-8"))
    err.print(
        Text(
            f"{record['related_rows']:,} related, {record['unrelated_rows']:,} unrelated rows; "
            f"{record['excluded_pairs']:,} excluded (pairs of {len(files)} file(s)); "
            f"{record['nodes']:,} words, {record['edges']:,} edges -> {folder}"
        ),
        highlight=False,
    )
    if learn:
        model = g.learn(folder, vectors, folds, seed)
        err.print(
            Text(f"learned from {model['rows']}; cross-fitted AP {model['cross_fitted_ap_step']}"),
            highlight=False,
        )
    err.print(Text(f"{time.perf_counter() - start:.1f} s"), highlight=False)
    return folder


@app.command("train")
@guarded
def train_cmd(
    kind: Annotated[
        str,
        typer.Argument(
            help="ppmi | svd | word2vec | fasttext (from --corpus); encoder (fine-tune a "
            "sentence encoder on the graded benchmarks named by --on); combine (fit a "
            "combination of --measure scores and --features on the benchmarks named by --on); "
            "graph (a relation graph from --relations, the pairs of --exclude removed)",
            show_default=False,
        ),
    ],
    out_dir: Annotated[Path, typer.Option("--out", help="The model folder to write.")],
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
    with_measures: Annotated[
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
    ] = "length,orthographic,overlap",
    model: Annotated[
        str, typer.Option(help="combine: linear (ridge / logistic) | boosting.")
    ] = "linear",
    frequency: Annotated[
        Path | None,
        typer.Option(help="combine: a `simeval train` model folder whose vocab.txt ranks words."),
    ] = None,
    base: Annotated[
        str, typer.Option(help="encoder: the model to start from (a folder).")
    ] = "all-MiniLM-L6-v2",
    loss: Annotated[str, typer.Option(help="encoder: cosine | cosent | both.")] = "cosine",
    batch: Annotated[int, typer.Option(help="encoder: pairs per step.")] = 16,
    lr: Annotated[float, typer.Option(help="encoder: peak learning rate (AdamW).")] = 2e-5,
    relations: Annotated[
        list[Path] | None,
        typer.Option("--relations", help="graph: a CSV with word1,word2,sim (repeat it)."),
    ] = None,
    threshold: Annotated[
        float, typer.Option(help="graph: sim at or above this is a relation.")
    ] = 0.5,
    learn: Annotated[
        bool, typer.Option(help="graph: also fit the learned scorer (model.json).")
    ] = False,
    vectors: Annotated[
        str | None,
        typer.Option(help="graph --learn: a word-vector model whose cosine is a feature."),
    ] = None,
    folds: Annotated[int, typer.Option(help="graph --learn: cross-fitting folds.")] = 10,
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
    epochs: Annotated[
        int, typer.Option(help="word2vec/fasttext/encoder epochs (encoder default: 4).")
    ] = 5,
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
    ] = DEFAULT_RESULTS,
    data_dir: DataDir = None,
) -> None:
    """Train a similarity model into a model folder: from a corpus, one that
    `vectors:path=FOLDER` reads (its config.json records every setting and the corpus sha256);
    `encoder`, a sentence encoder fine-tuned on graded benchmarks that `encoder:model=FOLDER`
    loads (its simeval-train.json records the settings, the data's sha256 and the losses)."""
    from rich.progress import Progress

    from simeval.errors import InputError
    from simeval.text.tokenize import LANGUAGES
    from simeval.train.models import KINDS, TrainConfig, train

    if kind == "graph":
        folder = _train_graph(
            out_dir,
            relations or [],
            exclude or [],
            threshold,
            learn,
            vectors,
            folds,
            seed,
            data_dir,
        )
        if evaluate_on:
            from simeval.api import evaluate

            spec = f"graph:path={folder}" + (f",{measure_options}" if measure_options else "")
            found = evaluate(spec, *evaluate_on, store=store_of(data_dir), results_dir=results)
            print_results(found, False, f"graph {folder.name}")
        return
    if kind in ("encoder", "combine"):
        if kind == "encoder":
            folder = _train_encoder(
                out_dir,
                on or [],
                base,
                loss,
                batch,
                lr,
                epochs if epochs != 5 else 4,
                seed,
                data_dir,
                exclude or [],
            )
            spec = f"encoder:model={folder}"
        else:
            folder = _train_combine(
                out_dir,
                on or [],
                with_measures or [],
                features,
                model,
                frequency,
                seed,
                data_dir,
                exclude or [],
            )
            spec = f"learned:model={folder}"
        if evaluate_on:
            from simeval.api import evaluate

            found = evaluate(spec, *evaluate_on, store=store_of(data_dir), results_dir=results)
            print_results(found, False, f"{kind} from {folder.name}")
        return
    if kind not in KINDS:
        kinds = ", ".join([*KINDS, "encoder", "combine", "graph"])
        raise InputError(None, None, f"unknown model kind {kind!r}; one of {kinds}")
    if corpus is None:
        raise InputError(None, None, f"{kind} is trained from a corpus: give --corpus")
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
        prepared, task = prepared_corpus(progress, corpus, lang, lemmatize, one_per_line)
        progress.update(task, description=f"training {kind}", completed=0, total=prepared.sentences)
        folder = train(config, prepared, out_dir, progress=lambda n: progress.advance(task, n))
    err.print(
        Text(
            f"{prepared.documents:,} documents, {prepared.sentences:,} sentences, "
            f"{prepared.tokens:,} tokens -> {folder}"
        ),
        highlight=False,
    )
    if evaluate_on:
        from simeval.api import evaluate

        spec = f"vectors:path={folder}" + (f",{measure_options}" if measure_options else "")
        found = evaluate(spec, *evaluate_on, store=store_of(data_dir), results_dir=results)
        print_results(found, False, f"{kind} on {corpus.name}")
