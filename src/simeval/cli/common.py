"""What every command group shares: the Typer apps, consoles, common options, the error guard
and how results are printed and kept."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import shutil
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from enum import Enum, StrEnum
from pathlib import Path
from typing import Annotated, Any, TypeVar, get_origin, get_type_hints

import typer
from rich.console import Console
from rich.text import Text
from typer.core import TyperArgument, TyperCommand, TyperGroup

from simeval.api.environment import DEFAULT_FOLDER, HOW_TO_CHANGE, RESULTS_ENV
from simeval.api.options import COMPLETE, MAX_RETRIEVED, MISSING, SEED_MAX, Option
from simeval.errors import SimevalError, command_line
from simeval.report.format import number, plain_text, terminal_text
from simeval.report.terminal import SIMPLE, Column, Legend, TerminalTable, cut_line, wrap_note


def plain(value: Any, **how: Any) -> Text:
    """A rich ``Text`` of ``value`` (a name, a path, a message): shown as it is, never as
    markup, its control characters as ``?`` (:func:`simeval.report.format.plain_text`); every
    name the commands print goes through here or through ``terminal_text``."""
    return Text(plain_text(value), **how)


FIRST_COMMANDS = (  # what a user reaches for first; the rest follow in the order registered
    "evaluate",
    "results",
    "report",
    "compare",
    "leaderboard",
    "score",
    "predict",
    "train",
    "benchmarks",
    "data",
)


class Command(TyperCommand):
    """A command whose arguments read as click's convention: ``MEASURE`` when required,
    ``[FOLDER]`` when not (Typer writes ``{measure}`` and ``[folder]``), the same name in the
    help's Arguments section (an argument's own ``metavar`` wins)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if isinstance(param, TyperArgument) and param.metavar is None and param.name:
                param.metavar = param.name.upper()

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if not isinstance(param, TyperArgument):
                pieces += param.get_usage_pieces(ctx)
                continue
            name = str(param.metavar) + ("..." if param.nargs != 1 else "")
            pieces.append(name if param.required else f"[{name}]")
        return pieces


class Group(TyperGroup):
    """The command groups: commands listed by :data:`FIRST_COMMANDS`, then as registered."""

    def list_commands(self, ctx: Any) -> list[str]:
        names = super().list_commands(ctx)
        first = [n for n in FIRST_COMMANDS if n in names]
        return [*first, *(n for n in names if n not in first)]


class Typer(typer.Typer):
    """``typer.Typer`` with simeval's :class:`Group` and every command a :class:`Command`."""

    def __init__(self, **how: Any) -> None:
        super().__init__(cls=how.pop("cls", Group), **how)

    def command(self, *args: Any, **how: Any) -> Any:
        return super().command(*args, cls=how.pop("cls", Command), **how)


app = Typer(
    rich_markup_mode=None,  # plain help (rewrapped to the terminal) and one-line usage errors
    help="The simeval command line: evaluate similarity measures as the shared tasks do."
    "\n\nSee `simeval COMMAND --help`.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
SCHEDULER: dict[str, str | None] = {"spec": None}  # the global --scheduler, for `computing` ones


@app.callback()
def _global_options(
    scheduler: Annotated[
        str | None,
        typer.Option(
            "--scheduler",
            envvar="SIMEVAL_SCHEDULER",
            metavar="SPEC",
            help="Run the partitioned jobs (co-occurrence counting, encoding, linking search, "
            "report bootstraps) on Dask; it goes before the command (simeval --scheduler "
            "SPEC report FOLDER). SPEC: sync (Dask's graphs in this process), processes (a local "
            "cluster, a worker per CPU, started for this command) or tcp://HOST:PORT (a "
            "running Dask scheduler; every worker must see the data and models at the same "
            "paths). Needs simeval[dask]. Counts and bootstraps are identical either way, "
            "embeddings and linking scores equal up to float rounding.",
        ),
    ] = None,
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            is_eager=True,
            callback=lambda shown: _print_version(shown),
            help="Print simeval's version and the git commit it was built from, and exit.",
        ),
    ] = False,
) -> None:
    """The simeval command line: evaluate similarity measures as the shared tasks do."""
    SCHEDULER["spec"] = scheduler


def _print_version(shown: bool) -> None:
    if shown:
        from simeval import __version__
        from simeval.build_info import describe

        print(describe(__version__))
        raise typer.Exit()


