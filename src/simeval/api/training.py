"""Train a similarity model into a model folder (``simeval train``): word vectors from a
corpus (ppmi, svd, word2vec, fasttext), a fine-tuned sentence encoder, a learned combination
of measures, or a relation graph; optionally evaluate it at once.

The settings are :class:`TrainSettings`; a TOML file (:func:`read_train_config`) holds the same
settings under the flags' names: the shared ones at the top, each trainer's in its section::

    kind = "combine"
    out = "models/combo"
    on = ["sts12-train-msrpar", "sts12-train-msrvid"]
    seed = 1

    [combine]
    measure = ["overlap", "jaccard"]
    features = "none"

Paths in the file are read as on the command line (relative to the working folder).
"""

from __future__ import annotations

import json
import time
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, get_args, get_origin, get_type_hints

from simeval.api.options import SEED_MAX, checked
from simeval.api.progress import Quiet, Steps
from simeval.errors import InputError
from simeval.results.default_folder import default_folder

VECTOR_KINDS = ("ppmi", "svd", "word2vec", "fasttext")  # trained from a corpus
TRAINERS = ("vectors", "encoder", "combine", "graph")  # the TOML file's sections


def about(help: str, section: str | None = None, **flag: Any) -> dict[str, Any]:
    """The metadata of a :class:`TrainSettings` field: the ``help`` of its flag, the
    ``section`` of a TOML file it goes in (None: the top, shared by every trainer) and how the
    flag shows it (``flag``: Typer's ``metavar``, ``show_default``, ``min``, ``max``). The
    command line's options are made from the fields (:func:`simeval.cli.common.settings_options`),
    so a new setting is one field."""
    return {"help": help, "section": section, "flag": flag}


