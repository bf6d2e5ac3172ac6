"""The server's organiser accounts, and its audit log of what organisers and the command line
changed."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import NamedTuple

from simeval.api.serving.server import opened, utc_now


class AuditLine(NamedTuple):
    """One entry of the audit log: when (UTC), who, what, and its details as text."""

    at: datetime
    actor: str
    action: str
    detail: str


class OrganiserLine(NamedTuple):
    """An organiser's account: its name, when it was revoked (None: active), and whether it
    may add and revoke organisers from the browser."""

    name: str
    revoked: datetime | None
    admin: bool = False


def audit_log(folder: Path, campaign: str | None = None, db: str | None = None) -> list[AuditLine]:
    """The audit log, newest first (``campaign``: only that campaign's changes)."""
    from simeval.serve.service.campaigns import campaign_id
    from simeval.serve.service.organisers import audit_log as entries
    from simeval.serve.service.organisers import detail_text

    with opened(folder, db) as (database, _):
        wanted = campaign_id(database, campaign) if campaign is not None else None
        return [
            AuditLine(e.at, e.actor, e.action, detail_text(e.detail))
            for e in entries(database, wanted)
        ]


def add_organiser(folder: Path, name: str, db: str | None = None, admin: bool = False) -> str:
    """Add an organiser to the server of ``folder`` (made if missing); the account's token,
    to show once. ``admin``: it may add and revoke organisers in the browser (the server's
    first account is an admin in any case)."""
    from simeval.serve.service.organisers import add_organiser as add

    with opened(folder, db, make=True) as (database, _):
        return add(database, name, utc_now(), admin=admin)


def list_organisers(folder: Path, db: str | None = None) -> list[OrganiserLine]:
    """The organiser accounts by name, revoked ones with when."""
    from simeval.serve.service.organisers import organisers as rows

    with opened(folder, db) as (database, _):
        return [OrganiserLine(r.name, r.revoked, r.admin) for r in rows(database)]


def revoke_organiser(folder: Path, name: str, db: str | None = None) -> None:
    """Take an organiser's account away (its token stops working at once)."""
    from simeval.serve.service.organisers import revoke_organiser as revoke

    with opened(folder, db) as (database, _):
        revoke(database, name, utc_now())
