"""``simeval score trec`` without Typer: the command line's lean path.

Scoring a BUCC-size run (750,000 lines) costs about as much as starting the full command line:
importing Typer and rich and building every command's options. So :func:`simeval.cli.main`
first offers the arguments to :func:`answered`, which takes only ``score trec`` with the
options it reads exactly as Typer does (``--qrels``, ``--run``, ``--json``, ``-c/--complete``,
``-M/--max-retrieved``, ``--wide``; ``--opt value`` or ``--opt=value``, each at most once).
It scores through :func:`trec_results`, the function the Typer command calls, and prints
through the same code, so the output is the same byte for byte. Anything else (``--help``,
``--keep``, ``--name``, a value Typer would refuse, an option given twice) is left to Typer,
which says what is wrong. Typer and rich are imported only to print a table, a warning or an
error; JSON without warnings needs neither.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

_VALUES = {
    "--qrels": "qrels",
    "--run": "run",
    "-M": "max_retrieved",
    "--max-retrieved": "max_retrieved",
}
_FLAGS = {"--json": "as_json", "-c": "complete", "--complete": "complete", "--wide": "wide"}


def trec_results(
    qrels: Path, run: Path, *, complete: bool = False, max_retrieved: int | None = None
) -> list[Any]:
    """The results of ``simeval score trec`` (either path): ``run`` scored against ``qrels``."""
    from simeval.api.scoring import score
    from simeval.api.targets import trec_target

    depth = {} if max_retrieved is None else {"max_retrieved": max_retrieved}
    return score(trec_target(qrels), run, complete=complete, **depth)


def options(args: list[str]) -> dict[str, Any] | None:
    """The options of ``score trec ARGS`` when the lean path reads them as Typer would, else
    None (Typer then reads them)."""
    found: dict[str, Any] = {}
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        name, equals, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if name in _FLAGS and not equals:
            key, given = _FLAGS[name], True
        elif name in _VALUES:
            if not equals:
                if not rest:
                    return None
                value = rest.pop(0)
            if not value or value.startswith("-"):
                return None
            key, given = _VALUES[name], value
        else:
            return None
        if key in found:
            return None
        found[key] = given
    if "qrels" not in found or "run" not in found:
        return None
    depth = found.get("max_retrieved")
    if depth is not None:
        from simeval.api.options import MAX_RETRIEVED  # -M's declaration, as Typer reads it
        from simeval.errors import SimevalError

        if not (depth.isascii() and depth.isdigit()):
            return None
        try:
            found["max_retrieved"] = MAX_RETRIEVED.check(int(depth))
        except SimevalError:
            return None
    found["qrels"], found["run"] = Path(found["qrels"]), Path(found["run"])
    return found


def answered(argv: list[str]) -> bool:
    """Run ``simeval ARGV`` here when it is ``score trec`` with options this path reads
    (module docstring); False leaves it to Typer. Exits with status 2 on invalid input, as
    every command does."""
    if argv[:2] != ["score", "trec"]:
        return False
    found = options(argv[2:])
    if found is None:
        return False
    from simeval.errors import SimevalError

    as_json, wide = found.pop("as_json", False), found.pop("wide", False)
    try:
        results = trec_results(found.pop("qrels"), found.pop("run"), **found)
    except (SimevalError, OSError) as exc:
        from simeval.cli.common import say_failure

        say_failure(exc)
        raise SystemExit(2) from None
    if as_json and not any(r.warnings for r in results):
        from simeval.api.records import json_lines

        sys.stdout.write(json_lines(results))
    else:
        from simeval.cli.common import print_results

        print_results(results, as_json, "", wide)
    return True
