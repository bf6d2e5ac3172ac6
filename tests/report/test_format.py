"""The one number format, p-value format, escape per medium and HTML table
(simeval.report.format, simeval.report.html_table), checked against parsers that are not ours:
Python's HTML parser, rich's own rendering and matplotlib's."""

from __future__ import annotations

import io
from html.parser import HTMLParser

import pytest
from rich.console import Console

from simeval.report.format import (
    html_text,
    latex_text,
    markdown_text,
    number,
    p_is,
    p_value,
    plot_text,
    terminal_text,
)
from simeval.report.html_table import Cell, html_table, value_cell


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.123456, "0.1235"),
        (-0.00004, "-0.0000"),
        (999.0, "999"),  # a count recorded as a float
        (9.0, "9.0000"),  # small whole numbers keep their decimals (a correlation of 1.0)
        (7, "7"),
        (float("nan"), "–"),
        (None, "–"),
        ("sts12", "sts12"),
    ],
)
def test_number(value, text) -> None:
    assert number(value) == text


@pytest.mark.parametrize(
    ("p", "text"),
    [(0.5, "0.5000"), (1e-4, "0.0001"), (3.21e-7, "3.2e-07"), (0.0, "< 1e-300"), (None, "–")],
)
def test_p_value(p, text) -> None:
    assert p_value(p) == text


def test_p_is_reads_as_a_sentence() -> None:
    assert p_is(0.03) == "= 0.0300" and p_is(0.0) == "< 1e-300"


class _Cells(HTMLParser):
    """What a browser reads from a table: each td's text and attributes, and the caption."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[tuple[str, dict]] = []
        self.caption = ""
        self._in: str | None = None

    def handle_starttag(self, tag, attrs):
        if tag in ("td", "caption"):
            self._in = tag
            if tag == "td":
                self.cells.append(("", dict(attrs)))

    def handle_endtag(self, tag):
        if tag in ("td", "caption"):
            self._in = None

    def handle_data(self, data):
        if self._in == "td":
            text, attrs = self.cells[-1]
            self.cells[-1] = (text + data, attrs)
        elif self._in == "caption":
            self.caption += data


def test_html_table_escapes_text_and_keeps_exact_sort_values() -> None:
    hostile = '<script>alert("x")</script> & co'
    page = html_table(
        ["system", "score"],
        [[value_cell(hostile), value_cell(0.123456789)], [value_cell("b"), value_cell(None)]],
        caption='a "caption" <b>',
    )
    parsed = _Cells()
    parsed.feed(page)
    assert "<script>" not in page
    assert parsed.caption == 'a "caption" <b>'
    texts = [t for t, _ in parsed.cells]
    assert texts == [hostile, "0.1235", "b", "–"]
    assert float(parsed.cells[1][1]["data-sort"]) == 0.123456789  # the exact value, not the text
    assert parsed.cells[3][1]["data-sort"] == ""  # a missing value sorts last
    assert "num" in parsed.cells[1][1]["class"].split()


def test_html_cells_are_kept_as_markup_and_text_is_escaped() -> None:
    """A cell's HTML is kept only when it is Markup (a template's output); a str is text."""
    from markupsafe import Markup

    rows = [[Cell(Markup("<strong>1</strong>"), 1.0)], [Markup("<em>x</em>")], ["<em>y</em>"]]
    page = html_table(["a"], rows, classes="t")
    assert '<td data-sort="1.0"><strong>1</strong></td>' in page and "<td><em>x</em></td>" in page
    assert "<td>&lt;em&gt;y&lt;/em&gt;</td>" in page


def test_html_text_quotes_attributes() -> None:
    parsed = _Cells()
    parsed.feed(f'<table><tr><td title="{html_text(chr(34) + "><x")}">y</td></tr></table>')
    assert parsed.cells == [("y", {"title": '"><x'})]


def test_terminal_text_shows_markup_and_control_characters_literally() -> None:
    out = io.StringIO()
    Console(file=out, width=80, color_system=None).print(terminal_text("[bold]team\x1b[2J\r"))
    assert out.getvalue() == "[bold]team?[2J?\n"


def test_markdown_and_latex_text() -> None:
    assert markdown_text("a|b *c*\nd") == r"a\|b \*c\* d"
    assert latex_text(r"50% of $x_1 & {y}\ ~^#") == (
        r"50\% of \$x\_1 \& \{y\}\textbackslash{} \~{}\^{}\#"
    )


def test_plot_text_keeps_dollars_literal_in_matplotlib() -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    name = r"cost $\frac$ 5"  # mathtext that does not parse: drawing it raw raises
    fig, ax = plt.subplots()
    ax.set_title(name)
    with pytest.raises(ValueError):
        fig.canvas.draw()
    ax.set_title(plot_text(name))
    fig.canvas.draw()  # now it draws, as text
    assert ax.title.get_text() == r"cost \$\frac\$ 5"
    plt.close(fig)


def test_every_medium_drops_raw_control_characters() -> None:
    """ESC, BEL and CR (an OSC that retitles a window, a carriage return that hides what came
    before) never pass raw; expected strings written by hand."""
    from simeval.report.format import plain_text

    name = "a\x1b]0;t\x07b\rc"
    assert plain_text(name) == "a?]0;t?b?c"
    assert markdown_text(name) == r"a?\]0;t?b c"  # CR is a line end: a space, as \n
    assert latex_text(name) == "a?]0;t?b?c"
    assert plot_text(name) == "a?]0;t?b?c"
    # HTML writes a character reference, which a parser reads back (Python's drops the C0
    # controls it deems invalid; the CR of a CRLF text is kept): no raw byte in the page
    assert html_text(name) == "a&#27;]0;t&#7;b&#13;c"
    parsed = _Cells()
    parsed.feed(f"<table><tr><td>{html_text(name)}</td></tr></table>")
    assert parsed.cells == [("a]0;tb\rc", {})]
