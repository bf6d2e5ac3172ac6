"""The one terminal table: every table the command line prints is laid out here, to fit the
terminal's width (80 columns as well as 250) or, with ``wide``, at its full width.

A table is a list of :class:`Column` and rows of text cells. What fits is printed as it is.
What does not is fitted in three steps, so that no line is wider than the terminal and no two
rows that differ become alike:

1. **Names are numbered.** A column of names (systems, benchmarks, paths: ``name=True``) keeps
   every name up to about half the width; a longer one is printed as ``[n]`` (``[b3]`` with the
   column's ``tag``), n being its place among the column's names, and the legend under the
   table (under each part, for the numbers that part shows first) gives it in full. A header
   that is a name (a system as a column of ``simeval results``) is printed whole when the
   whole table fits; else it is numbered beyond ``header_cap`` characters
   (:data:`HEADER_CAP`).
2. **Prose wraps.** A ``wrap`` column (a description, a licence) breaks between words (a word
   longer than :data:`NARROWEST_PROSE`, a URL, folded); numbers and names never break.
3. **The rest goes on to further parts.** ``key`` columns (a row's label: rank, system,
   benchmark) are repeated in every part; the other columns fill the parts in order of
   ``priority`` (higher first), each part in the columns' own order, titled ``(1/2)``,
   ``(2/2)``; a leaderboard's sum, its last column, comes last, after its members.

A new column (a leaderboard's rank interval, say) slots in by being one more :class:`Column`.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from rich import box as boxes
from rich.cells import cell_len
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from simeval.report.format import plain_text

HEADER_CAP = 14  # a name as a header beyond this many characters is numbered
NARROWEST_NAME = 12  # names are never numbered when at most this long
NARROWEST_PROSE = 20  # prose wraps between words, a longer word (a URL) folded to this
HEAVY = boxes.HEAVY_HEAD  # the default box: rows and columns ruled
SIMPLE = boxes.SIMPLE_HEAD  # a rule under the header only (evaluate, score, compare)


@dataclass(frozen=True)
class Column:
    """One column: its header and how its cells may be fitted (module docstring)."""

    header: str
    key: bool = False  # a row's label: repeated in every part
    name: bool = False  # names: a long one is numbered, with a legend
    number: bool = False  # right-aligned, never broken
    wrap: bool = False  # prose: may break between words
    priority: int = 0  # higher: placed in an earlier part
    header_is_name: bool = False  # the header is a name, numbered beyond header_cap
    header_cap: int = HEADER_CAP
    tag: str = ""  # the letter before a number of this column's names: [b1]


@dataclass
class Legend:
    """The numbers of one command's names (the same name, the same number in every table of
    the command), and the full names behind the numbers printed."""

    numbers: dict[tuple[str, str], int] = field(default_factory=dict)  # (tag, name) -> n
    shown: dict[str, str] = field(default_factory=dict)  # label printed -> name
    given: set[str] = field(default_factory=set)  # labels whose line is printed already

    def place(self, tag: str, names: Iterable[str]) -> None:
        """Number ``names`` not numbered yet, in order (a name's number is its place)."""
        for name in names:
            if (tag, name) not in self.numbers:
                self.numbers[(tag, name)] = 1 + sum(t == tag for t, _ in self.numbers)

    def label(self, tag: str, name: str) -> str:
        """``[n]`` (``[b3]`` with a tag) for ``name``, kept for the legend."""
        self.place(tag, [name])
        text = f"[{tag}{self.numbers[(tag, name)]}]"
        self.shown[text] = name
        return text

    def lines(self, width: int, labels: Iterable[str] | None = None) -> list[str]:
        """``[n] name`` per name printed as a number (of ``labels`` only, when given) whose
        line is not printed yet, a name longer than the width continued on indented lines."""
        out: list[str] = []
        wanted = set(self.shown) if labels is None else set(labels)
        for label, name in self.shown.items():
            if label in wanted and label not in self.given:
                self.given.add(label)
                out += cut_line(f"{label} {plain_text(name)}", width, "    ")
        return out


@dataclass
class Part:
    """One printed table: its title (printed above it, wrapped to the width; the title's
    names are not numbered), the rich table itself and the numbers it shows (``[3]``), whose
    legend lines go under it."""

    title: str
    table: Table
    labels: list[str] = field(default_factory=list)


def cut_line(line: str, width: int, indent: str) -> list[str]:
    """``line`` as lines of at most ``width`` characters, the continuations indented; each
    break after a space or a ``/`` where one is in the second half of the line (a path
    breaks between its folders), else anywhere."""
    out: list[str] = []
    while len(line) > width:
        room = line[:width]
        cut = max(room.rfind(" "), room.rfind("/")) + 1
        if cut <= width // 2:
            cut = width
        out.append(line[:cut].rstrip())
        line = indent + line[cut:]
    return [*out, line]


def wrap_note(note: str, width: int, indent: str = "") -> list[str]:
    """A note under a table (or a warning), wrapped between words to ``width`` (a word longer
    than the width is broken), the continuation lines indented by ``indent``."""
    return textwrap.wrap(
        plain_text(note),
        width,
        subsequent_indent=indent,
        break_long_words=True,
        break_on_hyphens=False,
    )


Cell = str | Text  # a Text keeps its style (a leaderboard's best, in bold)


class TerminalTable:
    """Columns and rows of cells, fitted to a width as the module docstring says."""

    def __init__(
        self,
        columns: Sequence[Column],
        rows: Sequence[Sequence[Cell]],
        title: str = "",
        box: boxes.Box = HEAVY,
    ) -> None:
        self.columns = list(columns)
        self.rows = [[_text(c) for c in row] for row in rows]
        self.title = title
        self.box = box

    def parts(self, width: int, wide: bool = False, legend: Legend | None = None) -> list[Part]:
        """The tables to print, each at most ``width`` characters wide (unless ``wide``: one
        table, full names); long names go to ``legend``."""
        legend = legend if legend is not None else Legend()
        if wide:
            return [Part(self.title, self._table(self.columns, self.rows))]
        columns, rows = self._numbered(legend, width)
        keys = [i for i, c in enumerate(columns) if c.key]
        spread = sorted(
            (i for i, c in enumerate(columns) if not c.key),
            key=lambda i: (-columns[i].priority, i),
        )
        groups: list[list[int]] = []
        for i in spread:
            if groups and self._minimum(columns, rows, [*keys, *groups[-1], i]) <= width:
                groups[-1].append(i)
            else:
                groups.append([i])
        out = []
        for n, group in enumerate(groups or [[]], 1):
            chosen = sorted([*keys, *group])
            title = f"{self.title} ({n}/{len(groups)})".strip() if len(groups) > 1 else self.title
            picked = [columns[i] for i in chosen]
            cells = [[r[i] for i in chosen] for r in rows]
            shown = [c.header for c in picked] + [c.plain for row in cells for c in row]
            labels = [text for text in shown if text in legend.shown]
            out.append(Part(title, self._table(picked, cells), list(dict.fromkeys(labels))))
        return out

    def _numbered(self, legend: Legend, width: int) -> tuple[list[Column], list[list[Text]]]:
        """Long names as numbers: a name header beyond its ``header_cap``, unless the whole
        table fits with every header in full; cells beyond about half the width, or beyond
        NARROWEST_NAME if the key columns still do not fit beside the narrowest other
        column."""
        if self._fits_whole(width):
            return self.columns, self._cells_numbered(self.columns, self._cap(width), legend)
        for tag in dict.fromkeys(c.tag for c in self.columns if c.header_is_name):
            legend.place(tag, [c.header for c in self.columns if c.header_is_name and c.tag == tag])
        columns = [
            replace(c, header=legend.label(c.tag, c.header))
            if c.header_is_name and cell_len(c.header) > c.header_cap
            else c
            for c in self.columns
        ]
        keys = [i for i, c in enumerate(columns) if c.key]
        others = [i for i, c in enumerate(columns) if not c.key]
        for cap in (self._cap(width), NARROWEST_NAME):
            rows = self._cells_numbered(columns, cap, Legend())
            narrowest = min((self._minimum(columns, rows, [*keys, i]) for i in others),
                            default=self._minimum(columns, rows, keys))  # fmt: skip
            if narrowest <= width:
                break
        return columns, self._cells_numbered(columns, cap, legend)

    @staticmethod
    def _cap(width: int) -> int:
        """The longest name a cell keeps: about half the width."""
        return max(NARROWEST_NAME, width // 2 - 4)

    def _fits_whole(self, width: int) -> bool:
        """Whether the table, every header in full, fits ``width`` as one part (its cells'
        names numbered only beyond :meth:`_cap`)."""
        rows = self._cells_numbered(self.columns, self._cap(width), Legend())
        return self._minimum(self.columns, rows, list(range(len(self.columns)))) <= width

    def _cells_numbered(self, columns: list[Column], cap: int, legend: Legend) -> list[list[Text]]:
        """The rows, each name longer than ``cap`` in a ``name`` column as its number."""
        out = [list(r) for r in self.rows]
        for j, c in enumerate(columns):
            if not c.name:
                continue
            legend.place(c.tag, (r[j].plain for r in self.rows))
            for r in out:
                if r[j].cell_len > cap:
                    r[j] = Text(legend.label(c.tag, r[j].plain), style=r[j].style)
        return out

    def _minimum(
        self, columns: Sequence[Column], rows: Sequence[Sequence[Text]], chosen: list[int]
    ) -> int:
        """The narrowest the ``chosen`` columns print: names and numbers whole, prose at its
        longest word up to NARROWEST_PROSE (rich's own measure lets any column wrap, so only
        its frame, the borders and padding, is taken from it)."""
        picked = sorted(chosen)
        heads = [columns[i] for i in picked]
        cells = [[r[i] for i in picked] for r in rows]
        whole = [
            max(cell_len(plain_text(c.header)), *(r[k].cell_len for r in cells))
            for k, c in enumerate(heads)
        ]
        least = [
            _narrowest_prose(c, [r[k] for r in cells]) if c.wrap else whole[k]
            for k, c in enumerate(heads)
        ]
        frame = _measure(self._table(heads, cells)).maximum - sum(whole)
        return frame + sum(least)

    def _table(self, columns: Sequence[Column], rows: Sequence[Sequence[Text]]) -> Table:
        """A rich table of these columns (its title is printed apart, wrapped to the width)."""
        simple = self.box is SIMPLE  # no rules between columns: one space apart is enough
        table = Table(box=self.box, pad_edge=not simple, collapse_padding=simple)
        for k, c in enumerate(columns):
            table.add_column(
                Text(plain_text(c.header)),  # a header may be a name: no raw control byte
                justify="right" if c.number else "left",
                no_wrap=not c.wrap,
                overflow="fold",
                min_width=_narrowest_prose(c, [r[k] for r in rows]) if c.wrap else None,
            )
        for row in rows:
            table.add_row(*row)
        return table


def _text(cell: Cell) -> Text:
    """A cell as rich Text, its control characters shown as ``?`` (never markup)."""
    if isinstance(cell, Text):
        return Text(plain_text(cell.plain), style=cell.style)
    return Text(plain_text(cell))


_MEASURING = Console(width=100_000, color_system=None, file=None)


def _narrowest_prose(column: Column, cells: Sequence[Text]) -> int:
    """The narrowest a prose column prints without breaking a word: its longest word (of
    the header too), up to NARROWEST_PROSE (a longer one, a URL, is folded)."""
    longest = max(
        _longest_word(plain_text(column.header)), *(_longest_word(c.plain) for c in cells)
    )
    return min(NARROWEST_PROSE, longest)


def _longest_word(text: str) -> int:
    return max((cell_len(word) for word in text.split()), default=0)


def _measure(table: Table) -> Measurement:
    """The narrowest and widest a table can be printed (rich's measure of it)."""
    return Measurement.get(_MEASURING, _MEASURING.options, table)
