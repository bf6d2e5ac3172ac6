"""The shared-task server's fuzzed surfaces' own registry (:mod:`fuzzing.surfaces.campaign`,
:mod:`fuzzing.surfaces.upload`): word pairs and STS pairs whose gold is written here, so an
accepted upload's number is checked against scipy over this gold; and a TOML writer for the
campaign files those surfaces draw.

- ``lab-a``, ``lab-b``, ``lab-c`` (sharing two pairs with ``lab-a``), ``lab-base`` and
  ``lab-hidden`` (the first campaign's, visible and hidden): word pairs;
- ``lab-sts``, ``lab-sts2``: STS sets, and ``lab-suite`` of both (a zip per run);
  ``lab-sts3``, whose gold leaves one pair unscored (for a hidden phase).
"""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

Pairs = list[tuple[str, str, float]]


def pairs(text: str) -> Pairs:
    """Word pairs written ``a b score`` and separated by commas."""
    rows = [row.split() for row in text.split(",")]
    return [(a, b, float(s)) for a, b, s in rows]


def sentences(text: str) -> Pairs:
    """Sentence pairs written ``a | b | score`` and separated by semicolons."""
    rows = [[part.strip() for part in row.split("|")] for row in text.split(";")]
    return [(a, b, float(s)) for a, b, s in rows]


LAB_A = pairs("cat dog 7.5, car auto 9, sun moon 4, tree forest 6, king queen 8, ice fire 1, "
              "city town 7, bread milk 3")  # fmt: skip
LAB_B = pairs("run walk 6.5, eat drink 5, sing dance 4.5, give take 3, buy sell 5.5, "
              "sleep wake 2, write read 6")  # fmt: skip
LAB_C = pairs("cat dog 7, ice fire 2, pen pencil 8.5, lake sea 6, chair table 5, gold silver 7.5")
LAB_BASE = pairs("red blue 5, hot cold 2, up down 3, big large 9, fast quick 8.5, old young 1.5")
LAB_HIDDEN = pairs("apple pear 7, rose tulip 6.5, oak pine 6, wolf fox 5.5, salt sugar 3, "
                   "coal wood 4")  # fmt: skip
STS = sentences(
    "A cat sat on the mat. | A dog sat on the mat. | 3.2; The sun is bright. | The moon is "
    "bright. | 2.0; He drives a red car. | He drives a blue car. | 3.6; Hello there, friend. | "
    "Hi there, friend. | 4.8; A big house stands here. | A small house stands here. | 2.4; "
    "One two three. | Four five six. | 0.2"
)
STS2 = sentences(
    "Rain falls in spring. | Snow falls in winter. | 1.8; Birds fly south. | Geese fly south. | "
    "4.0; The shop is closed. | The store is shut. | 4.9; She reads a book. | She writes a "
    "letter. | 1.2; The river is wide. | The river is broad. | 4.6"
)

STS3 = sentences(  # its third pair has no gold score (a blank gold line): it is not evaluated
    "The train is late. | The bus is late. | 3.1; A man plays a guitar. | A man plays a violin. "
    "| 2.9; Nobody knows. | Who knows? | nan; The soup is hot. | The soup is cold. | 1.1; "
    "Kids run outside. | Children run outside. | 4.7; The lamp is on. | The light is on. | 4.2"
)


GRADED = {"lab-a": LAB_A, "lab-b": LAB_B, "lab-c": LAB_C, "lab-base": LAB_BASE,
          "lab-hidden": LAB_HIDDEN}  # fmt: skip
STS_SETS = {"lab-sts": ("lab", STS), "lab-sts2": ("lab2", STS2), "lab-sts3": ("lab3", STS3)}


def _sts_entry(name: str, dataset: str) -> str:
    files = f'input = "STS.input.{dataset}.txt"\ngold = "STS.gs.{dataset}.txt"'
    return f'[benchmark.{name}]\nkind = "sts"\n{files}\ndataset = "{dataset}"\n\n'


def _sts_files(dataset: str, rows: Pairs) -> dict[str, bytes]:
    """An STS set's input and gold files (a NaN gold score: a blank line)."""
    return {
        f"STS.input.{dataset}.txt": "".join(f"{a}\t{b}\n" for a, b, _ in rows).encode(),
        f"STS.gs.{dataset}.txt": "".join(f"{'' if s != s else s}\n" for _, _, s in rows).encode(),
    }


LAB_TOML = (
    "".join(f'[benchmark.{name}]\ngold = "{name}.tsv"\n\n' for name in GRADED)
    + "".join(_sts_entry(name, dataset) for name, (dataset, _) in STS_SETS.items())
    + '[suite.lab-suite]\nmembers = ["lab-sts", "lab-sts2"]\naggregate = "sts"\n'
)
LAB: dict[str, bytes] = {"lab.toml": LAB_TOML.encode()}
for _name, _rows in GRADED.items():
    LAB[f"{_name}.tsv"] = "".join(f"{a}\t{b}\t{g}\n" for a, b, g in _rows).encode()
for _dataset, _rows in STS_SETS.values():
    LAB.update(_sts_files(_dataset, _rows))

made: dict[str, Any] = {}  # what each surface makes once per process


def scratch(key: str) -> Path:
    """A folder kept for this process (removed at exit), the lab registry written in it."""
    if key not in made:
        folder = Path(tempfile.mkdtemp(prefix=f"fuzz-{key}-"))
        atexit.register(shutil.rmtree, folder, True)
        for name, data in LAB.items():
            (folder / name).write_bytes(data)
        made[key] = folder
    return made[key]


class Raw(str):
    """A TOML value written as it is (times, malformed values)."""


def toml_value(value: Any) -> str:
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    return json.dumps(str(value), ensure_ascii=False)  # TOML basic strings escape as JSON does


def toml_text(doc: dict[str, Any]) -> bytes:
    """A campaign document as TOML: top keys, then each ``[[phase]]`` (a list of tables)."""
    phases = doc.get("phase")
    tables = isinstance(phases, list) and all(isinstance(p, dict) for p in phases)
    lines = [f"{k} = {toml_value(v)}" for k, v in doc.items() if k != "phase" or not tables]
    for p in phases if tables else []:
        lines += ["", "[[phase]]", *(f"{k} = {toml_value(v)}" for k, v in p.items())]
    return ("\n".join(lines) + "\n").encode()