data_app = Typer(
    rich_markup_mode=None,  # plain help (rewrapped to the terminal) and one-line usage errors
    help="The data catalog: list, describe, fetch and verify data sets.",
    no_args_is_help=True,
)
score_app = Typer(
    rich_markup_mode=None,  # plain help (rewrapped to the terminal) and one-line usage errors
    help="Score submission files exactly as the official scorers do, with validation.",
    no_args_is_help=True,
)
build_app = Typer(
    rich_markup_mode=None,  # plain help (rewrapped to the terminal) and one-line usage errors
    help="Build benchmark datasets (BUCC 2015-style linking collections, RUSSE 2015-style "
    "negatives); each writes a folder that `simeval evaluate -b FOLDER` reads.",
    no_args_is_help=True,
)
app.add_typer(data_app, name="data")
app.add_typer(score_app, name="score")
app.add_typer(build_app, name="build")

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)
DEFAULT_RESULTS = DEFAULT_FOLDER  # the user's own runs; the README's main job names results/main
F = TypeVar("F", bound=Callable[..., Any])
KEYWORD_ONLY = inspect.Parameter.KEYWORD_ONLY
STATE: dict[str, Any] = {"data_dir": None}

SEED_RANGE: dict[str, int] = {"min": 0, "max": SEED_MAX}  # every --seed: numpy's and sklearn's
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
ResultsOut = Annotated[
    Path,
    typer.Option(
        "--results",
        envvar=RESULTS_ENV,
        show_envvar=True,
        help="Folder whose results.jsonl gets every record (default: your own runs' folder, "
        "apart from the README's main job, which names results/main).",
    ),
]
ResultsIn = Annotated[
    Path,
    typer.Argument(
        envvar=RESULTS_ENV,
        show_envvar=True,
        help="A folder holding results.jsonl and items/ (default: your own runs' folder, "
        "where `evaluate` appends; the README's main job is results/main).",
    ),
]
Wide = Annotated[
    bool,
    typer.Option(
        "--wide",
        help="Print tables whole, long names in full, however wide (default: fitted to the "
        "terminal: long names numbered with a legend, columns that do not fit in a further "
        "table).",
    ),
]
SystemName = Annotated[
    str | None,
    typer.Option("--name", help="The system's name in reports (default: the file's path)."),
]


def typer_option(option: Option, *flags: str, **how: Any) -> Any:
    """The Typer option of a declared option (:mod:`simeval.api.options`): its help, and its
    range as Typer's ``min``/``max`` (a range whose ends are excluded: a callback checking
    through the declaration), so that the command and the API function take the same values.
    ``how``: Typer's other settings (``show_default``, ``metavar``; a ``help`` of its own where
    the command says more than the function)."""
    how.setdefault("help", option.help)
    if option.strict:
        how.setdefault("callback", _checked_by(option))
    elif option.kind in (int, float):
        how.setdefault("min", option.low)
        how.setdefault("max", option.high)
    return typer.Option(*flags, **how)


def _checked_by(option: Option) -> Callable[[Any], Any]:
    """A Typer callback checking the value Typer parsed by the declaration ``option``, a
    refusal being Typer's usage error (a function: Typer reads its signature)."""

    def check(value: Any) -> Any:
        if value is None:
            return value
        try:
            return option.check(value)
        except SimevalError:
            raise typer.BadParameter(f"expected {option.allowed()}, got {value}") from None

    return check


def choices_of(name: str, option: Option, *more: str) -> type[StrEnum]:
    """The Typer choices of a declared option (and the command's ``more`` before them), as the
    StrEnum Typer reads choices from (``mean-rank`` as the member ``mean_rank``)."""
    values = [*more, *option.choices]
    return StrEnum(name, [(v.replace("-", "_"), v) for v in values])  # type: ignore[return-value]


MissingPolicy = choices_of("MissingPolicy", MISSING)


class PairKind(StrEnum):
    graded = "graded"
    related = "related"


Missing = Annotated[
    MissingPolicy | None,
    typer_option(MISSING, "--missing", show_default=False),
]
RegistryFiles = Annotated[
    list[Path] | None,
    typer.Option(
        "--registry",
        metavar="FILE",
        help="A TOML file naming your own benchmarks and suites (repeatable; also "
        "SIMEVAL_REGISTRY, files separated by ':'). See `simeval benchmarks --help`.",
    ),
]
Kind = Annotated[
    PairKind | None,
    typer.Option(
        "--kind",
        help="For a gold pair file: graded (correlations; the default) or related (gold 1/0: "
        "AP, accuracy, ROC AUC).",
        show_default=False,
    ),
]


