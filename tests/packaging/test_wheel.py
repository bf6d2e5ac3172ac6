"""The package as it ships (issue 47): an sdist built from this checkout, and a wheel built
from that sdist (as ``python -m build`` does: so the wheel proves the sdist complete), hold
every file git tracks under ``src/simeval`` and the commit they were built from; the wheel,
installed in a new virtual environment, runs the main job's commands outside the checkout.

The new environment is clean of the checkout, not of the dependencies: it gets the wheel alone
(``pip install --no-deps --no-index``), and a ``.pth`` file lists the test environment's
site-packages so that numpy, torch and the rest are found there, not downloaded and installed
again (gigabytes, minutes). Python appends a ``.pth`` file's folders after the environment's
own site-packages and does not read the ``.pth`` files inside them, so the editable install
of simeval there is not active; ``src/`` is on no path (no ``PYTHONPATH``), and the commands
run in a temporary folder. The test asserts that ``simeval`` is imported from the new
environment. Slow: two builds, an environment and five commands, about half a minute.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

import readme_text

ROOT = Path(__file__).resolve().parents[2]


def _run(args: list[str | Path], cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, (args, done.stdout[-2000:], done.stderr[-3000:])
    return done.stdout


def _git(*args: str) -> str:
    return _run(["git", "-C", ROOT, *args], ROOT).strip()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(sdist, wheel): the sdist by setuptools' build backend (the hook ``python -m build``
    calls), the wheel by pip from that sdist, both with this environment's setuptools."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the build records no commit")
    out = tmp_path_factory.mktemp("dist")
    backend = f"from setuptools import build_meta; print(build_meta.build_sdist({str(out)!r}))"
    egg_info = ROOT / "src" / "simeval.egg-info"
    existed = egg_info.exists()
    try:
        name = _run([sys.executable, "-c", backend], ROOT).strip().splitlines()[-1]
    finally:  # setuptools leaves it in src/, where it would stand for an installed simeval
        if not existed:
            shutil.rmtree(egg_info, ignore_errors=True)
    sdist = out / name
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
          "--no-index", "-w", out, sdist], out)  # fmt: skip
    (wheel,) = out.glob("simeval-*.whl")
    return sdist, wheel


def _tracked() -> list[str]:
    """Every file git tracks under src/simeval, relative to src/."""
    listed = _git("ls-files", "src/simeval").splitlines()
    return [p.removeprefix("src/") for p in listed if (ROOT / p).is_file()]


def _commit_line() -> str:
    dirty = "+dirty" if _git("status", "--porcelain", "--untracked-files=no") else ""
    return f"COMMIT = '{_git('rev-parse', 'HEAD')}{dirty}'"


@pytest.mark.slow
def test_sdist_and_wheel_hold_every_tracked_file_and_the_commit(built: tuple[Path, Path]) -> None:
    sdist, wheel = built
    with tarfile.open(sdist) as tar:
        top = tar.getnames()[0].split("/")[0]
        in_sdist = {n.removeprefix(f"{top}/src/") for n in tar.getnames()}
        recorded = tar.extractfile(f"{top}/src/simeval/_build.py").read().decode()  # type: ignore[union-attr]
    in_wheel = set(zipfile.ZipFile(wheel).namelist())
    tracked = _tracked()
    assert any(p.endswith(".toml") for p in tracked) and len(tracked) > 200
    assert [p for p in tracked if p not in in_sdist] == []
    assert [p for p in tracked if p not in in_wheel] == []
    assert _commit_line() in recorded.splitlines()
    assert _commit_line() in zipfile.ZipFile(wheel).read("simeval/_build.py").decode().splitlines()


@pytest.fixture(scope="module")
def venv(built: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new environment with the wheel installed and this one's site-packages on a .pth."""
    place = tmp_path_factory.mktemp("venv") / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", place], place.parent)
    python = place / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps",
          "--no-index", built[1]], place.parent, _env(place))  # fmt: skip
    purelib = _run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], place)
    ours = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    Path(purelib.strip(), "zz_test_dependencies.pth").write_text("\n".join(sorted(ours)) + "\n")
    return place


def _env(venv: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return env | {"PATH": f"{venv / 'bin'}{os.pathsep}{env['PATH']}", "COLUMNS": "200"}


def _cells(line: str) -> list[str]:
    """A printed table line's cells (rich's box characters between them)."""
    return [c.strip() for c in re.split(r"[│┃]", line) if c.strip()]


@pytest.mark.slow
def test_the_installed_wheel_runs_the_main_job_outside_the_checkout(
    venv: Path, tmp_path: Path
) -> None:
    """From the new environment, in a temporary folder: simeval is the wheel's,
    ``--version`` names the commit recorded at build, ``data list`` reads the catalog's TOML
    files, ``evaluate overlap`` on RUSSE and ``results`` print the README's numbers, and
    ``serve init`` runs the server's migrations."""
    env, simeval = _env(venv), venv / "bin" / "simeval"
    where = _run([venv / "bin" / "python", "-c", "import simeval; print(simeval.__file__)"],
                 tmp_path, env)  # fmt: skip
    assert Path(where.strip()).is_relative_to(venv), where
    assert not Path(where.strip()).is_relative_to(ROOT), where
    head = _commit_line().split("'")[1]
    shown = _run([simeval, "--version"], tmp_path, env).strip()
    assert shown.endswith(f"(git {head}, recorded when it was built)"), shown
    listed = _run([simeval, "data", "list"], tmp_path, env)
    assert "russe" in listed and "sts2012" in listed, listed
    _run([simeval, "evaluate", "overlap", "-s", "russe", "--results", "main"], tmp_path, env)
    printed = _run([simeval, "results", "main"], tmp_path, env)
    table = readme_text.table_after("`simeval results results/main` after the main job")
    column = table[0].index("overlap")
    rows = {cells[0]: cells for cells in map(_cells, printed.splitlines()) if cells}
    russe = [r for r in table[2:] if r[0].startswith("russe")]
    assert len(russe) == 5
    for row in russe:
        assert rows[row[0]][-1] == row[column], (row, rows.get(row[0]))
    _run([simeval, "serve", "init", tmp_path / "server"], tmp_path, env)
    assert (tmp_path / "server").is_dir()


@pytest.mark.slow
def test_a_server_installed_from_the_wheel_offers_that_wheel_again(
    built: tuple[Path, Path], venv: Path, tmp_path: Path
) -> None:
    """The client wheel of a server installed from a wheel (no checkout): the installed
    files packed again. Against the wheel that was installed: the same name, the same files
    with the same bytes, and the same RECORD lines."""
    pytest.importorskip("fastapi")
    made = _run([venv / "bin" / "python", "-c",
                 "from pathlib import Path; from simeval.serve.service.client_wheel import "
                 "ClientWheel; print(ClientWheel(Path('client')).path())"],
                tmp_path, _env(venv)).strip()  # fmt: skip
    again, original = zipfile.ZipFile(tmp_path / made), zipfile.ZipFile(built[1])
    assert Path(made).name == built[1].name
    assert sorted(again.namelist()) == sorted(original.namelist())
    for name in original.namelist():
        if name.endswith("/RECORD"):
            lines = [set(z.read(name).decode().splitlines()) for z in (again, original)]
            assert lines[0] == lines[1]
        else:
            assert again.read(name) == original.read(name), name
