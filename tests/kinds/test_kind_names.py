"""Nothing outside :mod:`simeval.kinds` names a task kind (issue 45, item 2; DESIGN.md, Rooms:
"nothing else in the house branches on a kind's name"): the rest of the house looks a kind up
and asks it.

The check reads the names from :data:`simeval.kinds.KINDS` (each kind's name and the older
names records carry) and looks for them as string literals in every module of ``src/simeval``
outside ``kinds/`` (docstrings are prose and are not read). A few literals spell the same text
without meaning a kind; each is listed below with its reason and how many times it occurs,
so a new one fails here until it is either a kind's method or explained.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import simeval
from simeval.kinds import KINDS

SRC = Path(simeval.__file__).parent

# (module under src/simeval, literal) -> (occurrences, why it is not a kind)
NOT_KINDS: dict[tuple[str, str], tuple[int, str]] = {
    # metrics cannot import kinds (metrics imports nothing of simeval): a metric's
    # declaration names the kinds it applies to by the names records carry
    ("metrics/catalog.py", "graded-pairs"): (1, "a metric declaration's kind"),
    ("metrics/catalog.py", "related-pairs"): (1, "a metric declaration's kind"),
    ("metrics/catalog.py", "sts"): (1, "a metric declaration's kind"),
    ("metrics/catalog.py", "linking"): (1, "a metric declaration's kind"),
    ("metrics/catalog.py", "suite-sts"): (1, "a metric declaration's kind"),
    ("metrics/catalog.py", "suite-sts-year"): (1, "a metric declaration's kind"),
    ("api/catalog.py", "sts"): (1, "the default name of an in-memory STS benchmark"),
    ("api/targets.py", "sts"): (1, "the default name of an in-memory STS benchmark"),
    ("cli/score.py", "sts"): (1, "the command `simeval score sts`"),
    ("cli/build.py", "linking"): (1, "the command `simeval build linking`"),
    ("data/catalog.py", "sts"): (1, "a catalog file family (registry/catalog/sts.toml)"),
    ("data/catalog.py", "linking"): (1, "a catalog file family (registry/catalog/linking.toml)"),
    ("measures/vectors.py", "analogy"): (2, "the vectors measure's parameter analogy="),
}


def kind_names() -> set[str]:
    """Every name a record may carry for a kind: today's and the older ones."""
    return {n for k in KINDS.values() for n in (k.name, *k.aliases)}


def docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of a module, its classes and functions."""
    owners = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, owners)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }


def named_kinds() -> Counter[tuple[str, str]]:
    """How often each kind name is a string literal in each module outside ``kinds/``."""
    names = kind_names()
    found: Counter[tuple[str, str]] = Counter()
    for path in sorted(SRC.rglob("*.py")):
        module = path.relative_to(SRC).as_posix()
        if module.startswith("kinds/"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        prose = docstrings(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and node.value in names
                and id(node) not in prose
            ):
                found[(module, node.value)] += 1
    return found


def test_no_module_outside_kinds_names_a_kind() -> None:
    found = named_kinds()
    unexplained = {k: n for k, n in found.items() if k not in NOT_KINDS}
    assert not unexplained, (
        f"kind names outside simeval.kinds: {unexplained}; ask the kind "
        "(a TaskKind attribute or method) instead of comparing its name"
    )
    more = {k: (n, NOT_KINDS[k][0]) for k, n in found.items() if n > NOT_KINDS[k][0]}
    assert not more, f"more literals than the explained ones (found, explained): {more}"


def test_the_explanations_are_current() -> None:
    """An explained literal that is gone is struck from the list, so it hides nothing."""
    found = named_kinds()
    stale = {k: n for k, (n, _) in NOT_KINDS.items() if found.get(k, 0) != n}
    assert not stale, f"explained literals no longer found as listed: {stale}"


def test_the_check_sees_a_kind_named_in_code(tmp_path: Path) -> None:
    """The scan finds a comparison with a kind's name and passes over the same word in a
    docstring (what the module-wide check relies on)."""
    source = 'def f(kind):\n    """graded-pairs or sts."""\n    return kind == "sts"\n'
    tree = ast.parse(source)
    prose = docstrings(tree)
    literals = [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in prose
    ]
    assert literals == ["sts"]
    assert "sts" in kind_names() and "russe-suite" in kind_names()