class DuplicatePolicy(StrEnum):
    error = "error"
    each = "each"
    mean = "mean"
    first = "first"


Duplicates = Annotated[
    DuplicatePolicy | None,
    typer.Option(
        "--duplicates",
        help="For a gold pair file giving a pair twice with different scores: error (the "
        "default), each (every row an item, as published), mean (one item, the rows' mean "
        "gold) or first (one item, the first row's gold). A registry entry says it with "
        "duplicates = ...",
        show_default=False,
    ),
]
GoldColumn = Annotated[
    str | None,
    typer.Option(
        help="For a gold pair file: its score column, a name or 1-based number (default: "
        "sim, score or the third)."
    ),
]
Complete = Annotated[bool, typer_option(COMPLETE, "-c", "--complete")]
MaxRetrieved = Annotated[int | None, typer_option(MAX_RETRIEVED, "-M", "--max-retrieved")]


def with_parameters(
    params: Sequence[inspect.Parameter], into: str = "", collect: Callable[..., Any] = dict
) -> Callable[[F], F]:
    """The command with ``params`` after its own parameters (Typer reads the signature, so
    they are its options, in this order). Their values reach the command as one argument
    ``into`` (``collect(**values)``: a dataclass of them), or, without ``into``, as keywords
    (its ``**kwargs``). So options declared once serve every command that takes them."""
    names = [p.name for p in params]

    def decorate(fn: F) -> F:
        signature = inspect.signature(fn, eval_str=True)  # Typer reads types, not strings
        own = [
            p
            for p in signature.parameters.values()
            if p.name != into and p.kind is not p.VAR_KEYWORD
        ]

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            values = {n: kwargs.pop(n) for n in names if n in kwargs}
            if into:
                kwargs[into] = collect(**values)
            else:
                kwargs.update(values)
            return fn(*args, **kwargs)

        wrapper.__signature__ = signature.replace(parameters=[*own, *params])  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


def settings_options(
    settings: type, skip: Sequence[str] = (), shared: Mapping[str, tuple[Any, Any]] | None = None
) -> list[inspect.Parameter]:
    """The Typer options of a settings dataclass (:class:`simeval.api.training.TrainSettings`),
    one per field in its order but ``skip``: the field's type (a list: a repeatable option,
    None when not given), its default, and its flag's help and display (the field's metadata:
    ``help``, ``flag``; or a field annotated with its Typer option, taken as it is).
    ``shared``: fields the command line declares for several commands (``--results``,
    ``--data-dir``), as (annotation, default)."""
    hints = get_type_hints(settings, include_extras=True)
    defaults = settings()
    params = []
    for f in dataclasses.fields(settings):
        if f.name in skip:
            continue
        if shared and f.name in shared:
            annotation, default = shared[f.name]
        elif get_origin(hints[f.name]) is Annotated:  # a Typer option already
            annotation, default = hints[f.name], getattr(defaults, f.name)
        else:
            hint, default = hints[f.name], getattr(defaults, f.name)
            if get_origin(hint) is list:  # Typer gives None for a list option not given
                hint, default = hint | None, None
            flag = typer.Option(help=f.metadata["help"], **f.metadata["flag"])
            annotation = Annotated[hint, flag]
        params.append(
            inspect.Parameter(f.name, KEYWORD_ONLY, default=default, annotation=annotation)
        )
    return params


def guarded(fn: F) -> F:
    """Turn simeval errors, and a path the system cannot use (an output that is a folder, a
    file where a folder is needed, no permission), into a message and exit status 2. The
    global --scheduler is not looked at: the command computes nothing that runs on Dask."""
    return _guard(fn, engine=False)


def computing(fn: F) -> F:
    """:func:`guarded`, and the global --scheduler (or SIMEVAL_SCHEDULER) serves the command's
    partitioned jobs: checked when the command starts, connected when a job first needs it."""
    return _guard(fn, engine=True)


