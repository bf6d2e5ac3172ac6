"""HTML lives in templates: the modules that render the server's pages and the report hold
no markup of their own in their strings, and make Markup (text a template shows as it is) only
where the HTML is a template's output or safe by construction."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import simeval

SRC = Path(simeval.__file__).parent
RENDERING = [
    *sorted((SRC / "serve" / "views").glob("*.py")),
    *(SRC / "report" / f"{name}.py" for name in ("html", "html_table", "leaderboard", "page")),
    SRC / "serve" / "routers" / "errors.py",
]
TAG = re.compile(r"</?[a-zA-Z][a-zA-Z0-9]*[\s>/]")
# where Markup is made, and why it is safe: a template's output (templating), Markdown with raw
# HTML off (markdown), the pages' own style and script constants (page, pages)
MARKUP = {
    "report/templating.py": 3,
    "serve/views/markdown.py": 1,
    "report/page.py": 2,
    "serve/views/pages.py": 2,
}


def strings(path: Path) -> list[tuple[int, str]]:
    """Every string literal of ``path`` that is not a docstring, with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
    ]


def test_no_markup_is_built_in_python() -> None:
    found = [
        f"{path.relative_to(SRC)}:{line}: {text[:60]!r}"
        for path in RENDERING
        for line, text in strings(path)
        if TAG.search(text)
    ]
    assert not found, found


def test_markup_is_made_only_where_it_is_safe() -> None:
    made: dict[str, int] = {}
    for path in SRC.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls = [
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Name)
            and n.func.id == "Markup"
            and n.args  # Markup() is empty
        ]
        if calls:
            made[path.relative_to(SRC).as_posix()] = len(calls)
    assert made == MARKUP


def test_no_template_turns_escaping_off() -> None:
    templates = [*(SRC / "report" / "templates").glob("*.html")]
    templates += (SRC / "serve" / "templates").glob("*.html")
    assert len(templates) > 10
    for path in templates:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"\|\s*safe\b|autoescape\s+false", text), path.name
