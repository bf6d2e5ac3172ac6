"""The data catalog by name: the data sets behind a data set's, a benchmark's or a suite's
name (``simeval data info``, ``data verify``)."""

from __future__ import annotations

from typing import Any

from simeval.api.targets import registry_of
from simeval.errors import InputError


def catalog_names(name: str, registry: Any = None) -> list[str]:
    """The catalog entries behind ``name``: a data set, or the data sets holding the files a
    benchmark or suite reads (``simlex999`` gives the SimLex-999 data set).

    Raises:
        InputError: ``name`` is neither, with the closest names as a hint.
    """
    import difflib

    from simeval.data.catalog import CATALOG

    if name in CATALOG:
        return [name]
    reg = registry_of(registry)
    if name in reg.names:
        files = set(reg.files(name))
        return [e.name for e in CATALOG.values() if files & {f.path for f in e.files}]
    close = difflib.get_close_matches(name, list(dict.fromkeys([*CATALOG, *reg.names])), n=3)
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    raise InputError(
        None, None, f"unknown data set or benchmark {name!r}{hint} (`simeval data list`)"
    )
