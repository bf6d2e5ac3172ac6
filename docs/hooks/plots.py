"""mkdocs hook: the report's charts on the docs' pages, drawn at every build.

Three cheap measures (``random:seed=1``, ``overlap``, ``orthographic:kind=prefix``) are
evaluated on RUSSE and RG-65 from the real data (``SIMEVAL_DATA_DIR``; a few seconds, no
model), and the HTML report's own code (:class:`simeval.report.html.ReportBuilder`) draws its
figures from those results as SVG. They join the site as ``tutorials/img/<name>.svg``: they
live in the built site only, never in ``docs/``, so a chart can not fall behind the code.

The figures are drawn in ``on_config``, before mkdocs cleans the site folder: a build that
cannot read the data stops with one line (mkdocs prints a ``PluginError`` without a
traceback) and leaves the site built earlier as it was.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

MEASURES = ["random:seed=1", "overlap", "orthographic:kind=prefix"]
BENCHMARKS = ["russe", "rg65"]
SECTIONS = ["russe", "russe-rt", "rg65"]  # the report sections whose figures the pages show
FOLDER = "tutorials/img"
REPLICATES = 100  # the whiskers' bootstrap; the report's default 1000 only narrows them

log = logging.getLogger("mkdocs.hooks.plots")
drawn: dict[str, bytes] = {}  # this build's figures, from on_config to on_files


def figures() -> dict[str, bytes]:
    """name → SVG: every figure of the report's sections in :data:`SECTIONS`."""
    import simeval
    from simeval.errors import SimevalError
    from simeval.metrics.stats import Resampling
    from simeval.report.collect import entry_of, grid_of
    from simeval.report.html import ReportBuilder, ReportOptions

    try:
        results = [r for m in MEASURES for r in simeval.evaluate(m, *BENCHMARKS)]
    except SimevalError as exc:  # no data (missing, not downloadable, corrupt): say where
        raise PluginError(f"docs/hooks/plots.py: {where_data_is()}: {exc}") from None
    grid = grid_of([entry_of(r) for r in results])
    options = ReportOptions(Resampling(REPLICATES), figure_format="svg")
    builder = ReportBuilder(grid, options)
    for bench in SECTIONS:
        builder.section(bench)
    return builder.figures


def where_data_is() -> str:
    """Where the charts' data was looked for, for the error line."""
    chosen = os.environ.get("SIMEVAL_DATA_DIR")
    if chosen:
        return f"the charts evaluate on {' and '.join(BENCHMARKS)} from SIMEVAL_DATA_DIR={chosen}"
    return (
        f"the charts evaluate on {' and '.join(BENCHMARKS)}, and SIMEVAL_DATA_DIR is not set "
        "(set it to the data folder, e.g. ../shared/data)"
    )


def on_config(config: Any) -> Any:
    """Draw the figures now, before mkdocs cleans the site folder (see the module docstring)."""
    drawn.clear()
    drawn.update(figures())
    return config


def on_files(files: Files, config: Any) -> Files:
    for name, svg in drawn.items():
        files.append(File.generated(config, f"{FOLDER}/{name}.svg", content=svg))
        log.debug("plots: %s/%s.svg (%d bytes)", FOLDER, name, len(svg))
    return files
