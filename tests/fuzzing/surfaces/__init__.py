"""The fuzzed surfaces: every module here defines ``SURFACES``, a list of
:class:`fuzzing.harness.Surface`; :func:`all_surfaces` gathers them in module order."""

from __future__ import annotations

import importlib
import pkgutil

from fuzzing.harness import Surface


def all_surfaces() -> list[Surface]:
    found: list[Surface] = []
    for module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
        found.extend(importlib.import_module(f"{__name__}.{module}").SURFACES)
    return found