@dataclass
class TrainSettings:
    """Every setting of ``simeval train`` (the flags' names with ``_`` for ``-``), each with its
    type, default, flag help and TOML section (:func:`about`), in the order ``--help`` lists
    them: the shared ones first, then each trainer's, as a ``--config`` file places them."""

    # shared by every trainer
    kind: str | None = field(  # the command's argument, its help there
        default=None, metadata=about("ppmi | svd | word2vec | fasttext | encoder | combine | graph")
    )
    out: Path | None = field(
        default=None, metadata=about("The model folder to write.", show_default=False)
    )
    on: list[str] = field(
        default_factory=list,
        metadata=about("encoder, combine: a benchmark to train on (repeat it)."),
    )
    exclude: list[str] = field(
        default_factory=list,
        metadata=about(
            "encoder, combine, graph: leave out every training pair that this benchmark or "
            "suite (graph: or pair file) holds, in either direction (repeat it)."
        ),
    )
    seed: int = field(default=1, metadata=about("Random seed.", min=0, max=SEED_MAX))
    epochs: int | None = field(
        default=None,
        metadata=about(
            "word2vec/fasttext/encoder epochs (default: 5; encoder: 4).", show_default=False
        ),
    )
    evaluate: list[str] = field(
        default_factory=list,
        metadata=about("Evaluate the model at once on these suites/benchmarks."),
    )
    measure_options: str = field(
        default="",
        metadata=about(
            "Options of the vectors: measure used by --evaluate, e.g. "
            "oov=backoff,fallback=zero for a lemmatized model."
        ),
    )
    # the next three: the command line's shared --results, --data-dir and --registry
    results: Path = field(
        default_factory=default_folder, metadata=about("Where --evaluate appends records.")
    )
    data_dir: Path | None = field(default=None, metadata=about("The local data mirror."))
    registry: list[Path] = field(default_factory=list, metadata=about("Registry files."))
    # vectors: from a corpus
    corpus: Path | None = field(
        default=None,
        metadata=about("A text file, a folder of .txt files or a .tar.xz/.tar.gz.", "vectors"),
    )
    lang: str | None = field(
        default=None, metadata=about("ru or en: sentence splitting and tokens.", "vectors")
    )
    lemmatize: bool = field(
        default=False,
        metadata=about("Lemmas instead of word forms (pymorphy3 / simplemma).", "vectors"),
    )
    one_per_line: bool = field(
        default=False, metadata=about("Each non-empty line of a file is a document.", "vectors")
    )
    min_count: int = field(default=5, metadata=about("Drop rarer words.", "vectors"))
    window: int = field(default=5, metadata=about("Context window on each side.", "vectors"))
    dim: int = field(
        default=300, metadata=about("Dimensions (svd, word2vec, fasttext).", "vectors")
    )
    contexts: int = field(
        default=0,
        metadata=about(
            "Count models: 0 = every word is a context; N = top N non-stop words.", "vectors"
        ),
    )
    max_words: int = field(default=0, metadata=about("Cap the vocabulary (0: no cap).", "vectors"))
    alpha: float = field(
        default=0.75, metadata=about("PPMI context smoothing exponent.", "vectors")
    )
    shift: float = field(default=1.0, metadata=about("PPMI shift k (log k subtracted).", "vectors"))
    power: float = field(
        default=0.5, metadata=about("SVD eigenvalue weighting p (0, 0.5, 1).", "vectors")
    )
    sg: int = field(default=1, metadata=about("word2vec/fasttext: 1 skip-gram, 0 CBOW.", "vectors"))
    workers: int = field(default=2, metadata=about("Processes / threads.", "vectors"))
    # encoder
    base: str = field(
        default="all-MiniLM-L6-v2",
        metadata=about("encoder: the model to start from (a folder).", "encoder"),
    )
    loss: str = field(
        default="cosine", metadata=about("encoder: cosine | cosent | both.", "encoder")
    )
    batch: int = field(default=16, metadata=about("encoder: pairs per step.", "encoder"))
    lr: float = field(
        default=2e-5, metadata=about("encoder: peak learning rate (AdamW).", "encoder")
    )
    # combine
    measure: list[str] = field(
        default_factory=list,
        metadata=about("combine: a measure spec whose scores are a column (repeat it).", "combine"),
    )
    features: str = field(
        default="length,orthographic,overlap",
        metadata=about(
            "combine: cheap feature groups, comma-separated: length, orthographic, overlap, "
            "pos (Russian words), frequency (needs --frequency); none for none.",
            "combine",
        ),
    )
    model: str = field(
        default="linear",
        metadata=about("combine: linear (ridge / logistic) | boosting.", "combine"),
    )
    frequency: Path | None = field(
        default=None,
        metadata=about(
            "combine: a `simeval train` model folder whose vocab.txt ranks words.", "combine"
        ),
    )
    cross_fit: int = field(
        default=0,
        metadata=about(
            "combine: fit on out-of-fold scores: each fine-tuned encoder:model=FOLDER measure "
            "is fine-tuned again K times with the settings its simeval-train.json records, "
            "each time without one of K folds of the pairs (drawn by --seed), which it then "
            "scores; scoring still uses FOLDER's encoder. 0: off.",
            "combine",
            metavar="K",
        ),
    )
    # graph
    relations: list[Path] = field(
        default_factory=list,
        metadata=about("graph: a CSV with word1,word2,sim (repeat it).", "graph"),
    )
    threshold: float = field(
        default=0.5, metadata=about("graph: sim at or above this is a relation.", "graph")
    )
    learn: bool = field(
        default=False,
        metadata=about("graph: also fit the learned scorer (model.json).", "graph"),
    )
    vectors: str | None = field(
        default=None,
        metadata=about("graph --learn: a word-vector model whose cosine is a feature.", "graph"),
    )
    folds: int = field(default=10, metadata=about("graph --learn: cross-fitting folds.", "graph"))


SETTINGS = {f.name: f for f in fields(TrainSettings)}
TYPES = get_type_hints(TrainSettings)  # name -> its type, e.g. list[Path], int | None
SHARED = tuple(n for n, f in SETTINGS.items() if f.metadata["section"] is None)
SECTIONS = {
    s: tuple(n for n, f in SETTINGS.items() if f.metadata["section"] == s) for s in TRAINERS
}
_WHAT = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}


def setting_type(name: str) -> tuple[type, bool]:
    """(the type of one value, whether the setting is a list of them) of the setting ``name``:
    ``(Path, True)`` for ``list[Path]``, ``(int, False)`` for ``int | None``."""
    hint = TYPES[name]
    if get_origin(hint) is list:
        return get_args(hint)[0], True
    args = [a for a in get_args(hint) if a is not type(None)]
    return (args[0] if args else hint), False


