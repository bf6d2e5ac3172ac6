"""The build's one hook: record the git commit the package is built from.

Everything else is in pyproject.toml. ``simeval --version`` prints the commit: from a checkout
it asks git; installed, it reads ``simeval/_build.py``, written here into the sdist's tree and
the wheel's (never into ``src/``). A wheel built from an sdist keeps the sdist's record, since
the unpacked sdist is no checkout. A build from a copy of a checkout (the server's client
wheel, simeval.serve.service.client_wheel) is told the commit by ``SIMEVAL_BUILD_COMMIT``.
The helpers are loaded from ``src/simeval/build_info.py`` by path: nothing of simeval is
installed while it builds.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("build_info", HERE / "src/simeval/build_info.py")
assert _spec and _spec.loader
build_info = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_info)


def commit() -> str | None:
    """The commit to record: this checkout's HEAD, else the one the builder was told."""
    return build_info.git_commit(HERE) or os.environ.get("SIMEVAL_BUILD_COMMIT") or None


class BuildPyWithCommit(build_py):
    """build_py, then simeval/_build.py in the build folder where this tree is a checkout."""

    def run(self) -> None:
        super().run()
        found = commit()
        if found is not None and not self.editable_mode:  # editable: git is asked at run time
            build_info.write_recorded(Path(self.build_lib) / "simeval" / "_build.py", found)


class SdistWithCommit(sdist):
    """sdist with src/simeval/_build.py in its tree (the checkout's commit)."""

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        found = commit()
        if found is not None:
            build_info.write_recorded(Path(base_dir) / "src/simeval/_build.py", found)


setup(cmdclass={"build_py": BuildPyWithCommit, "sdist": SdistWithCommit})
