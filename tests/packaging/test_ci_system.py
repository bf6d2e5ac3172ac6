"""`.ci/system`, the part of `.ci/run` that installs Debian's packages and stops Debian's caddy
service (issue 47): as a user who is not root and has no sudo, it installs nothing, names
each missing package and why it is skipped, leaves SIMEVAL_REQUIRE_BROWSER unset (so that the
browser and Caddy tests skip instead of failing), and says why Debian's caddy service is left
running; the script goes on (exit 0) under `set -euo pipefail`, where `apt-get` stopped it.

Run as ``nobody`` by ``runuser`` (so only as root, as CI runs), with a PATH of stand-ins: an
``apt-get`` and a ``systemctl`` that record their calls (the latter says caddy is active), and
no chromium, chromedriver, caddy or sudo."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / ".ci" / "system"
POSTGRES_THERE = any(Path("/usr/lib/postgresql").glob("*/bin"))


@pytest.fixture
def stand_ins() -> Iterator[Path]:
    """A folder ``nobody`` can read: bin/ with the stand-ins, calls.log that they write."""
    if os.geteuid() != 0 or shutil.which("runuser") is None:
        pytest.skip("runs the script as nobody through runuser: root only")
    place = Path(tempfile.mkdtemp(prefix="ci-system-"))
    try:
        (place / "bin").mkdir()
        for name in ("bash", "id", "ls", "env"):
            (place / "bin" / name).symlink_to(shutil.which(name) or f"/usr/bin/{name}")
        shutil.copy(SCRIPT, place / "system")  # the checkout may be closed to nobody
        log = place / "calls.log"
        log.touch()
        for name, status in (("apt-get", 100), ("systemctl", 0)):
            stub = place / "bin" / name
            stub.write_text(f'#!/bin/bash\necho "{name} $*" >> {log}\nexit {status}\n')
        place.chmod(0o755)
        for path in [*place.rglob("*")]:
            path.chmod(0o777 if path == log else 0o755)
        yield place
    finally:
        shutil.rmtree(place)


def test_without_root_it_skips_what_needs_root_and_says_why(stand_ins: Path) -> None:
    shown = 'echo "require=${SIMEVAL_REQUIRE_BROWSER-unset} postgres=$ci_postgres"'
    done = subprocess.run(
        ["runuser", "-u", "nobody", "--", "/usr/bin/env", "-i", f"PATH={stand_ins / 'bin'}",
         "bash", "-c", f"set -euo pipefail; cd /; . {stand_ins / 'system'}; {shown}"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"require=unset postgres={'yes' if POSTGRES_THERE else 'no'}"
    calls = (stand_ins / "calls.log").read_text().splitlines()
    # neither an install nor a stop was tried
    assert [c for c in calls if not c.startswith("systemctl is-active")] == []
    missing = ["chromium", "chromium-driver", "caddy", *([] if POSTGRES_THERE else ["postgresql"])]
    said = done.stderr.splitlines()
    install = [line for line in said if "apt-get install" in line]
    assert len(install) == 1, said
    assert f"apt-get install {' '.join(missing)}" in install[0]
    assert "not root (uid 65534)" in install[0] and "skip" in install[0]
    assert any("systemctl stop caddy" in line and "needs root" in line for line in said), said
