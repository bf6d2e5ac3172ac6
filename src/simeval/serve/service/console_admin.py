"""What the organiser's console does that the command line did alone: create a campaign from
its TOML file sent in the browser, and export a campaign as one zip to download. Each goes
through the very service function of its command (:func:`.campaigns.create_campaign`,
:func:`.export.export`), so the same checks and the same leak audit run, and neither saves
anything it would refuse there.

A campaign file sent in the browser has no folder of its own on the server's machine, so it
may not name registry files (``registry = [...]``): a path there would read any file of the
server's machine as a registry. A campaign with the organiser's own benchmarks is made on
the server's machine (``simeval serve campaign FOLDER FILE``).

Made from the browser, a campaign's creation and each export are written to the audit log
(``create campaign``, ``export``), naming the organiser; from the command line they are the
machine's operator's, as before.
"""

from __future__ import annotations

import re
import tempfile
import zipfile
from datetime import datetime
from pathlib import Path

from simeval.errors import InputError
from simeval.serve.db import Database
from simeval.serve.db.storage import Storage
from simeval.serve.service.campaigns import Targets, campaign_doc, create_campaign, find_campaign
from simeval.serve.service.export import export
from simeval.serve.service.organisers import audit

MAX_CAMPAIGN_FILE = 64 * 1024  # bytes of a campaign file sent in the browser
DEFAULT_FILE_NAME = "campaign.toml"
SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
NO_REGISTRY = (
    "registry: a campaign file sent in the browser may not name registry files (they would "
    "be read from the server's machine); make a campaign with your own benchmarks there with "
    "`simeval serve campaign FOLDER FILE`"
)


def shown_file_name(name: str | None) -> str:
    """The name a sent campaign file is called by in messages: its own base name when it is
    plain (letters, digits, ``.``, ``_``, ``-``), else ``campaign.toml``."""
    base = (name or "").replace("\\", "/").rsplit("/", 1)[-1]
    return base if SAFE_NAME.fullmatch(base) else DEFAULT_FILE_NAME


def create_sent_campaign(
    db: Database,
    targets: Targets,
    data: bytes,
    name: str | None,
    now: datetime,
    actor: str,
    allow_leaks: str | None = None,
) -> str:
    """Create the campaign of the file ``data`` sent as ``name`` (as ``simeval serve
    campaign`` does: every check, then the leak audit, whose findings refuse it unless
    ``allow_leaks`` gives a reason); the campaign's name. A refusal is the command's
    :class:`InputError`, naming the file as it was sent, with its line where it has one."""
    if len(data) > MAX_CAMPAIGN_FILE:
        raise InputError(name, None, f"a campaign file is at most {MAX_CAMPAIGN_FILE:,} bytes")
    shown = shown_file_name(name)
    with tempfile.TemporaryDirectory(prefix="simeval-campaign-") as folder:
        path = Path(folder) / shown
        path.write_bytes(data)
        try:
            if campaign_doc(path).get("registry"):
                raise InputError(path, None, NO_REGISTRY)
            made = create_campaign(db, path, now, targets, allow_leaks, actor)
        except InputError as exc:
            where = shown if exc.path == str(path) else exc.path
            raise InputError(where, exc.line, exc.message) from None
        return made.name


def export_zip(
    db: Database,
    storage: Storage,
    campaign: str,
    folder: Path,
    now: datetime,
    actor: str,
    anonymise: bool = False,
    top: int = 0,
    keep_dominated: bool = False,
) -> Path:
    """The export of ``campaign`` (:func:`.export.export`, as ``simeval serve export``
    writes it) as a zip in ``folder`` (a new temporary folder the caller removes), every
    entry under ``<campaign>-export/``; audited (``export``, anonymised or not)."""
    out = folder / f"{campaign}-export"
    written = export(db, storage, campaign, out, anonymise, None, top, keep_dominated, now)
    archive = folder / (f"{campaign}-export{'-anonymised' if anonymise else ''}.zip")
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(out.rglob("*")):
            if path.is_file():
                z.write(path, path.relative_to(folder).as_posix())
    with db.session() as s:
        c = find_campaign(s, campaign)
        audit(s, now, actor, c.id, "export", anonymised=anonymise, files=len(written),
              top=top, keep_dominated=keep_dominated)  # fmt: skip
    return archive