def _guard(fn: F, engine: bool) -> F:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            with command_line():  # advice names flags, not Python arguments
                if not engine:
                    return fn(*args, **kwargs)
                from simeval.api.environment import scheduler

                with scheduler(SCHEDULER["spec"]):
                    return fn(*args, **kwargs)
        except (SimevalError, OSError) as exc:
            say_failure(exc)
        raise typer.Exit(2) from None

    return wrapper  # type: ignore[return-value]


def say_failure(exc: SimevalError | OSError) -> None:
    """Print ``exc`` as every command's one-line error on standard error (the caller exits
    with status 2)."""
    if isinstance(exc, SimevalError):
        message = str(exc)
    else:
        where = f"{exc.filename}: " if exc.filename else ""
        message = f"{where}{exc.strerror or exc}{_hint(exc)}"
    err.print(f"[bold red]error:[/] {terminal_text(message)}", highlight=False)


def _hint(exc: OSError) -> str:
    """What a path error means for the user's paths: a file where a folder is expected (or
    in the middle of a path), a folder where a file is."""
    path = Path(exc.filename) if exc.filename else None
    if isinstance(exc, FileExistsError) and path is not None and path.is_file():
        return " (a file, where a folder is expected)"
    if isinstance(exc, NotADirectoryError):
        return " (a part of the path is a file, not a folder)"
    if isinstance(exc, IsADirectoryError):
        return " (a folder, where a file is expected)"
    return ""


def store_of(data_dir: Path | None) -> Any:
    """The data store of --data-dir (:func:`simeval.api.environment.data_store`)."""
    from simeval.api.environment import data_store

    return data_store(data_dir)


def registry_of(files: list[Path] | None) -> Any:
    """The default registry with the --registry files added (:func:`simeval.api.registry_of`)."""
    from simeval.api import registry_of as registry

    return registry(list(files or []))


def task_options(**options: Any) -> dict[str, Any]:
    """The options given on the command line (None: the task's default), choices as text."""
    return {k: v.value if isinstance(v, Enum) else v for k, v in options.items() if v is not None}


def terminal_width() -> int:
    """The terminal's width (``COLUMNS`` when set; 80 when there is no terminal)."""
    return shutil.get_terminal_size((80, 24)).columns


def print_tables(tables: Sequence[tuple[TerminalTable, Sequence[str]]], wide: bool = False) -> None:
    """Print tables (:mod:`simeval.report.terminal`), each followed by its notes: fitted to
    the terminal's width, long names numbered (one number per name across the tables), each
    number's legend line under the first part that shows it; with ``wide``, whole."""
    from rich.console import Console

    width = terminal_width()
    legend = Legend()
    for table, notes in tables:
        for part in table.parts(width, wide, legend):
            if part.title:
                print_wrapped(part.title, wide)
            Console(width=10**5 if wide else width).print(part.table)
            for line in legend.lines(width, part.labels):  # the numbers this part shows
                out.print(plain(line), highlight=False)
        for note in notes:
            print_wrapped(note, wide, "dim")


def print_lines(text: str, wide: bool = False, indent: str = "") -> None:
    """A line of text that may hold long words (a URL, a BibTeX field) fitted to the
    terminal's width: broken after a space or a ``/`` where one is near the end, else
    anywhere, the continuations indented by ``indent``; whole with ``wide``."""
    for line in [text] if wide else cut_line(text, terminal_width(), indent):
        out.print(plain(line), highlight=False)


def print_wrapped(text: str, wide: bool = False, style: str = "") -> None:
    """A line of text (a note, a verdict) wrapped between words to the terminal's width, or
    whole with ``wide``."""
    for line in [text] if wide else wrap_note(text, terminal_width()):
        out.print(plain(line, style=style), highlight=False)


def say_warning(text: str) -> None:
    """A warning on standard error, ``warning:`` in yellow, wrapped between words to the
    terminal's width (the continuation lines indented), never read as markup."""
    first, *rest = wrap_note(f"warning: {text}", terminal_width(), "  ")
    line = Text("warning:", style="yellow") + plain(first.removeprefix("warning:"))
    err.print(line, highlight=False)
    for more in rest:
        err.print(plain(more), highlight=False)


