"""The benchmark catalog page, generated from the catalog's declarations
(``benchmarks/catalog/*.toml`` and the data sets they read): each benchmark with its kind, its
files (size and sha256) and the data set they come from with its licence; each suite; each
data set with its citation.

``python -m simeval.registry.reference > docs/reference/benchmarks.md`` writes the page; a
test keeps the committed page equal to it."""

from __future__ import annotations

import sys

from simeval.data.catalog import CATALOG, entry_with_file
from simeval.kinds import KINDS
from simeval.registry.lookup import Registry

HEADER = """# Benchmark catalog

Generated from the catalog's declarations by `python -m simeval.registry.reference`; do not
edit by hand. `simeval benchmarks` lists the same names (with those of your own registry
files), and `simeval data info NAME` prints a data set's licence and citation.

A benchmark's files are named by their path under `SIMEVAL_DATA_DIR`, their size in bytes and
the first 12 hex digits of their sha256 (`simeval data verify` checks all 64). Linking
benchmarks are built from their data sets on first use; the files listed are what they read.
"""


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def benchmark_rows(registry: Registry) -> list[str]:
    rows = [
        "| benchmark | kind | what it is | files | data set (licence) |",
        "|---|---|---|---|---|",
    ]
    for name, entry in registry.entries.items():
        files, sources = [], {}
        for path in dict.fromkeys(registry.files(name)):
            found = entry_with_file(path)
            if found is None:
                files.append(f"`{path}`")
                continue
            source, file = found
            files.append(f"`{path}` ({file.size:,} B, `{file.sha256[:12]}`)")
            sources[source.name] = source.licence
        data = "; ".join(f"[{s}](#{s}) ({_cell(lic)})" for s, lic in sources.items())
        rows.append(
            f"| `{name}` | {entry.kind} | {_cell(entry.description)} | {'<br>'.join(files)} "
            f"| {data} |"
        )
    return rows


def kind_rows() -> list[str]:
    """Each task kind a registry file may name (``kind = ...``): what records call it, its
    main metric, and the first sentence of its module's documentation."""
    rows = ["| kind = | records' task | main metric | what it is |", "|---|---|---|---|"]
    for k in KINDS.values():
        if not k.toml:
            continue
        doc = (sys.modules[type(k).__module__].__doc__ or "").strip()
        first = _cell(doc.split(". ")[0].split(":")[0]) if doc else ""
        names = ", ".join(f"`{t}`" for t in k.toml)
        rows.append(f"| {names} | `{k.name}` | `{k.main}` | {first} |")
    return rows


def suite_rows(registry: Registry) -> list[str]:
    rows = ["| suite | combines by | members | what it is |", "|---|---|---|---|"]
    for s in registry.suites.values():
        how = s.aggregate or "a group (members only)"
        members = ", ".join(f"`{m}`" for m in s.members)
        rows.append(f"| `{s.name}` | {how} | {members} | {_cell(s.description)} |")
    return rows


def dataset_sections() -> list[str]:
    out = []
    for entry in CATALOG.values():
        out += [
            f"### {entry.name}",
            "",
            f"**{_cell(entry.title)}.** {_cell(entry.description)}",
            "",
            f"- licence: {_cell(entry.licence)}",
            f"- upstream: <{entry.upstream}>",
            f"- files: {len(entry.files)}, {sum(f.size for f in entry.files):,} bytes",
            "",
            "```text",
            entry.citation.strip(),
            "```",
            "",
        ]
    return out


def markdown_page() -> str:
    registry = Registry.catalog()
    parts = [
        HEADER,
        "## Task kinds",
        "",
        "What `kind = ...` of a registry file's `[benchmark.NAME]` may name; each kind's module",
        "(`src/simeval/kinds/`) documents its files, keys and metrics.",
        "",
        *kind_rows(),
        "",
        "## Benchmarks",
        "",
        *benchmark_rows(registry),
        "",
        "## Suites and groups",
        "",
        *suite_rows(registry),
        "",
        "## Data sets",
        "",
        *dataset_sections(),
    ]
    return "\n".join(parts).rstrip() + "\n"


if __name__ == "__main__":
    print(markdown_page(), end="")
