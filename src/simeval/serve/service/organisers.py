"""Organiser accounts and the audit log.

An organiser is a person who runs the server's campaigns from the browser. The account is
made on the server's machine (``simeval serve organiser add FOLDER NAME``), which prints its
token once: ``so_<key>_<secret>``, checked as a team's token is (scrypt, :mod:`.security`),
and never accepted where a team's token is asked (another prefix, another table). Revoking an
account keeps its row, so the audit log's names keep their meaning.

Every change made to a campaign after ``simeval serve campaign`` created it (a phase's dates
or limits, registration, publication) is written to the audit log in the same transaction as
the change itself: a change without its entry cannot be committed. ``actor`` is
``organiser:NAME`` for a change made in the browser, ``command line`` for one made with
``simeval serve …`` on the server's machine.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from simeval.errors import InputError
from simeval.serve.db import Database
from simeval.serve.db.models import AuditEntry, Organiser, naive
from simeval.serve.db.names import check_team_name
from simeval.serve.service.security import (
    ORGANISER_PREFIX,
    NewToken,
    VerifiedTokens,
    check_secret,
    new_token,
    split_token,
)

COMMAND_LINE = "command line"


def actor_of(organiser: Organiser | None) -> str:
    """How the audit log names who made a change."""
    return f"organiser:{organiser.name}" if organiser is not None else COMMAND_LINE


def audit(
    s: Session, now: datetime, actor: str, campaign_id: int | None, action: str, **detail: Any
) -> None:
    """Write one entry of the audit log in the session ``s`` of the change it records."""
    s.add(AuditEntry(at=naive(now), actor=actor, campaign_id=campaign_id, action=action,
                     detail=detail))  # fmt: skip


def audit_log(db: Database, campaign_id: int | None = None) -> list[AuditEntry]:
    """The log, newest first; one campaign's entries when ``campaign_id`` is given."""
    query = select(AuditEntry).order_by(AuditEntry.at.desc(), AuditEntry.id.desc())
    if campaign_id is not None:
        query = query.where(AuditEntry.campaign_id == campaign_id)
    with db.reading() as s:
        return list(s.scalars(query))


def add_organiser(
    db: Database,
    name: str,
    now: datetime,
    token: NewToken | None = None,
    actor: str = COMMAND_LINE,
    admin: bool = False,
) -> str:
    """A new organiser account named ``name``; its token, shown once and stored hashed.
    ``admin``: it may add and revoke organisers from the browser; the server's first account
    is an admin whatever ``admin`` says (someone must be able to manage the accounts)."""
    try:
        name = check_team_name(name)  # the same rules as a team's name (NFKC, no controls)
    except ValueError as exc:
        raise InputError(None, None, f"organiser name {name!r}: {exc}") from None
    token = token or new_token(ORGANISER_PREFIX)
    with db.session() as s:
        if s.scalar(select(Organiser).where(Organiser.name == name)) is not None:
            raise InputError(None, None, f"an organiser {name!r} exists already")
        admin = admin or s.scalar(select(Organiser.id).limit(1)) is None
        s.add(Organiser(name=name, token_key=token.key, token_salt=token.salt,
                        token_hash=token.hash, created=naive(now), admin=admin))  # fmt: skip
        detail = {"organiser": name, **({"admin": True} if admin else {})}
        audit(s, now, actor, None, "add organiser", **detail)
    return token.token


def organisers(db: Database) -> list[Organiser]:
    """Every account, revoked ones included, by name."""
    with db.reading() as s:
        return list(s.scalars(select(Organiser).order_by(Organiser.name)))


def revoke_organiser(db: Database, name: str, now: datetime, actor: str = COMMAND_LINE) -> None:
    """Take an account away: its token stops working at once, also in a running server (the
    check compares the row's revocation on every request). ``actor``: who, for the log; an
    organiser never revokes their own account (they would be signed out with nobody left to
    undo it: the command line does that)."""
    with db.session() as s:
        row = s.scalar(select(Organiser).where(Organiser.name == name))
        if row is None:
            raise InputError(None, None, f"no organiser {name!r}")
        if actor == actor_of(row):
            raise InputError(None, None, f"{name}: an organiser does not revoke their own account")
        if row.revoked is None:
            row.revoked = naive(now)
            audit(s, now, actor, None, "revoke organiser", organiser=name)


class OrganiserTokens:
    """Checks organisers' tokens: one scrypt per token, then a cache by the token's SHA-256
    that counts only while the row is unrevoked and holds the same hash."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.verified = VerifiedTokens()

    def cached(self, token: str) -> Organiser | None:
        known = self.verified.get(token)
        if known is None:
            return None
        with self.db.reading() as s:
            row = s.get(Organiser, known[0])
        if row is None or row.revoked is not None or row.token_hash != known[1]:
            self.verified.forget(token)
            return None
        return row

    @staticmethod
    def row_key(token: str) -> str | None:
        """The key of a well-formed organiser's token, else None (nothing to check)."""
        parts = split_token(token, ORGANISER_PREFIX)
        return parts[0] if parts else None

    def row(self, token: str) -> Organiser | None:
        """The account a well-formed token's key names (no secret checked)."""
        parts = split_token(token, ORGANISER_PREFIX)
        if parts is None:
            return None
        with self.db.reading() as s:
            return s.scalar(select(Organiser).where(Organiser.token_key == parts[0]))

    def verify(self, token: str, row: Organiser | None) -> Organiser | None:
        """``row`` if the token's secret is its secret and it is not revoked: one scrypt in
        every case (an unknown key too), with no database connection held meanwhile."""
        parts = split_token(token, ORGANISER_PREFIX)
        secret = parts[1] if parts else ""
        salt, stored = (row.token_salt, row.token_hash) if row is not None else (None, None)
        if not check_secret(secret, salt, stored) or row is None or row.revoked is not None:
            return None
        self.verified.add(token, row.id, row.token_hash)
        return row


def detail_text(detail: dict[str, Any]) -> str:
    """An audit entry's detail as a reader wants it: ``phase trial: deadline A → B``."""
    changes = detail.get("changes", {})
    head = ", ".join(f"{k} {v}" for k, v in sorted(detail.items()) if k != "changes")
    moved = "; ".join(f"{k} {b} → {a}" for k, (b, a) in sorted(changes.items()))
    return f"{head}: {moved}" if head and moved else head or moved
