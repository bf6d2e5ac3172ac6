"""How long api calls report progress: a ``Steps`` object the caller passes (the cli draws it
with rich; a Python user may pass nothing)."""

from __future__ import annotations

from typing import Protocol


class Steps(Protocol):
    """One running step at a time: started with a description and a total (None: unknown),
    then advanced or set."""

    def start(self, description: str, total: int | None = None) -> None: ...

    def advance(self, n: int, description: str | None = None) -> None: ...

    def update(self, completed: int) -> None: ...


class Quiet:
    """Steps that show nothing (the default of every api call)."""

    def start(self, description: str, total: int | None = None) -> None:
        pass

    def advance(self, n: int, description: str | None = None) -> None:
        pass

    def update(self, completed: int) -> None:
        pass
