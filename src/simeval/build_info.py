"""Which code this simeval is: its version and the git commit it was built from.

Run from a git checkout (``src/simeval`` two levels under a folder with ``.git``), the commit
is the checkout's HEAD, asked of git at run time, with ``+dirty`` when tracked files differ
from it. Installed from a wheel or an sdist, it is the commit recorded when the package was
built: ``setup.py`` writes ``simeval/_build.py`` (``COMMIT = "…"``) into the sdist's tree and
the wheel's, never into ``src/``. Only the standard library is imported here: ``setup.py``
loads this file by its path, before simeval or its dependencies are installed.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the checkout, when simeval runs from one


def git_commit(root: Path) -> str | None:
    """HEAD of the git checkout at ``root`` (``+dirty`` when tracked files were changed), or
    None where ``root`` is not the top of a checkout or git is missing."""
    if not (root / ".git").exists():
        return None

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
        ).stdout.strip()

    try:
        if Path(git("rev-parse", "--show-toplevel")).resolve() != root.resolve():
            return None
        head = git("rev-parse", "HEAD")
        changed = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("+dirty" if changed else "")


def recorded_commit() -> str | None:
    """The commit the build wrote into ``simeval/_build.py``, or None (no such module)."""
    try:
        from simeval._build import COMMIT  # type: ignore[import-not-found]
    except ImportError:
        return None
    return str(COMMIT)


def describe(version: str) -> str:
    """The ``simeval --version`` line: version, commit and where the commit was read."""
    checkout = git_commit(ROOT)
    if checkout is not None:
        return f"simeval {version} (git {checkout}, the checkout at {ROOT})"
    built = recorded_commit()
    if built is not None:
        return f"simeval {version} (git {built}, recorded when it was built)"
    return f"simeval {version} (git commit unknown)"


def write_recorded(target: Path, commit: str) -> None:
    """Write ``simeval/_build.py`` recording ``commit`` (the build's hook, ``setup.py``)."""
    target.write_text(
        '"""Written when this package was built (setup.py): the git commit it was built '
        'from."""\n\n'
        f"COMMIT = {commit!r}\n",
        encoding="utf-8",
    )
