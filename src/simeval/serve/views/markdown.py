"""A campaign's description and terms, written by the organiser in Markdown, as safe HTML.

CommonMark by markdown-it-py (what rich, a dependency already, renders with) with raw HTML
off, so ``<script>`` and event attributes come out as text; links only to the schemes
markdown-it allows (``javascript:``, ``vbscript:``, ``file:`` and non-image ``data:`` are
left as text); images off (the page's CSP loads none from elsewhere anyway); tables on.
"""

from __future__ import annotations

from functools import cache

from markdown_it import MarkdownIt
from markupsafe import Markup


@cache
def _renderer() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False}).enable("table").disable("image")


def markdown_html(text: str) -> Markup:
    """``text`` (Markdown) as HTML without any raw HTML or unsafe link of its own: Markup, so
    a template shows it as it is (safe by the renderer's settings above: every character of
    ``text`` that is not Markdown syntax is escaped by markdown-it)."""
    return Markup(_renderer().render(text) if text.strip() else "")
