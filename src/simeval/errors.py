"""Error and warning types.

Every problem found while reading user input is an :class:`InputError` that names the file, the
line (1-based, when there is one) and what was expected. Commands print its message and exit with
status 2; they never show a traceback for bad input.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# the door the user came in by, for the advice messages give: "cli" inside a command
_DOOR: ContextVar[str] = ContextVar("simeval_door", default="python")


@contextmanager
def command_line() -> Iterator[None]:
    """Within it, :func:`option_hint` spells options as the command line's flags (every
    ``simeval`` command runs in it); outside, as Python keyword arguments."""
    token = _DOOR.set("cli")
    try:
        yield
    finally:
        _DOOR.reset(token)


def on_command_line() -> bool:
    """Whether a ``simeval`` command is running (:func:`command_line`): advice then names
    flags, not Python arguments."""
    return _DOOR.get() == "cli"


def option_hint(name: str, *values: str) -> str:
    """How the user sets the option ``name`` to one of ``values``, in the words of their door:
    ``--name a|b`` on the command line, ``name="a"|"b"`` from Python (a message never tells a
    Python caller to type a flag, nor a command-line user to pass an argument)."""
    if on_command_line():
        return f"--{name.replace('_', '-')} {'|'.join(values)}"
    return f"{name}=" + "|".join(f'"{v}"' for v in values)


def did_you_mean(word: str, names: Iterable[str]) -> str:
    """``; did you mean X?`` for the names closest to ``word`` (difflib's), or nothing: the
    one hint of every refusal of an unknown name (a benchmark, a suite member, a registry key,
    a data set, an option, a keyword)."""
    import difflib

    close = difflib.get_close_matches(word, list(dict.fromkeys(names)), n=3)
    return f"; did you mean {' or '.join(close)}?" if close else ""


class SimevalError(Exception):
    """Base class of every error simeval raises on purpose."""


class InputError(SimevalError):
    """A file or argument given by the user is not what the format or task expects."""

    LIMIT = 3000  # characters of message: a long field never floods the terminal

    def __init__(self, path: str | Path | None, line: int | None, message: str) -> None:
        self.path = None if path is None else str(path)
        self.line = line
        if len(message) > self.LIMIT:
            message = message[: self.LIMIT] + f"… ({len(message):,} characters)"
        self.message = message
        super().__init__(self.__str__())

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # pickled as its fields (a scoring process sends it back): not through __init__ again,
        # which would cut a cut message once more
        return _input_error, (type(self), self.path, self.line, self.message)

    def __str__(self) -> str:
        if self.path is None and self.line is None:
            return self.message  # about an argument, not a file
        where = self.path or "<input>"
        if self.line is not None:
            where = f"{where}:{self.line}"
        return f"{where}: {self.message}"


def _input_error(cls: type[InputError], path: str | None, line: int | None, message: str) -> Any:
    error = cls.__new__(cls)
    error.path, error.line, error.message = path, line, message
    SimevalError.__init__(error, str(error))
    return error


class OptionError(InputError):
    """An option given a value it does not take, or a keyword argument a function does not
    have (:mod:`simeval.api.options`); ``option`` names it as Python does."""

    def __init__(self, option: str, message: str) -> None:
        self.option = option
        super().__init__(None, None, message)

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return _option_error, (self.option, self.message)


def _option_error(option: str, message: str) -> Any:
    error = _input_error(OptionError, None, None, message)
    error.option = option
    return error


class Problems:
    """Problems found while reading one file, collected so that one error reports them all
    (up to ``limit``; the rest are counted)."""

    def __init__(self, path: str | Path | None, limit: int = 20) -> None:
        self.path = path
        self.limit = limit
        self.found: list[tuple[int | None, str]] = []
        self.total = 0

    def add(self, line: int | None, message: str) -> None:
        self.total += 1
        if len(self.found) < self.limit:
            self.found.append((line, message))

    def check(self) -> None:
        """Raise one :class:`InputError` for everything found (nothing when all was well)."""
        if not self.found:
            return
        if self.total == 1:
            raise InputError(self.path, *self.found[0])
        shown = "".join(
            f"\n  line {line}: {message}" if line is not None else f"\n  {message}"
            for line, message in self.found
        )
        more = f"\n  (and {self.total - len(self.found)} more)" if self.total > self.limit else ""
        line = self.found[0][0]
        raise InputError(self.path, line, f"{self.total} problems:{shown}{more}")


class DataError(SimevalError):
    """A catalogued data file is missing, corrupted or cannot be fetched."""


@dataclass(frozen=True)
class InputWarning:
    """A problem that does not stop scoring (recorded in the result and printed)."""

    path: str | None
    line: int | None
    message: str

    def __str__(self) -> str:
        if self.path is None and self.line is None:
            return self.message  # about a measure's answers or an argument, not a file
        where = self.path or "<input>"
        if self.line is not None:
            where = f"{where}:{self.line}"
        return f"{where}: {self.message}"


class DefaultPolicyWarning(UserWarning):
    """A default changed a figure: a measure left pairs without a score and the default
    ``missing="zero"`` scored them 0 (Python's warnings show it; pass ``missing=`` to choose)."""