def _checked(file: Path, where: str, key: str, value: Any) -> Any:
    """``value`` as the setting ``key`` takes it, or an error naming the file and the key."""
    want, many = setting_type(key)
    if many:
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return [want(v) for v in value]
        what = "a list of strings"
    elif want is Path:
        if isinstance(value, str):
            return Path(value)
        what = "a string"
    else:
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if want is float and number:
            return float(value)
        if isinstance(value, want) and (want is bool or not isinstance(value, bool)):
            return value
        what = _WHAT[want]
    raise InputError(file, None, f"{where}{key}: expected {what}, got {value!r}")


def read_train_config(path: str | Path) -> dict[str, Any]:
    """The settings in the TOML file ``path``: shared keys at the top, a trainer's keys in
    its section (``[vectors]``, ``[encoder]``, ``[combine]``, ``[graph]``); keys are the
    flags' names (``min-count`` or ``min_count``).

    Returns:
        ``{setting: value}`` of the keys the file sets, checked.

    Raises:
        InputError: the file is not TOML, or a key is unknown, in the wrong place or of the
            wrong type (the message names the file and the key).
    """
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(path, None, f"not TOML: {exc}") from None
    found: dict[str, Any] = {}
    home = {k: s for s, keys in SECTIONS.items() for k in keys}
    for top, value in data.items():
        if top in SECTIONS and isinstance(value, dict):
            for raw, v in value.items():
                key = raw.replace("-", "_")
                if key not in SECTIONS[top]:
                    known = ", ".join(k.replace("_", "-") for k in SECTIONS[top])
                    raise InputError(path, None, f"[{top}] {raw}: unknown key; one of {known}")
                found[key] = _checked(path, f"[{top}] ", key, v)
            continue
        key = top.replace("-", "_")
        if key in home:
            raise InputError(path, None, f"{top}: goes in the [{home[key]}] section")
        if key not in SHARED:
            known = ", ".join(
                [*(k.replace("_", "-") for k in SHARED), *map("[{}]".format, SECTIONS)]
            )
            raise InputError(path, None, f"{top}: unknown key; one of {known}")
        found[key] = _checked(path, "", key, value)
    return found


def train_settings(
    config: str | Path | None = None, given: Mapping[str, Any] | None = None
) -> TrainSettings:
    """The settings of the TOML file ``config`` (when given), overridden by ``given`` (the
    flags typed on the command line)."""
    found = read_train_config(config) if config is not None else {}
    merged = {**found, **(given or {})}
    return TrainSettings(**{k: list(v) if setting_type(k)[1] else v for k, v in merged.items()})


@dataclass
class Trained:
    """What :func:`train` made."""

    folder: Path  # the model folder
    spec: str  # the measure spec that reads it
    record: dict[str, Any]  # the folder's record (settings, data sha256, facts)
    summary: str  # what was trained from how much, in a line or three
    results: list[Any] = field(default_factory=list)  # the --evaluate records


@checked()
def train(settings: TrainSettings, steps: Steps | None = None) -> Trained:
    """Train the model ``settings.kind`` into the new folder ``settings.out``, then evaluate
    it on ``settings.evaluate`` (records appended to ``settings.results``).

    Writes the model folder: ``config.json`` (vectors: every setting and the corpus sha256),
    ``simeval-train.json`` (encoder), ``combine.json`` (combine) or the graph's record.

    Returns:
        The folder, its measure spec, its record, a summary and the evaluation's results.
    """
    steps = steps or Quiet()
    s = settings
    if s.kind is None:
        raise InputError(None, None, "name the model kind (the argument, or kind in --config)")
    if s.out is None:
        raise InputError(None, None, "name the model folder to write with --out")
    check_seed(s.seed)
    if s.kind == "graph":
        trained = _train_graph(s)
    elif s.kind == "encoder":
        trained = _train_encoder(s, steps)
    elif s.kind == "combine":
        trained = _train_combine(s, steps)
    elif s.kind in VECTOR_KINDS:
        trained = _train_vectors(s, steps)
    else:
        kinds = ", ".join([*VECTOR_KINDS, "encoder", "combine", "graph"])
        raise InputError(None, None, f"unknown model kind {s.kind!r}; one of {kinds}")
    if s.evaluate:
        from simeval.api.running import evaluate
        from simeval.data.store import DataStore

        store = DataStore.from_env(s.data_dir)
        trained.results = evaluate(
            trained.spec, *s.evaluate, store=store, results_dir=s.results, registry=s.registry
        )
    return trained


