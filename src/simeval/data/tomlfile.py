"""A TOML file read once, whose errors name the file and the line of the table or key at fault.

``tomllib`` gives a line only for syntax errors; a table that parses but says the wrong thing
(an unknown key, a missing file) is found again in the text by its header, ``[table.name]``,
and the key by ``key =`` below it.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simeval.errors import InputError

TABLE = re.compile(r"^\s*\[\[?\s*[\w\"'-][^=]*\]\s*(?:#.*)?$")  # a table's header line


@dataclass(frozen=True, eq=False)
class TomlFile:
    """The text of ``path`` and its parsed document (hashed by identity: one object per read)."""

    path: Path
    text: str
    doc: dict[str, Any]

    @classmethod
    def read(cls, path: Path, what: str = "registry") -> TomlFile:
        """Parse ``path``; a missing or malformed file is an :class:`InputError` naming its
        line. ``what`` names the file in messages (``no such registry file``)."""
        if not path.is_file():
            raise InputError(path, None, f"no such {what} file")
        try:
            text = path.read_text(encoding="utf-8")
            return cls(path, text, tomllib.loads(text))
        except UnicodeDecodeError as exc:
            raise InputError(path, None, f"not a TOML {what}: {exc}") from None
        except tomllib.TOMLDecodeError as exc:
            at = re.search(r"at line (\d+)", str(exc))
            line = int(at.group(1)) if at else None
            raise InputError(path, line, f"not a TOML {what}: {exc}") from None

    def tables(self, table: str) -> dict[str, dict[str, Any]]:
        """The ``[table.NAME]`` tables by name, as copies (a reader pops their keys)."""
        found = self.doc.get(table, {})
        if not isinstance(found, dict):
            raise InputError(self.path, None, f"{table} must hold tables: [{table}.NAME]")
        for name, spec in found.items():
            if not isinstance(spec, dict):
                raise self.error(table, name, f"{table}.{name} must be a table ([{table}.{name}])")
        return {name: dict(spec) for name, spec in found.items()}

    def line(self, table: str, name: str, key: str | None = None) -> int | None:
        """The 1-based line of ``[table.name]``, or of ``key = ...`` in it; None when the table
        is written another way (dotted keys, an inline table)."""
        quoted = rf"(?:{re.escape(name)}|\"{re.escape(name)}\"|'{re.escape(name)}')"
        header = re.compile(rf"^\s*\[\s*{re.escape(table)}\s*\.\s*{quoted}\s*\]")
        assignment = (
            re.compile(rf"^\s*(?:{re.escape(key)}|\"{re.escape(key)}\")\s*=") if key else None
        )
        lines = self.text.splitlines()
        for i, text in enumerate(lines):
            if not header.match(text):
                continue
            if assignment is None:
                return i + 1
            for j in range(i + 1, len(lines)):
                if TABLE.match(lines[j]):
                    break
                if assignment.match(lines[j]):
                    return j + 1
            return i + 1
        return None

    def error(self, table: str, name: str, message: str, key: str | None = None) -> InputError:
        """An :class:`InputError` at ``[table.name]`` (or at its ``key``)."""
        return InputError(self.path, self.line(table, name, key), message)
