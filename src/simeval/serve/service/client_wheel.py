"""The wheel of the simeval this server runs, offered to participants (issue 47): the
campaign page's ``pip install "simeval[client] @ <server>/client/<wheel>"`` installs the same
code, so that ``simeval submit`` and ``simeval predict`` on a participant's machine are the
server's (its ``simeval --version`` names the server's commit).

The wheel is made once, on its first download, into ``<storage>/client/``:

- where the server runs from a git checkout, pip builds it (``pip wheel --no-deps
  --no-build-isolation``) from a copy of the checkout's tracked files (uncommitted changes
  included, so the copy is what runs), with the commit recorded as ``setup.py`` does;
- where it runs from an installed wheel, the installed files that the wheel's ``RECORD``
  lists are packed again into a wheel (every file byte for byte, the ``RECORD`` rewritten;
  the console script and the installer's own files left out, as a wheel has them);
- otherwise (an install without a ``RECORD``, such as an editable one outside a checkout) no
  wheel is offered and the page shows no line.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import tomllib
import zipfile
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from simeval import build_info
from simeval.errors import SimevalError

FOLDER = "client"  # under the storage folder; left out of backups (made again on demand)
INSTALLER_FILES = {"INSTALLER", "REQUESTED", "direct_url.json", "RECORD"}
SOURCES = ("pyproject.toml", "setup.py", "README.md", "src/")  # what the build reads


@dataclass
class ClientWheel:
    """The wheel offered at ``/client/<name>``, made into ``folder`` on first use."""

    folder: Path
    _made: Path | None = field(default=None, repr=False)
    _failed: str | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @functools.cached_property
    def commit(self) -> str | None:
        """The checkout's commit where the server runs from one (asked of git once: the
        code that runs does not change until the server restarts)."""
        return build_info.git_commit(build_info.ROOT)

    @functools.cached_property
    def name(self) -> str | None:
        """The wheel's file name (pip reads name and version from it), or None where this
        server has no wheel to offer."""
        if self.commit is not None:
            version = _checkout_version(build_info.ROOT)
            return f"simeval-{version}-py3-none-any.whl" if version else None
        dist = _installed()
        return _wheel_name(dist) if dist is not None else None

    def path(self) -> Path:
        """The wheel's file, made on the first call (the others wait for it); a failure is
        kept, so a broken build is not retried on every request."""
        with self._lock:
            if self._made is None and self._failed is None:
                try:
                    self._made = self._make()
                except SimevalError as exc:
                    self._failed = str(exc)
            if self._made is None:
                raise SimevalError(f"no client wheel on this server: {self._failed}")
            return self._made

    def _make(self) -> Path:
        if self.commit is not None:
            return build_from_checkout(build_info.ROOT, self.commit, self.folder / self.commit)
        dist = _installed()
        if dist is None:
            raise SimevalError("simeval is neither a git checkout nor an installed wheel here")
        return repack(dist, self.folder / "installed")


def _checkout_version(root: Path) -> str | None:
    try:
        table = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
        return str(table["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return None


def build_from_checkout(root: Path, commit: str, out: Path) -> Path:
    """The wheel pip builds from a copy of the checkout's tracked files at ``root``, with
    ``commit`` recorded (``SIMEVAL_BUILD_COMMIT``: the copy is no checkout); kept in ``out``
    and reused there unless the checkout has uncommitted changes."""
    kept = sorted(out.glob("simeval-*.whl")) if out.is_dir() else []
    if kept and not commit.endswith("+dirty"):
        return kept[-1]
    listed = subprocess.run(
        ["git", "-C", str(root), "ls-files", "-z", *SOURCES], capture_output=True, check=True
    ).stdout.decode()
    with tempfile.TemporaryDirectory(prefix="simeval-client-") as tmp:
        tree, built = Path(tmp) / "tree", Path(tmp) / "wheel"
        for name in filter(None, listed.split("\0")):
            if (root / name).is_file():  # tracked, not deleted in the working tree
                (tree / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(root / name, tree / name)
        done = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
             "--no-index", "-w", str(built), str(tree)],
            capture_output=True, text=True, timeout=600,
            env={**os.environ, "SIMEVAL_BUILD_COMMIT": commit},
        )  # fmt: skip
        wheels = sorted(built.glob("simeval-*.whl"))
        if done.returncode != 0 or not wheels:
            last = (done.stderr.strip().splitlines() or ["no wheel written"])[-1]
            raise SimevalError(f"pip wheel of the checkout {root} failed: {last}")
        out.mkdir(parents=True, exist_ok=True)
        shutil.move(wheels[0], out / wheels[0].name)
    return out / wheels[0].name


def _installed() -> metadata.Distribution | None:
    """The installed distribution whose files are the simeval imported here, if it has a
    ``RECORD`` (an editable install's does not list the package's files)."""
    import simeval

    try:
        dist = metadata.distribution("simeval")
    except metadata.PackageNotFoundError:
        return None
    ours = Path(simeval.__file__).resolve()
    if not dist.files or Path(str(dist.locate_file("simeval/__init__.py"))).resolve() != ours:
        return None
    return dist


def _wheel_name(dist: metadata.Distribution) -> str:
    tags = [
        line.split(":", 1)[1].strip()
        for line in (dist.read_text("WHEEL") or "").splitlines()
        if line.startswith("Tag:")
    ]
    return f"simeval-{dist.version}-{tags[0] if tags else 'py3-none-any'}.whl"


def repack(dist: metadata.Distribution, out: Path) -> Path:
    """The installed files of ``dist`` that its ``RECORD`` lists, packed as a wheel in ``out``
    with a new ``RECORD`` (sha256 and size of each file, as the wheel format writes them)."""
    info = f"simeval-{dist.version}.dist-info"
    target = out / _wheel_name(dist)
    if target.is_file():
        return target
    out.mkdir(parents=True, exist_ok=True)
    part = target.with_suffix(".part")
    record: list[str] = []
    try:
        with zipfile.ZipFile(part, "w", zipfile.ZIP_DEFLATED) as wheel:
            for f in dist.files or []:
                skipped = f.parts[0] == ".." or "__pycache__" in f.parts or f.suffix == ".pyc"
                if skipped or (f.parts[0] == info and f.name in INSTALLER_FILES):
                    continue
                data = f.read_binary()
                digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
                wheel.writestr(f.as_posix(), data)
                record.append(f"{f.as_posix()},sha256={digest.decode()},{len(data)}")
            record.append(f"{info}/RECORD,,")
            wheel.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
        os.replace(part, target)
    except OSError as exc:
        part.unlink(missing_ok=True)
        raise SimevalError(f"cannot pack the installed simeval into {target}: {exc}") from None
    return target
