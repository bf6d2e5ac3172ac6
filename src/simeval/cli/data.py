"""`simeval data …` and `simeval benchmarks`: the catalog and the named benchmarks."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from simeval.cli.common import (
    DataDir,
    RegistryFiles,
    app,
    data_app,
    err,
    guarded,
    out,
    plain,
    registry_of,
    store_of,
)
from simeval.errors import InputError

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
def data_info(
    name: Annotated[str, typer.Argument(help="A data set or a benchmark/suite name.")],
    data_dir: DataDir = None,
) -> None:
    """Describe a data set (or the data sets behind a benchmark or suite): source, licence,
    citation, files and where they are found."""
    from simeval.api.catalog import catalog_names
    from simeval.data.catalog import CATALOG

    store = store_of(data_dir)
    for entry_name in catalog_names(name):
        e = CATALOG[entry_name]
        out.print(plain(f"{e.title}", style="bold"), plain(f"({e.name})\n{e.description}\n"))
        out.print(plain(f"upstream: {e.upstream}\nlicence:  {e.licence}"))
        if e.note:
            out.print(plain(f"note:     {e.note}"))
        table = Table()
        for c in ("file", "bytes", "sha256", "local copy"):
            table.add_column(c)
        for f in e.files:
            local = store.locate(f.path)
            table.add_row(
                f.path, str(f.size), f.sha256[:16] + "…", plain(str(local)) if local else "–"
            )
        out.print(table)
        out.print(plain("citation:\n" + e.citation), highlight=False)


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

        store = store_of(data_dir)
        store.progress = show
        for name in chosen:
            if name not in CATALOG:
                raise typer.BadParameter(f"unknown data set {name!r}")
            paths = store.fetch(name)
            root = paths[0].parents[len(Path(CATALOG[name].files[0].path).parts) - 1]
            out.print(plain(f"{name}: {len(paths)} files ready in {root}"))


@data_app.command("verify")
@guarded
def data_verify(
    names: Annotated[list[str] | None, typer.Argument(help="Data sets (default: all).")] = None,
    data_dir: DataDir = None,
) -> None:
    """Check the sha256 of every local file against the catalog; exit 1 if any is wrong or
    missing."""
    from simeval.api.catalog import catalog_names
    from simeval.data.catalog import CATALOG

    store = store_of(data_dir)
    roots = [str(r) for r in (store.data_dir, store.cache_dir) if r is not None]
    out.print(plain(f"looking in {' and then '.join(roots)}", style="dim"))
    bad = 0
    for name in names or list(CATALOG):
        if name not in CATALOG:
            catalog_names(name)  # a did-you-mean error
            raise InputError(None, None, f"{name} is a benchmark: name its data sets")
        statuses = store.verify(name)
        ok = sum(s == "ok" for _, s in statuses)
        out.print(plain(f"{name}: {ok}/{len(statuses)} files ok"))
        for path, status in statuses:
            if status != "ok":
                bad += 1
                out.print(plain(f"  {path}: {status}", style="red"), highlight=False)
    if bad:
        raise typer.Exit(1)


@app.command("benchmarks")
@guarded
def benchmarks(registry: RegistryFiles = None) -> None:
    """List the benchmarks and suites: the catalog's and those of --registry files (or
    SIMEVAL_REGISTRY). A registry file is TOML:

    [benchmark.NAME] kind = "graded"|"related"|"sts"|"linking", gold = "FILE" (pairs, STS),
    input = "FILE" (STS), folder = "DIR" (linking: qrels, queries.jsonl, corpus.jsonl),
    column, description, missing; [suite.NAME] members = [...], aggregate =
    "sum"|"sts"|"mean"|"none"; also split, source, views, score_range, exclude, marks,
    subset, format, builder/options and a suite's layout/template, the keys the built-in
    catalog (simeval/registry/catalog/*.toml, the same grammar) uses. Paths are relative to
    the registry file. A path to a pair file, an STS folder or a linking folder also works
    wherever a name does.
    """
    table = Table()
    for c in ("name", "task", "description"):
        table.add_column(c)
    for row in registry_of(registry).describe():
        table.add_row(*map(plain, row))
    out.print(table)