def comma_items(text: str, option: str) -> list[str]:
    """The items of a comma-separated option value, stripped; an empty or blank item (``,,``,
    a trailing comma) is refused, naming the option and the item's place: it is a typo, and
    reading it as nothing would make ``",,,"`` mean ``none`` silently."""
    items = [item.strip() for item in text.split(",")]
    for place, item in enumerate(items, 1):
        if not item:
            raise InputError(
                None,
                None,
                f"{option} {text!r}: item {place} of {len(items)} is empty; expected names "
                "separated by single commas",
            )
    return items


def _with_options(spec: str, options: str) -> str:
    return spec + (f",{options}" if options else "")


def _training_benchmarks(s: TrainSettings) -> tuple[Any, list[Any]]:
    """The store and the benchmarks of ``on``, once ``on`` and ``out`` are checked."""
    from simeval.api.targets import load_target
    from simeval.data.store import DataStore

    if not s.on:
        raise InputError(None, None, "name the benchmarks to train on with --on (repeat it)")
    assert s.out is not None
    if s.out.exists():
        raise InputError(s.out, None, "exists: choose a new folder (nothing is overwritten)")
    store = DataStore.from_env(s.data_dir)
    return store, [load_target(name, store, s.registry) for name in s.on]


def _excluded(s: TrainSettings, store: Any) -> list[Any]:
    """The benchmarks of ``exclude`` (suites expanded): no pair of theirs is trained on."""
    from simeval.api.targets import member_benchmarks

    return member_benchmarks(s.exclude, store, s.registry) if s.exclude else []


