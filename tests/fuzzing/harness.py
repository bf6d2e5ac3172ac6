"""A seeded mutation fuzzer over simeval's input surfaces (issue 30).

A *surface* is one way a user's input reaches simeval: a pair file given to ``score pairs``, a
registry TOML, a campaign TOML, an upload. Each surface draws *cases* from a seeded
``random.Random``: it takes a valid input, changes it, and says what a careful reader expects:

- :class:`Reject` — the input is wrong: simeval must refuse it (exit 2) with a message that
  names the file (or the key, option or line it gives), or accept it with a warning;
- :class:`Accept` — the input is right (perhaps unusual): simeval must exit 0 and its number
  must equal the one the surface computes independently (scipy, pytrec_eval, by hand);
- :class:`Either` — random damage the harness cannot judge: a clean refusal or an acceptance.

Each case lands in one bucket:

========== ================================================================================
clean      what was expected
traceback  an exception that is not simeval's own, or an exit status other than 0 and 2
silent     a wrong input accepted without a warning
wrong      a right input refused, or a number that differs from the independent one
unclear    refused, but the message names neither the file nor what it was told to name
========== ================================================================================

The test (``tests/fuzzing/test_surfaces.py``) runs every surface at a small budget and asserts
zero outside *clean*; ``benchmarks/fuzz_surfaces.py`` runs a large budget and prints the table.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import shutil
import tempfile
import traceback
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BUCKETS = ("clean", "traceback", "silent", "wrong", "unclear")


@dataclass
class Outcome:
    """What one run gave: exit status, its two streams, an exception that escaped (not
    ``SystemExit``), and the folder the case ran in (to read what it wrote)."""

    exit_code: int
    stdout: str
    stderr: str
    exception: BaseException | None
    folder: Path
    trace: str = ""

    @property
    def text(self) -> str:
        return self.stdout + "\n" + self.stderr

    def records(self) -> list[dict[str, Any]]:
        """The JSON lines printed on stdout (``--json``), every other line skipped."""
        found = []
        for line in self.stdout.splitlines():
            with contextlib.suppress(ValueError):
                value = json.loads(line)
                if isinstance(value, dict):
                    found.append(value)
        return found

    def warned(self) -> bool:
        """Whether the run told the user something is off: a record's ``warnings`` or a line
        on stderr saying warning."""
        if any(r.get("warnings") for r in self.records()):
            return True
        return "warning" in self.stderr.lower()


@dataclass(frozen=True)
class Reject:
    """Wrong input: exit 2 naming one of ``names`` (default: a file of the case), or exit 0 with
    a warning (unless ``warning_ok`` is false)."""

    names: tuple[str, ...] = ()
    warning_ok: bool = True


@dataclass(frozen=True)
class Accept:
    """Right input: exit 0, and ``check(outcome)`` returns ``None`` (else what is wrong)."""

    check: Callable[[Outcome], str | None] = lambda outcome: None


@dataclass(frozen=True)
class Either:
    """Damage the harness cannot judge: any clean outcome. A refusal must still name
    ``names`` (default: a file of the case)."""

    names: tuple[str, ...] = ()


Expect = Reject | Accept | Either


@dataclass
class Case:
    """One input: the files to write into a fresh folder (relative path → bytes), the
    arguments (``{dir}`` stands for that folder) and what is expected."""

    label: str
    files: dict[str, bytes]
    argv: list[str]
    expect: Expect
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class Surface:
    """A named input surface: ``draw(rng)`` gives one case; ``run(case, folder)`` runs it
    (default: the ``simeval`` command line, in this process)."""

    name: str
    draw: Callable[[random.Random], Case]
    run: Callable[[Case, Path], Outcome] | None = None


def run_cli(case: Case, folder: Path) -> Outcome:
    """Run ``simeval`` with the case's arguments in this process (Typer's runner), the case's
    folder as the working directory."""
    from typer.testing import CliRunner

    from simeval.cli import app

    argv = [a.replace("{dir}", str(folder)) for a in case.argv]
    runner = CliRunner()
    env = {"COLUMNS": "200", **case.env}
    with _working_directory(folder):
        result = runner.invoke(app, argv, env=env, catch_exceptions=True)
    exception = result.exception
    trace = ""
    if exception is not None and not isinstance(exception, SystemExit):
        trace = "".join(traceback.format_exception(exception))
    else:
        exception = None
    return Outcome(result.exit_code, result.stdout, result.stderr, exception, folder, trace)


def run_python(call: Callable[[Path], object]) -> Callable[[Case, Path], Outcome]:
    """A runner for surfaces reached from Python (the API, the server's service): ``call``
    gets the case folder; a :class:`~simeval.errors.SimevalError` is exit 2, its message on
    stderr; a return is exit 0 with ``repr`` of what came back on stdout (or its JSON)."""
    from simeval.errors import SimevalError

    def run(case: Case, folder: Path) -> Outcome:
        err = io.StringIO()
        with _working_directory(folder), contextlib.redirect_stderr(err):
            try:
                value = call(folder)
            except SimevalError as error:
                return Outcome(2, "", err.getvalue() + str(error), None, folder)
            except Exception as error:  # the harness counts it: that is its job
                trace = "".join(traceback.format_exception(error))
                return Outcome(1, "", err.getvalue(), error, folder, trace)
        out = value if isinstance(value, str) else json.dumps(value, default=repr)
        return Outcome(0, out, err.getvalue(), None, folder)

    return run


@contextlib.contextmanager
def _working_directory(folder: Path) -> Iterator[None]:
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def classify(case: Case, outcome: Outcome) -> tuple[str, str]:
    """The bucket of one outcome and, outside *clean*, why."""
    if outcome.exception is not None or "Traceback (most recent call last)" in outcome.text:
        return "traceback", outcome.trace or outcome.text[-2000:]
    if outcome.exit_code not in (0, 2):
        return "traceback", f"exit {outcome.exit_code}: {outcome.text[-500:]}"
    expect = case.expect
    if isinstance(expect, Accept):
        if outcome.exit_code != 0:
            return "wrong", f"a right input refused: {outcome.text.strip()[-500:]}"
        problem = expect.check(outcome)
        return ("wrong", problem) if problem else ("clean", "")
    if outcome.exit_code == 0:
        if isinstance(expect, Either):
            return "clean", ""
        if expect.warning_ok and outcome.warned():
            return "clean", ""
        return "silent", f"accepted: {outcome.stdout.strip()[:500]}"
    names = expect.names or tuple(Path(name).name for name in case.files)
    if not names or any(name in outcome.text for name in names):
        return "clean", ""
    return "unclear", f"names none of {names}: {outcome.text.strip()[-500:]}"


@dataclass
class Tally:
    """Counts per bucket for one surface, with the first few non-clean cases to look at."""

    surface: str
    counts: Counter[str] = field(default_factory=Counter)
    examples: list[tuple[str, str, str]] = field(default_factory=list)  # bucket, label, why
    refusals: dict[str, str] = field(default_factory=dict)  # message → the label that drew it
    keep: int = 8

    def add(self, bucket: str, label: str, why: str) -> None:
        self.counts[bucket] += 1
        if bucket != "clean" and len(self.examples) < self.keep:
            self.examples.append((bucket, label, why))

    @property
    def bad(self) -> int:
        return sum(self.counts[b] for b in BUCKETS if b != "clean")


def fuzz(surface: Surface, budget: int, seed: int, tmp: Path | None = None) -> Tally:
    """Draw ``budget`` cases for ``surface`` from ``random.Random(f"{seed}:{name}")`` and run
    each in a fresh folder (under ``tmp``, else a temporary directory)."""
    rng = random.Random(f"{seed}:{surface.name}")
    tally = Tally(surface.name)
    run = surface.run or run_cli
    with tempfile.TemporaryDirectory(dir=tmp) as base:
        for index in range(budget):
            case = surface.draw(rng)
            folder = Path(base) / f"case{index}"
            folder.mkdir()
            for name, data in case.files.items():
                path = folder / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
            outcome = run(case, folder)
            bucket, why = classify(case, outcome)
            tally.add(bucket, case.label, why)
            if outcome.exit_code == 2:
                tally.refusals.setdefault(refusal(outcome, folder), case.label)
            shutil.rmtree(folder, ignore_errors=True)
    return tally


def refusal(outcome: Outcome, folder: Path) -> str:
    """The message of a refusal, as the error catalogue (``docs/errors.md``) is matched
    against it: its last non-empty lines from stderr (stdout when stderr is empty), the case
    folder's path taken out."""
    text = (outcome.stderr.strip() or outcome.stdout.strip()).replace(str(folder) + os.sep, "")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return " ".join(lines[-3:]) if lines else ""


def table(tallies: Sequence[Tally]) -> str:
    """The counts as a plain table, a row per surface and a total."""
    width = max([len(t.surface) for t in tallies] + [len("surface"), len("total")])
    head = f"{'surface':<{width}}  " + "  ".join(f"{b:>9}" for b in BUCKETS)
    rows = [head, "-" * len(head)]
    total: Counter[str] = Counter()
    for t in tallies:
        total.update(t.counts)
        rows.append(f"{t.surface:<{width}}  " + "  ".join(f"{t.counts[b]:>9}" for b in BUCKETS))
    rows.append(f"{'total':<{width}}  " + "  ".join(f"{total[b]:>9}" for b in BUCKETS))
    return "\n".join(rows)


# -- damage the harness cannot judge, shared by every text surface ---------------------------


def damage(rng: random.Random, data: bytes) -> tuple[str, bytes]:
    """One random change to a file's bytes, and its name."""
    lines = data.split(b"\n")
    kind = rng.choice(
        ["flip", "truncate", "drop-line", "repeat-line", "junk", "control", "crlf", "bom",
         "encoding", "empty", "swap-lines", "long-field"]
    )  # fmt: skip
    if kind == "flip" and data:
        i = rng.randrange(len(data))
        return kind, data[:i] + bytes([rng.randrange(256)]) + data[i + 1 :]
    if kind == "truncate":
        return kind, data[: rng.randrange(len(data) + 1)]
    if kind == "drop-line" and len(lines) > 1:
        del lines[rng.randrange(len(lines))]
        return kind, b"\n".join(lines)
    if kind == "repeat-line" and lines:
        i = rng.randrange(len(lines))
        lines.insert(i, lines[i])
        return kind, b"\n".join(lines)
    if kind == "junk":
        i = rng.randrange(len(data) + 1)
        return kind, data[:i] + rng.randbytes(rng.randrange(1, 40)) + data[i:]
    if kind == "control":
        i = rng.randrange(len(data) + 1)
        byte = rng.choice([b"\x00", b"\x1b[31m", b"\r", b"\x07", b"\x0c"])
        return kind, data[:i] + byte + data[i:]
    if kind == "crlf":
        return kind, data.replace(b"\n", b"\r\n")
    if kind == "bom":
        return kind, b"\xef\xbb\xbf" + data
    if kind == "encoding":
        text = data.decode("utf-8", errors="replace")
        encoding = rng.choice(["utf-16", "cp1251", "latin-1", "koi8-r"])
        return kind, text.encode(encoding, errors="replace")
    if kind == "empty":
        return kind, b""
    if kind == "swap-lines" and len(lines) > 2:
        i, j = rng.sample(range(len(lines)), 2)
        lines[i], lines[j] = lines[j], lines[i]
        return kind, b"\n".join(lines)
    if kind == "long-field":
        i = rng.randrange(len(data) + 1)
        return kind, data[:i] + b"x" * rng.choice([10_000, 100_000]) + data[i:]
    return "none", data


def close(a: float | None, b: float | None, tol: float = 1e-9) -> bool:
    """Equal numbers, NaN equal to NaN, ``None`` only to ``None``."""
    if a is None or b is None:
        return a is None and b is None
    if a != a or b != b:  # NaN
        return a != a and b != b
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


# -- checks shared by surfaces that print one result record (``--json``) --------------------


def metrics_check(expected: dict[str, float]) -> Callable[[Outcome], str | None]:
    """A check for :class:`Accept`: one record printed, its ``metrics`` equal to ``expected``
    (each within :func:`close`); else what differs."""

    def check(outcome: Outcome) -> str | None:
        records = outcome.records()
        if len(records) != 1:
            return f"{len(records)} records printed"
        got = records[0]["metrics"]
        wrong = [
            f"{k} {got.get(k)} != {v}" for k, v in expected.items() if not close(got.get(k), v)
        ]
        return "; ".join(wrong) or None

    return check


# -- word pairs shared by the registry, measure-spec, vector-file and option surfaces ----------

PAIR_WORDS = ["cat", "car", "cart", "dog", "dot", "sun", "sum", "moon", "mood", "tree", "trek",
              "sea", "seat", "king", "kind", "city", "cite", "bread", "break", "milk"]  # fmt: skip

PairRows = list[tuple[str, str, str]]


def pair_rows(rng: random.Random, words: Sequence[str] = PAIR_WORDS) -> tuple[PairRows, PairRows]:
    """Gold and system rows over the same 6–10 distinct pairs of ``words`` (scores as text)."""
    n = rng.randint(6, 10)
    pairs: list[tuple[str, str]] = []
    while len(pairs) < n:
        a, b = rng.sample(list(words), 2)
        if (a, b) not in pairs and (b, a) not in pairs:
            pairs.append((a, b))
    gold = [(a, b, str(rng.randint(0, 40) / 4)) for a, b in pairs]
    pred = [(a, b, repr(round(rng.random(), 4))) for a, b in pairs]
    return gold, pred


def pair_text(rows: PairRows, sep: str = "\t") -> bytes:
    """A pair file with a ``word1 word2 sim`` header."""
    head = f"word1{sep}word2{sep}sim\n"
    return (head + "".join(f"{a}{sep}{b}{sep}{s}\n" for a, b, s in rows)).encode()


def spearman_check(gold: PairRows, pred: PairRows) -> Callable[[Outcome], str | None]:
    """:func:`metrics_check` of scipy's Spearman over the gold pairs, each scored as ``pred``
    scores it (None where it is undefined: the record's null)."""
    import warnings

    from scipy.stats import spearmanr

    system = {(a, b): float(s) for a, b, s in pred}
    with warnings.catch_warnings():  # constant input: NaN, as the record's null says
        warnings.simplefilter("ignore")
        rho = spearmanr([float(s) for *_, s in gold], [system[a, b] for a, b, _ in gold])[0]
    return metrics_check({"spearman": None if rho != rho else float(rho)})  # type: ignore[dict-item]


def prefix_ratio(a: str, b: str) -> float:
    """The longest common prefix of two words over the longer one's length (1 for two empty)."""
    shared = max(k for k in range(min(len(a), len(b)) + 1) if a[:k] == b[:k])
    return shared / max(len(a), len(b)) if a or b else 1.0
