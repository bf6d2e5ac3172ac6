"""Executable docs: every fenced block of the README and of every page in the site's navigation
carries a marker, an HTML comment on the line before it (the site renders nothing of it):

- ``<!-- run -->`` a command block (bash, or python) run here in the fast tier;
- ``<!-- run: slow -->`` the same, as a slow test;
- ``<!-- run: by tests/…/test_x.py -->`` run by that test, which checks it against its own
  independent oracle; here only that the file exists, reads the block's page and runs its
  first command;
- ``<!-- file: NAME -->`` the block is a file's content: written to NAME in the page's folder
  before the next command runs; ``<!-- file: by tests/… -->`` a file that test writes;
- ``<!-- output -->`` what the run block before it printed, some of its lines, trimmed: each
  must be (white space folded) part of one printed line, so its numbers were printed together;
  ``<!-- output: by tests/… -->`` output that test checks. A results table (a ``benchmark``
  header over a rule) may be shown without some of its metric columns: under a shown header
  that names the columns it keeps, a row is the printed row without the declared metrics the
  header leaves out (:mod:`simeval.metrics.catalog`), cell for cell; so declaring a metric
  changes no page. Every printed table's metric columns are the metrics declared for one kind.

A page's run blocks run in order in one temporary folder (a block sees what the earlier ones
wrote), with ``../shared/data`` there pointing at the data folder, the venv's ``bin`` first on
``PATH``, ``SIMEVAL_DATA_DIR`` and ``HF_HUB_OFFLINE=1`` set, at 80 columns. A block with no
marker fails :func:`test_every_block_is_marked`, so a new command cannot go untested. The
generated reference pages are left out: their generators write them (``test_site.py``)."""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from test_site import GENERATED

from simeval.metrics import catalog

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
MARK = re.compile(r"^\s*<!--\s*(run|file|output)(?::\s*(.*?))?\s*-->\s*$")
FENCE = re.compile(r"^(\s*)```([^\s`]*)(?:\s+[^`]*)?$")  # ```bash, ```text title="x"
NUMBER = re.compile(r"(?<![\w.-])-?\d+(?:[.,]\d+)*")
VERB = re.compile(r"(?:^|[\s;&(])simeval[ \t]+(?:--\S+[ \t]+\S+[ \t]+)*([a-z][\w-]*)", re.M)


@dataclass
class Block:
    """One fenced block: where it is, its language, text and marker (kind, argument)."""

    page: str
    line: int
    lang: str
    text: str
    kind: str | None
    arg: str = ""
    output: Block | None = field(default=None, repr=False)

    @property
    def by(self) -> str | None:
        """The test file named by a ``by`` marker."""
        return self.arg.removeprefix("by ").strip() if self.arg.startswith("by ") else None

    @property
    def name(self) -> str:
        return f"{self.page}:{self.line}"


def pages() -> list[str]:
    """The README and every page of the site's navigation but the generated ones."""
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    listed = re.findall(r":\s*(\S+\.md)\s*$", nav, flags=re.M)
    return ["README.md", *(f"docs/{p}" for p in listed if f"docs/{p}" not in GENERATED)]


def page_blocks(page: str) -> list[Block]:
    """The fenced blocks of ``page``, each with the marker on the last non-blank line before
    it; an output block is attached to the run block before it."""
    lines = (ROOT / page).read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        opened = FENCE.match(lines[i])
        if not opened:
            i += 1
            continue
        indent, lang = opened.groups()
        end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
        body = "\n".join(line.removeprefix(indent) for line in lines[i + 1 : end]) + "\n"
        before = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        mark = MARK.match(before)
        found.append(Block(page, i + 1, lang, body, *(mark.groups("") if mark else (None,))))
        i = end + 1
    for previous, block in itertools.pairwise(found):
        if block.kind == "output" and not block.by and previous.kind == "run":
            previous.output = block
    return found


ALL = [b for p in pages() for b in page_blocks(p)]
RUN = [b for b in ALL if b.kind == "run" and not b.by]
BY = [b for b in ALL if b.by]


def test_every_block_is_marked() -> None:
    """Each block has a known marker; an output block follows the command it shows; a fast
    command never needs a slow one run before it on its page."""
    assert "docs/index.md" in pages() and len(ALL) > 30
    assert [b.name for b in ALL if b.kind is None] == []
    for block in ALL:
        if block.kind == "run" and not block.by:
            assert block.arg in ("", "slow"), block.name
            assert block.lang in ("bash", "python"), block.name
        elif block.kind == "file":
            assert block.arg, f"{block.name}: file: NAME or file: by TEST"
        elif block.kind == "output" and not block.by:
            assert any(b.output is block for b in ALL), f"{block.name}: no command before it"
    for page in pages():
        kinds = [b.arg for b in RUN if b.page == page]
        after_slow = kinds[kinds.index("slow") :] if "slow" in kinds else []
        assert "" not in after_slow, f"{page}: a fast block after a slow one"


def verbs(text: str) -> list[str]:
    """The simeval sub-commands a block calls, in order (``simeval --scheduler X report``:
    report)."""
    return VERB.findall(text)