def print_results(
    results: Sequence[Any], as_json: bool, title: str = "", wide: bool = False
) -> None:
    """Print results: a table per task kind (or JSON lines), warnings on standard error."""
    from simeval.api.records import CONSTANT_MARK, CONSTANT_NOTE, json_lines, no_information

    seen: set[str] = set()
    for r in results:
        for w in r.warnings:
            if w not in seen:
                seen.add(w)
                say_warning(w)
    if as_json:
        sys.stdout.write(json_lines(results))
        return
    groups: dict[tuple[str, ...], list[Any]] = {}
    for r in results:  # counts (num_q, num_ret, ...) are in --json; the table shows metrics
        names = tuple(m for m in r.metrics if not m.startswith("num_"))
        groups.setdefault(names, []).append(r)
    tables = []
    for metric_names, rows in groups.items():
        columns = [
            Column("benchmark", key=True, name=True),
            *(
                Column(m + (" *" if m == rows[0].main_metric else ""), number=True)
                for m in metric_names
            ),
            Column("scored/gold", number=True),
        ]
        cells = []
        for r in rows:
            cov = r.coverage
            mark = f" {CONSTANT_MARK}" if no_information(r) else ""
            cells.append(
                [
                    r.benchmark,
                    *(
                        number(r.metrics[m]) + (mark if m == r.main_metric else "")
                        for m in metric_names
                    ),
                    f"{cov.get('scored', 0)}/{cov.get('gold', 0)}",
                ]
            )
        tables.append((TerminalTable(columns, cells, title, SIMPLE), []))
    if tables:
        notes = ["* main metric"]
        if any(no_information(r) for r in results):
            notes.insert(0, CONSTANT_NOTE)
        tables[-1] = (tables[-1][0], notes)
    print_tables(tables, wide)


def keep_results(results: Sequence[Any], folder: Path | None, name: str | None) -> None:
    """Name the system and append the records to ``folder`` when asked (:func:`simeval.api.
    keep_results`), saying where."""
    from simeval.api import keep_results as keep

    written = keep(results, folder, name)
    if written is not None:
        said_appended(len(results), written.parent)


def default_used(ctx: typer.Context, name: str) -> bool:
    """Whether the parameter ``name`` took its default: neither typed nor set by its
    environment variable (even a value equal to the default, once typed, is the user's
    choice). Typer's own ParameterSource (it vendors click) is compared by name."""
    return getattr(ctx.get_parameter_source(name), "name", "DEFAULT") == "DEFAULT"


def said_appended(count: int, folder: Path, how_to_change: bool = False) -> None:
    """Say on standard error how many records went to which results folder
    (``how_to_change``: and how to send them elsewhere, when the default folder took them)."""
    hint = f" ({HOW_TO_CHANGE})" if how_to_change else ""
    err.print(plain(f"appended {count} record(s) to {folder}{hint}", style="dim"))


class RichSteps:
    """The api's progress steps (:class:`simeval.api.progress.Steps`) as one rich progress
    line on standard error (``columns``: rich's, else its default ones); ``log_lines``: when
    standard error is not a terminal (a log file), also a line every 5% of a step with a
    known total. Descriptions are shown as text, never as markup."""

    def __init__(self, log_lines: bool = False, columns: Sequence[Any] = ()) -> None:
        from rich.progress import Progress

        self.bar = Progress(*columns, console=err, transient=True)
        self.log_lines = log_lines
        self.task: Any = None
        self.total: int | None = None
        self.done = 0
        self.started = 0.0

    def __enter__(self) -> RichSteps:
        self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.stop()

    def start(self, description: str, total: int | None = None) -> None:
        if self.task is None:
            self.task = self.bar.add_task(terminal_text(description), total=total)
        else:
            self.bar.update(
                self.task, description=terminal_text(description), completed=0, total=total
            )
        self.total, self.done, self.started = total, 0, time.perf_counter()

    def advance(self, n: int, description: str | None = None) -> None:
        self.done += n
        if description is None:
            self.bar.advance(self.task, n)
        else:
            self.bar.update(self.task, advance=n, description=terminal_text(description))
        total = self.total or 0
        due = self.done % max(1, total // 20) == 0 or self.done == total
        if self.log_lines and total and due and not err.is_terminal:  # a log: a line every 5%
            spent = time.perf_counter() - self.started
            what = f"  {description}" if description else ""
            err.print(f"step {self.done}/{total}{what}  {spent:.0f} s", highlight=False)

    def update(self, completed: int) -> None:
        self.done = completed
        self.bar.update(self.task, completed=completed)
