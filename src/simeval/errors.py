"""Error and warning types.

Every problem found while reading user input is an :class:`InputError` that names the file, the
line (1-based, when there is one) and what was expected. Commands print its message and exit with
status 2; they never show a traceback for bad input.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


class SimevalError(Exception):
    """Base class of every error simeval raises on purpose."""


class InputError(SimevalError):
    """A file or argument given by the user is not what the format or task expects."""

    def __init__(self, path: str | Path | None, line: int | None, message: str) -> None:
        self.path = None if path is None else str(path)
        self.line = line
        self.message = message
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = self.path or "<input>"
        if self.line is not None:
            where = f"{where}:{self.line}"
        return f"{where}: {self.message}"


class DataError(SimevalError):
    """A catalogued data file is missing, corrupted or cannot be fetched."""


@dataclass(frozen=True)
class InputWarning:
    """A problem that does not stop scoring (recorded in the result and printed)."""

    path: str | None
    line: int | None
    message: str

    def __str__(self) -> str:
        where = self.path or "<input>"
        if self.line is not None:
            where = f"{where}:{self.line}"
        return f"{where}: {self.message}"