@pytest.mark.parametrize("block", BY, ids=lambda b: b.name)
def test_a_block_run_elsewhere_names_a_test_that_runs_it(block: Block) -> None:
    """The named test exists and reads the block's page (by its file name or its title, the
    way readme_text finds a section); a command block's test either takes the page's blocks
    as written (``blocks(``) or calls the block's first command itself."""
    test = ROOT / block.by
    assert test.is_file(), f"{block.name}: no {block.by}"
    source = test.read_text(encoding="utf-8")
    page = ROOT / block.page
    title = page.read_text(encoding="utf-8").splitlines()[0].lstrip("# ").strip()
    assert page.name.removesuffix(".md") in source or title in source, (block.name, title)
    if block.kind == "run" and "blocks(" not in source:
        first = verbs(block.text)[:1]
        called = [v for v in first if f"simeval {v}" in source or f'"{v}"' in source]
        assert called == first, (block.name, first)


class PageRun:
    """A page's blocks run in order in one folder; each block is run once, when a test first
    needs it or a block after it."""

    def __init__(self, page: str, folder: Path, data_dir: Path, cache: Path) -> None:
        self.blocks = page_blocks(page)
        self.folder = folder / "work"
        self.folder.mkdir(parents=True)
        (folder / "shared").mkdir()
        (folder / "shared" / "data").symlink_to(data_dir)
        self.env = {
            **os.environ,
            "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
            "SIMEVAL_DATA_DIR": str(data_dir),
            "SIMEVAL_CACHE_DIR": str(cache),
            "HF_HUB_OFFLINE": "1",
            "COLUMNS": "80",
        }
        self.done = 0
        self.printed: dict[int, str] = {}

    def upto(self, target: Block) -> str:
        """Run the page's blocks up to ``target``; what ``target`` printed."""
        for block in self.blocks[self.done :]:
            self.done += 1
            if block.kind == "file" and not block.by:
                path = self.folder / block.arg
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(block.text, encoding="utf-8")
            elif block.kind == "run" and not block.by:
                self.printed[block.line] = self.run(block)
            if block.line == target.line:
                break
        return self.printed[target.line]

    def run(self, block: Block) -> str:
        command = ["bash", "-eo", "pipefail", "-c"] if block.lang == "bash" else [sys.executable]
        args = [*command, block.text] if block.lang == "bash" else [*command, "-"]
        stdin = None if block.lang == "bash" else block.text
        done = subprocess.run(
            args, cwd=self.folder, env=self.env, input=stdin, capture_output=True, text=True,
            timeout=1800,
        )  # fmt: skip
        printed = done.stdout + done.stderr
        assert done.returncode == 0, f"{block.name} exited {done.returncode}:\n{printed[-3000:]}"
        return printed


class Runs(dict):
    """The page runs of this module, each made when a test first asks for its page."""

    def __init__(self, factory: pytest.TempPathFactory, data_dir: Path, cache: Path) -> None:
        super().__init__()
        self.factory, self.data_dir, self.cache = factory, data_dir, cache

    def __missing__(self, page: str) -> PageRun:
        self[page] = PageRun(page, self.factory.mktemp("page"), self.data_dir, self.cache)
        return self[page]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, data_dir: Path, encoder_cache: Path) -> Runs:
    """The pages' runs; they share the session's embedding cache with the other encoder tests
    (keyed by model and text, so a cached embedding is the one the model gives)."""
    return Runs(tmp_path_factory, data_dir, encoder_cache)


def _folded(text: str) -> str:
    return " ".join(text.split())


def _holds(line: str, number: str) -> bool:
    """Whether ``line`` holds ``number`` as a whole number (0.76 is not in 0.7600 nor in
    -0.76)."""
    return re.search(rf"(?<![\w.-]){re.escape(number)}(?![\d])", line) is not None


MARKS = ("*", "†")  # the main metric's, no information's: part of the cell before them
RULE = re.compile(r"^\s*─+\s*$")
DECLARED = {m.name for m in catalog.METRICS}


def cells(line: str) -> list[str]:
    """A results table's line as its cells (a mark joins the cell before it)."""
    out: list[str] = []
    for token in line.split():
        if token in MARKS and out:
            out[-1] += " " + token
        else:
            out.append(token)
    return out


def _name(cell: str) -> str:
    return cell.split(" ")[0]


def printed_tables(printed: str) -> list[tuple[list[str], list[list[str]]]]:
    """The results tables of ``printed``: (header cells, rows' cells), a table being a
    ``benchmark`` header over a rule and its rows up to a blank line."""
    lines = printed.splitlines()
    found = []
    for i, line in enumerate(lines[:-1]):
        if cells(line)[:1] == ["benchmark"] and RULE.match(lines[i + 1]):
            rows = list(itertools.takewhile(str.strip, lines[i + 2 :]))
            found.append((cells(line), [cells(r) for r in rows]))
    return found


def _kept(header: list[str], shown: list[str]) -> list[int] | None:
    """The columns of a printed ``header`` that a ``shown`` header keeps, when it leaves out
    declared metrics only; else None."""
    keep = [j for j, c in enumerate(header) if _name(c) not in DECLARED or c in shown]
    return keep if [header[j] for j in keep] == shown else None


