"""`simeval data …` and `simeval benchmarks`: the catalog and the named benchmarks."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from simeval.cli.common import (
    DataDir,
    RegistryFiles,
    Wide,
    app,
    data_app,
    err,
    guarded,
    out,
    plain,
    print_lines,
    print_tables,
    print_wrapped,
    registry_of,
    store_of,
)
from simeval.errors import InputError
from simeval.report.terminal import Column, TerminalTable

# -- data -------------------------------------------------------------------------------------


@data_app.command("list")
def data_list(wide: Wide = False) -> None:
    """List the catalogued data sets."""
    from simeval.api.catalog import data_sets

    catalog = data_sets()

    columns = [
        Column("name", key=True, name=True),
        Column("files", number=True),
        Column("MB", number=True),
        Column("title", wrap=True),
        Column("licence", wrap=True),
    ]
    rows = [
        [e.name, str(len(e.files)), f"{sum(f.size for f in e.files) / 1e6:.1f}", e.title, e.licence]
        for e in catalog.values()
    ]
    print_tables([(TerminalTable(columns, rows), [])], wide)


@data_app.command("info")
@guarded
def data_info(
    name: Annotated[str, typer.Argument(help="A data set or a benchmark/suite name.")],
    data_dir: DataDir = None,
    registry: RegistryFiles = None,
    wide: Wide = False,
) -> None:
    """Describe a data set (or the data sets behind a benchmark or suite): source, licence,
    citation, files and where they are found."""
    from simeval.api.catalog import catalog_names, data_sets

    catalog = data_sets()

    store = store_of(data_dir)
    reg = registry_of(registry)
    found = catalog_names(name, reg)
    if not found and name in reg.user:  # a benchmark of the user's: no catalogued data set
        files = ", ".join(map(str, reg.files(name)))
        out.print(plain(f"{name} (declared in {reg.user[name].path}): reads {files}"))
    for entry_name in found:
        e = catalog[entry_name]
        out.print(plain(f"{e.title}", style="bold"), plain(f"({e.name})"))
        print_wrapped(e.description, wide)
        out.print()
        for label, text in (("upstream", e.upstream), ("licence", e.licence), ("note", e.note)):
            if text:
                print_lines(f"{label + ':':<10}{text}", wide, " " * 10)
        columns = [
            Column("file", key=True, name=True, tag="f"),
            Column("bytes", number=True),
            Column("sha256"),
            Column("local copy", name=True, tag="c"),
        ]
        rows = []
        for f in e.files:
            local = store.locate(f.path)
            rows.append([f.path, str(f.size), f.sha256[:16] + "…", str(local) if local else "–"])
        print_tables([(TerminalTable(columns, rows), [])], wide)
        out.print(plain("citation:"), highlight=False)
        for line in e.citation.splitlines():
            print_lines(line, wide, "    ")


@data_app.command("fetch")
@guarded
def data_fetch(
    names: Annotated[list[str] | None, typer.Argument(help="Data sets (default: all).")] = None,
    data_dir: DataDir = None,
) -> None:
    """Make data sets available: found in the mirror or cache, else downloaded and verified."""
    from rich.progress import Progress

    from simeval.api.catalog import data_sets

    catalog = data_sets()

    chosen = names or list(catalog)
    with Progress(console=err, transient=True) as progress:
        task = progress.add_task("fetching", total=None)

        def show(path: str, done: int, total: int) -> None:
            progress.update(task, description=path, completed=done, total=total)

        store = store_of(data_dir)
        store.progress = show
        for name in chosen:
            if name not in catalog:
                raise typer.BadParameter(f"unknown data set {name!r}")
            paths = store.fetch(name)
            root = paths[0].parents[len(Path(catalog[name].files[0].path).parts) - 1]
            out.print(plain(f"{name}: {len(paths)} files ready in {root}"))


@data_app.command("verify")
@guarded
def data_verify(
    names: Annotated[list[str] | None, typer.Argument(help="Data sets (default: all).")] = None,
    data_dir: DataDir = None,
) -> None:
    """Check the sha256 of every local file against the catalog; exit 1 if any is wrong or
    missing."""
    from simeval.api.catalog import catalog_names, data_sets

    catalog = data_sets()

    store = store_of(data_dir)
    roots = [str(r) for r in (store.data_dir, store.cache_dir) if r is not None]
    out.print(plain(f"looking in {' and then '.join(roots)}", style="dim"))
    bad = 0
    for name in names or list(catalog):
        if name not in catalog:
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
def benchmarks(registry: RegistryFiles = None, wide: Wide = False) -> None:
    """List the benchmarks and suites: the catalog's and those of --registry files (or
    SIMEVAL_REGISTRY). A registry file is TOML:

    [benchmark.NAME] kind = a task kind (graded, sts, ...: docs/reference/benchmarks.md
    lists them), gold = "FILE" (pairs, STS),
    input = "FILE" (STS), folder = "DIR" (linking: qrels, queries.jsonl, corpus.jsonl),
    column, description, missing; [suite.NAME] members = [...], aggregate =
    "sum"|"sts"|"mean"|"none"; also split, source, views, score_range, exclude, marks,
    subset, format, builder/options and a suite's layout/template, the keys the built-in
    catalog (simeval/registry/catalog/*.toml, the same grammar) uses. Paths are relative to
    the registry file. A path to a pair file, an STS folder or a linking folder also works
    wherever a name does.
    """
    columns = [
        Column("name", key=True, name=True),
        Column("task"),
        Column("description", wrap=True),
    ]
    print_tables([(TerminalTable(columns, registry_of(registry).describe()), [])], wide)
