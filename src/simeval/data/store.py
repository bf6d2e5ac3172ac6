"""Finding catalogued files: a local mirror, the user cache, or a verified download.

Resolution order for a file ``russe/hj-test.csv``:

1. the data directory given by ``--data-dir`` or ``SIMEVAL_DATA_DIR`` (a mirror laid out like
   ``../shared/data``);
2. the user cache (``platformdirs.user_cache_dir("simeval")``, or ``SIMEVAL_CACHE_DIR``);
3. a download from the catalogued upstream URL (or ``SIMEVAL_MIRROR_URL`` + path), streamed to a
   temporary name in the cache, checked against the catalogued sha256 and renamed into place.
   A file lock ensures two processes never fetch the same file twice; a failed or corrupted
   download leaves nothing behind. ``SIMEVAL_OFFLINE=1`` forbids downloads.

Every file found is checked against its sha256 once per process.
"""

from __future__ import annotations

import hashlib
import os
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from simeval.data.atomic import staged
from simeval.data.catalog import CATALOG, CatalogEntry, CatalogFile
from simeval.data.textio import sha256_file
from simeval.errors import DataError

CHUNK = 1 << 16
MIRROR_HINT = (
    "point simeval at a local copy with --data-dir DIR or SIMEVAL_DATA_DIR=DIR "
    "(a folder laid out like shared/data: russe/, sts2012/, ...)"
)


def default_cache_dir() -> Path:
    env = os.environ.get("SIMEVAL_CACHE_DIR")
    if env:
        return Path(env)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("simeval")) / "data"


@dataclass
class DataStore:
    """Resolves catalogued files to local paths (see the module docstring)."""

    data_dir: Path | None = None
    cache_dir: Path = field(default_factory=default_cache_dir)
    mirror_url: str | None = None
    offline: bool = False
    timeout: float = 60.0
    progress: Callable[[str, int, int], None] | None = None
    _verified: set[Path] = field(default_factory=set, repr=False)

    @classmethod
    def from_env(cls, data_dir: str | Path | None = None, **kwargs: object) -> DataStore:
        """A store configured from arguments, falling back to the SIMEVAL_* variables."""
        chosen = data_dir or os.environ.get("SIMEVAL_DATA_DIR")
        if chosen and not Path(chosen).is_dir():
            raise DataError(
                f"the data folder (--data-dir or SIMEVAL_DATA_DIR) is {chosen!s}, resolved to "
                f"{Path(chosen).resolve()}, which is not a folder; " + MIRROR_HINT
            )
        return cls(
            data_dir=Path(chosen) if chosen else None,
            mirror_url=os.environ.get("SIMEVAL_MIRROR_URL") or None,
            offline=os.environ.get("SIMEVAL_OFFLINE", "") not in ("", "0"),
            **kwargs,  # type: ignore[arg-type]
        )

    # -- lookup -------------------------------------------------------------------------------

    def _entry_of(self, path: str) -> tuple[CatalogEntry, CatalogFile]:
        for entry in CATALOG.values():
            for f in entry.files:
                if f.path == path:
                    return entry, f
        raise DataError(f"{path} is not a catalogued file")

    def sha256(self, path: str) -> str:
        """The catalogued sha256 of ``path`` (what a result records of the data it used)."""
        return self._entry_of(path)[1].sha256

    def _check(self, local: Path, f: CatalogFile) -> None:
        if local in self._verified:
            return
        digest = sha256_file(local)
        if digest != f.sha256:
            raise DataError(
                f"{local} does not match the catalog (sha256 {digest[:12]}…, expected "
                f"{f.sha256[:12]}…): the file is corrupted or a different version"
            )
        self._verified.add(local)

    def locate(self, path: str) -> Path | None:
        """The local copy of a catalogued file (mirror first, then cache), or None."""
        for root in (self.data_dir, self.cache_dir):
            if root is not None and (root / path).is_file():
                return root / path
        return None

    def path(self, path: str) -> Path:
        """A verified local path for the catalogued file ``path``, fetching it if needed."""
        entry, f = self._entry_of(path)
        local = self.locate(path)
        if local is not None:
            self._check(local, f)
            return local
        return self._download(entry, f)

    def fetch(self, name: str) -> list[Path]:
        """Make every file of catalog entry ``name`` available locally."""
        entry = CATALOG[name]
        return [self.path(f.path) for f in entry.files]

    def verify(self, name: str) -> list[tuple[str, str]]:
        """(path, status) for every file of an entry: ok, missing, or a mismatch message."""
        out = []
        for f in CATALOG[name].files:
            local = self.locate(f.path)
            if local is None:
                out.append((f.path, "missing"))
                continue
            self._verified.discard(local)
            try:
                self._check(local, f)
                out.append((f.path, "ok"))
            except DataError as exc:
                out.append((f.path, str(exc)))
        return out

    # -- download -----------------------------------------------------------------------------

    def url_for(self, entry: CatalogEntry, f: CatalogFile) -> str:
        if self.mirror_url:
            return self.mirror_url.rstrip("/") + "/" + f.path
        return entry.url(f)

    def _download(self, entry: CatalogEntry, f: CatalogFile) -> Path:
        if self.offline:
            raise DataError(
                f"{f.path} is not available locally and downloads are off "
                f"(SIMEVAL_OFFLINE); {MIRROR_HINT}"
            )
        from filelock import FileLock

        target = self.cache_dir / f.path
        target.parent.mkdir(parents=True, exist_ok=True)
        locks = self.cache_dir / ".locks"
        locks.mkdir(exist_ok=True)
        with FileLock(str(locks / (f.path.replace("/", "__") + ".lock"))):
            if target.is_file():  # another process fetched it while we waited
                self._check(target, f)
                return target
            url = self.url_for(entry, f)
            with staged(target) as tmp:
                digest = self._stream(url, tmp, f)
                if digest != f.sha256:
                    raise DataError(
                        f"download of {f.path} from {url} is corrupted (sha256 {digest[:12]}…, "
                        f"expected {f.sha256[:12]}…); nothing was kept"
                    )
        self._verified.add(target)
        return target

    def _stream(self, url: str, tmp: Path, f: CatalogFile) -> str:
        h = hashlib.sha256()
        done = 0
        try:
            with (
                urllib.request.urlopen(url, timeout=self.timeout) as response,
                open(tmp, "wb") as out,
            ):
                while block := response.read(CHUNK):
                    out.write(block)
                    h.update(block)
                    done += len(block)
                    if self.progress:
                        self.progress(f.path, done, f.size)
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", None) or exc
            raise DataError(
                f"cannot download {f.path} from {url}: {reason}; {MIRROR_HINT}"
            ) from None
        except Exception as exc:  # http.client.IncompleteRead and friends
            raise DataError(
                f"download of {f.path} from {url} failed: {exc!r}; nothing was kept"
            ) from None
        if done != f.size:
            raise DataError(
                f"download of {f.path} from {url} ended after {done} of {f.size} bytes;"
                " nothing was kept"
            )
        return h.hexdigest()