def lines_missing(shown: str, printed: str) -> list[str]:
    """The lines of ``shown`` that no line of ``printed`` holds, white space folded, with each
    of its numbers whole: a line of a table is a row that was printed, its figures together.
    Under a shown results header, a row may also be a printed row of a table with that header's
    columns kept (module docstring)."""
    said = [_folded(p) for p in printed.splitlines()]
    tables = printed_tables(printed)

    def held(line: str, by: str) -> bool:
        return _folded(line) in by and all(_holds(by, n) for n in NUMBER.findall(line))

    def held_as_row(line: str, header: list[str] | None) -> bool:
        for printed_header, rows in tables:
            keep = None if header is None else _kept(printed_header, header)
            if keep is not None and any(
                [row[j] for j in keep if j < len(row)] == cells(line)
                for row in [printed_header, *rows]
            ):
                return True
        return False

    missing, header = [], None
    for line in shown.splitlines():
        if not line.strip():
            header = None  # a blank line ends a shown table
            continue
        if cells(line)[:1] == ["benchmark"]:
            header = cells(line)
        if not any(held(line, p) for p in said) and not held_as_row(line, header):
            missing.append(line)
    return missing


def undeclared_columns(printed: str) -> list[list[str]]:
    """The printed results tables whose metric columns are not, in order, the metrics declared
    for one kind (a metric that needs a column the rows lack may be absent)."""
    kinds = {k for m in catalog.METRICS for k in m.kinds}
    wrong = []
    for header, _ in printed_tables(printed):
        metrics = [_name(c) for c in header if _name(c) in DECLARED]
        if metrics and not any(
            metrics == [m.name for m in catalog.of_kind(k) if not m.count and (m.name in metrics
                        or not m.needs)]
            for k in kinds
        ):  # fmt: skip
            wrong.append(header)
    return wrong


def _params() -> list:
    return [
        pytest.param(b, id=b.name, marks=[pytest.mark.slow] if b.arg == "slow" else []) for b in RUN
    ]


@pytest.mark.parametrize("block", _params())
def test_the_block_runs_and_prints_the_numbers_shown(block: Block, runs) -> None:
    printed = runs[block.page].upto(block)
    assert undeclared_columns(printed) == [], printed[-3000:]
    if block.output is not None:
        assert lines_missing(block.output.text, printed) == [], printed[-3000:]


def test_a_number_missing_from_the_output_is_found() -> None:
    """The check itself, on hand-made text: a rounded or different figure is not there, nor
    two figures of different rows shown as one row."""
    printed = "mc30  spearman  0.7600  n 30\nrg65 -0.0606 0.9011\n14,835 pairs"
    assert lines_missing("spearman  0.7600 n\nrg65 -0.0606\n\n14,835 pairs", printed) == []
    for wrong in ["0.76", "rg65 0.0606", "14,836 pairs", "mc30 0.7600 0.9011", "rg65 –"]:
        assert lines_missing(wrong, printed) == [wrong]


def test_a_shown_table_may_leave_out_declared_metrics_only() -> None:
    """Under a shown header, a row is the printed row without the declared metrics the header
    leaves out, cell for cell; a column that is not a declared metric cannot be left out, and
    a row without a header above it is a whole printed line."""
    printed = (
        " benchmark  spearman *  pearson  scored/gold \n"
        " ────────────────────────────────────────── \n"
        " mc30           0.1180 †   0.1463        30/30 \n"
        " rg65           0.5000    -0.2500        65/65 \n"
    )
    shown = " benchmark   spearman *   scored/gold\n mc30   0.1180 †   30/30\n rg65 0.5000 65/65"
    assert lines_missing(shown, printed) == []
    for wrong in ["0.1180 † 30/30", "mc30 0.1463 30/30", "mc30 0.1180 † 65/65"]:
        text = f" benchmark spearman * scored/gold\n{wrong}"
        assert lines_missing(text, printed) == [wrong]
    with_n = " benchmark  spearman *  n  pearson\n ─────\n mc30  0.1180 †  30  0.1463\n"
    skipping_n = " benchmark spearman * pearson\n mc30 0.1180 † 0.1463"
    assert lines_missing(skipping_n, with_n) == skipping_n.splitlines()
    assert lines_missing(" mc30 0.1180 † 30/30", printed) == [" mc30 0.1180 † 30/30"]


def test_a_table_must_show_the_metrics_declared_for_a_kind() -> None:
    graded = [m.name for m in catalog.of_kind("graded-pairs")]
    table = (
        f" benchmark  {'  '.join(graded)}  scored/gold\n ─────\n mc30  {'  1' * len(graded)}  3/3\n"
    )
    assert undeclared_columns(table) == []
    partial = f" benchmark  {graded[0]}  scored/gold\n ─────\n mc30  1  3/3\n"
    assert undeclared_columns(partial) == [["benchmark", graded[0], "scored/gold"]]
    assert undeclared_columns(" benchmark  hj  sum *\n ────\n russe  0.1  0.2 *\n") == []