def _train_encoder(s: TrainSettings, steps: Steps) -> Trained:
    """A sentence encoder fine-tuned on ``on`` (:mod:`simeval.train.encoder`)."""
    from simeval.measures.encoder import base_model_path
    from simeval.train.encoder import EncoderConfig, train_encoder
    from simeval.train.examples import training_pairs

    store, benchmarks = _training_benchmarks(s)
    data = training_pairs(benchmarks, exclude=_excluded(s, store))
    base_path = base_model_path(s.base)
    epochs = s.epochs or 4
    config = EncoderConfig(s.base, list(s.on), epochs, s.batch, s.lr, loss=s.loss, seed=s.seed)
    steps.start(f"fine-tuning on {len(data.a):,} pairs", -(-len(data.a) // s.batch) * epochs)
    folder = train_encoder(
        config,
        data,
        s.out,
        base_path,
        lambda n, value: steps.advance(n, f"fine-tuning, loss {value:.4f}"),
    )
    record = json.loads((folder / "simeval-train.json").read_text(encoding="utf-8"))
    summary = (
        f"{len(data.a):,} pairs, {epochs} epochs, {record['seconds']:.0f} s, loss per epoch "
        f"{record['loss_per_epoch']} -> {folder}"
    )
    return Trained(folder, f"encoder:model={folder}", record, summary)


def _train_combine(s: TrainSettings, steps: Steps) -> Trained:
    """A learned combination of measures and cheap features (:mod:`simeval.train.combine`)."""
    from simeval.kinds import kind
    from simeval.measures import create_measure
    from simeval.train.combine import CombineConfig, train_combination
    from simeval.train.crossfit import CrossFit
    from simeval.train.examples import training_pairs

    groups = [g for g in comma_items(s.features, "--features") if g != "none"]
    store, benchmarks = _training_benchmarks(s)
    kinds = [kind(b.kind) for b in benchmarks]
    binary = all(k.binary_gold for k in kinds)
    config = CombineConfig(
        on=list(s.on),
        measures=list(s.measure),
        features=groups,
        model=s.model,
        texts=all(k.text_pairs for k in kinds),
        binary=binary,
        frequency=str(s.frequency) if s.frequency else None,
        seed=s.seed,
    )
    data = training_pairs(benchmarks, binary=binary, exclude=_excluded(s, store))
    built = [create_measure(spec) for spec in s.measure]
    plan = CrossFit(s.cross_fit, s.seed) if s.cross_fit else None

    def fold_steps(what: str, total: int) -> Any:
        steps.start(what, total)
        return lambda n, value: steps.advance(n, f"{what}, loss {value:.4f}")

    if plan is None:
        steps.start(f"fitting {s.model} on {len(data.a):,} pairs")
    folder = train_combination(config, data, built, s.out, plan, fold_steps)
    record = json.loads((folder / "combine.json").read_text(encoding="utf-8"))
    cv = record["cross_validated"]
    fitted = f"{s.cross_fit}-fold out-of-fold scores, " if plan else ""
    summary = (
        f"{len(data.a):,} pairs, {fitted}{record['seconds']:.0f} s, 5-fold {cv['metric']} "
        f"{cv['value']:.4f} -> {folder}"
    )
    return Trained(folder, f"learned:model={folder}", record, summary)


def _train_graph(s: TrainSettings) -> Trained:
    """A relation graph from ``relations``, the pairs of ``exclude`` removed, and optionally
    its learned scorer (:mod:`simeval.train.graph`)."""
    from simeval.api.targets import target_files
    from simeval.data.store import DataStore
    from simeval.train import graph as g

    if not s.relations:
        raise InputError(None, None, "name the relation files with --relations (repeat it)")
    assert s.out is not None
    start = time.perf_counter()
    files = target_files(s.exclude, DataStore.from_env(s.data_dir), s.registry)
    data = g.read_relations(s.relations, files, s.threshold)
    folder = g.write_graph(data, s.out, s.threshold)
    record = json.loads((folder / g.RECORD).read_text(encoding="utf-8"))
    lines = [
        f"{record['related_rows']:,} related, {record['unrelated_rows']:,} unrelated rows; "
        f"{record['excluded_pairs']:,} excluded (pairs of {len(files)} file(s)); "
        f"{record['nodes']:,} words, {record['edges']:,} edges -> {folder}"
    ]
    if s.learn:
        model = g.learn(folder, s.vectors, s.folds, s.seed)
        lines.append(
            f"learned from {model['rows']}; cross-fitted AP {model['cross_fitted_ap_step']}"
        )
    lines.append(f"{time.perf_counter() - start:.1f} s")
    spec = _with_options(f"graph:path={folder}", s.measure_options)
    return Trained(folder, spec, record, "\n".join(lines))


def prepared_corpus(
    steps: Steps, corpus: Path, lang: str, lemmatize: bool, one_per_line: bool
) -> Any:
    """The corpus tokenized once into the cache (:func:`simeval.train.prepared.prepare_corpus`),
    reported as the step "tokenizing"."""
    from simeval.cache import cache_root
    from simeval.train.prepared import prepare_corpus

    steps.start(f"tokenizing {corpus.name}")
    return prepare_corpus(
        corpus,
        lang,
        lemmatize,
        cache_root() / "corpora",
        one_per_line=one_per_line,
        progress=steps.update,
    )


def check_seed(seed: int) -> None:
    """Refuse a ``--seed`` outside 0 to 2^32 - 1: numpy's generators take no negative seed and
    scikit-learn's (combine, graph --learn) none of 2^32 or more. The command line declares the
    same range on every ``--seed``; this is the check of a TOML file's and a Python caller's."""
    if not 0 <= seed <= SEED_MAX:
        raise InputError(None, None, f"--seed {seed}: expected 0 to {SEED_MAX}")


def check_lang(lang: str | None) -> str:
    """``lang`` when the tokenizer knows it, else an error naming the choices."""
    from simeval.text.tokenize import LANGUAGES

    if lang not in LANGUAGES:
        raise InputError(None, None, f"--lang must be one of {', '.join(LANGUAGES)}")
    return lang


def _train_vectors(s: TrainSettings, steps: Steps) -> Trained:
    """Word vectors from a corpus (:mod:`simeval.train.models`)."""
    from simeval.train.models import TrainConfig
    from simeval.train.models import train as train_model

    if s.corpus is None:
        raise InputError(None, None, f"{s.kind} is trained from a corpus: give --corpus")
    lang = check_lang(s.lang)
    assert s.kind is not None and s.out is not None
    # the trainer's settings of the same name as ours, as given (TrainConfig's others keep
    # their defaults): a new vectors setting is its field here and there, never a copy
    given = {f.name: getattr(s, f.name) for f in fields(TrainConfig) if f.name in SETTINGS}
    config = TrainConfig(**{**given, "lang": lang, "epochs": s.epochs or 5})
    prepared = prepared_corpus(steps, s.corpus, lang, s.lemmatize, s.one_per_line)
    steps.start(f"training {s.kind}", prepared.sentences)
    folder = train_model(config, prepared, s.out, progress=steps.advance)
    record = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    summary = (
        f"{prepared.documents:,} documents, {prepared.sentences:,} sentences, "
        f"{prepared.tokens:,} tokens -> {folder}"
    )
    return Trained(
        folder, _with_options(f"vectors:path={folder}", s.measure_options), record, summary
    )
