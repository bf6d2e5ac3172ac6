"""What an organiser changes in a campaign after creating it, each change audited
(:mod:`.organisers`).

A phase's window and limits:

- ``opens`` and ``deadline`` are times with a zone; the deadline must come after the opening.
  Extending a deadline (also of a phase already closed: it reopens) and closing a phase early
  (``close``: the deadline becomes now) are the same edit. A phase whose opening has passed
  keeps its opening: moving it would change which uploads were on time.
- ``runs`` (scored runs per team and target), ``per_day`` (of them in any 24 hours; 0 lifts
  the limit) and ``max_bytes`` (the upload cap) are whole numbers from 1; ``combine`` is the
  ranking policy (``sum``, ``mean``, ``mean-rank``). Lowering ``runs`` below what a team
  already used takes no run away: its further uploads are refused.
- A published hidden phase cannot be reopened: its scores are public, and an upload after
  them could be tuned to the gold. Unpublish first (:func:`unpublish`).
- A phase whose scores were shown cannot be reopened either (a later deadline for a closed
  phase) without a reason, ``reopen_reason``: a hidden phase once published (unpublishing
  hides the scores, it does not make them unseen), a split phase past its deadline (its
  private board is public: teams would upload and pick final runs knowing the private
  order). With a reason (1 to 500 characters, as an exclusion's), the edit is audited as
  ``reopen`` with it, and the phase's board says so (:func:`reopenings`).

Each edit writes one audit entry holding every field it changed, before and after; an edit
that changes nothing writes none.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select

from simeval.errors import InputError
from simeval.report.leaderboard import COMBINE
from simeval.serve.db import Database
from simeval.serve.db.models import (
    APPROVED,
    DISQUALIFIED,
    REVOKED,
    SCORED,
    WITHDRAWN,
    Announcement,
    AuditEntry,
    Campaign,
    Exclusion,
    Phase,
    Submission,
    Team,
    naive,
    utc,
)
from simeval.serve.service.campaigns import (
    REGISTRATION,
    Registration,
    check_time,
    check_whole,
    excluded_runs,
    find_campaign,
    find_phase,
)
from simeval.serve.service.organisers import COMMAND_LINE, audit

ACTIONS = {DISQUALIFIED: "disqualify", WITHDRAWN: "withdraw"}  # the audit log's words
MAX_REASON = 500  # characters of an exclusion's reason (shown on the leaderboard)


@dataclass(frozen=True)
class PhaseEdit:
    """The fields to change (None: unchanged); ``close`` sets the deadline to now."""

    opens: Any = None
    deadline: Any = None
    runs: Any = None
    max_bytes: Any = None
    close: bool = False
    per_day: Any = None  # 0 lifts the per-day limit
    combine: Any = None  # the ranking policy (report.leaderboard.COMBINE)
    reopen_reason: Any = None  # why a phase whose scores were shown reopens (module docstring)


def _shown(value: Any) -> Any:
    return f"{utc(value):%Y-%m-%dT%H:%M:%SZ}" if isinstance(value, datetime) else value


def edit_phase(
    db: Database, campaign: str, phase: str, edit: PhaseEdit, now: datetime, actor: str
) -> dict[str, tuple[Any, Any]]:
    """Apply ``edit`` to a phase (module docstring); ``{field: (before, after)}`` of what
    changed, also written to the audit log."""
    where = f"{campaign}/{phase}"
    new: dict[str, Any] = {}
    if edit.opens is not None:
        new["opens"] = check_time(edit.opens, f"{where} opens", None)
    if edit.close:
        if edit.deadline is not None:
            raise InputError(None, None, f"{where}: give a new deadline or close, not both")
        new["deadline"] = now
    elif edit.deadline is not None:
        new["deadline"] = check_time(edit.deadline, f"{where} deadline", None)
    if edit.runs is not None:
        new["runs"] = check_whole(edit.runs, f"{where} runs", None)
    if edit.max_bytes is not None:
        new["max_bytes"] = check_whole(edit.max_bytes, f"{where} max_bytes", None)
    if edit.per_day is not None:  # 0: no per-day limit
        lifted = edit.per_day == 0 and not isinstance(edit.per_day, bool)
        new["per_day"] = None if lifted else check_whole(edit.per_day, f"{where} per_day", None)
    if edit.combine is not None:
        if edit.combine not in COMBINE:
            raise InputError(None, None, f"{where}: combine {edit.combine!r}: use "
                             f"{', '.join(COMBINE)}")  # fmt: skip
        new["combine"] = edit.combine
    with db.session() as s:
        p = find_phase(s, campaign, phase)
        _check(p, new, edit.close, now, where)
        shown = _reopens_shown(s, p, new, now)
        if shown is not None and edit.reopen_reason is None:
            raise InputError(None, None, f"{where}: its {shown}; reopening it lets "
                             "teams upload (and pick final runs) knowing them. To reopen it "
                             "anyway give a reason (reopen_reason: --reopen-reason, or the "
                             "console's field), shown on its leaderboard")  # fmt: skip
        reason = None if shown is None else check_reason(edit.reopen_reason)
        changed = {}
        for key, value in new.items():
            before = getattr(p, key)
            stored = naive(value) if isinstance(value, datetime) else value
            if before != stored:
                changed[key] = (_shown(before), _shown(stored))
                setattr(p, key, stored)
        if changed and reason is not None:
            audit(s, now, actor, p.campaign_id, REOPEN, phase=p.name, reason=reason, shown=shown,
                  changes={k: list(v) for k, v in changed.items()})  # fmt: skip
        elif changed:
            audit(s, now, actor, p.campaign_id, "edit phase", phase=p.name,
                  changes={k: list(v) for k, v in changed.items()})  # fmt: skip
    return changed


REOPEN = "reopen"  # the audit log's action of a reopening after the scores were shown
PUBLISHED = "scores were published"  # a hidden phase (published then, or still)
PRIVATE_SHOWN = "private scores were shown"  # a split phase past its deadline


def _reopens_shown(s: Any, p: Phase, new: dict[str, Any], now: datetime) -> str | None:
    """How ``p``'s scores were shown (:data:`PUBLISHED`, :data:`PRIVATE_SHOWN`) when the edit
    ``new`` reopens it (a closed phase, a deadline after ``now``); None when it does not
    reopen it or nothing was shown."""
    from simeval.serve.service.split_rule import is_split, revealed

    if "deadline" not in new or new["deadline"] <= now or now < utc(p.deadline):
        return None
    if p.hidden and _ever_published(s, p):
        return PUBLISHED
    if is_split(p) and revealed(p, now):
        return PRIVATE_SHOWN
    return None


def _ever_published(s: Any, p: Phase) -> bool:
    """Whether ``p`` is or was published (the audit log keeps every publication)."""
    if p.published is not None:
        return True
    entries = s.scalars(
        select(AuditEntry.detail).where(
            AuditEntry.campaign_id == p.campaign_id, AuditEntry.action == "publish"
        )
    )
    return any((d or {}).get("phase") == p.name for d in entries)


def reopenings(db: Database, phase: Phase) -> list[tuple[datetime, str, str]]:
    """``(when, what was shown, reason)`` of each time ``phase`` was reopened after its
    scores were shown (module docstring), oldest first: what its board says."""
    with db.reading() as s:
        rows = s.execute(
            select(AuditEntry.at, AuditEntry.detail)
            .where(AuditEntry.campaign_id == phase.campaign_id, AuditEntry.action == REOPEN)
            .order_by(AuditEntry.at, AuditEntry.id)
        ).all()
    return [(utc(at), str(d.get("shown", "")), str(d.get("reason", "")))
            for at, d in rows if (d or {}).get("phase") == phase.name]  # fmt: skip


def check_reason(reason: Any) -> str:
    """A reason shown on a leaderboard (an exclusion's, a reopening's): its whitespace
    collapsed, 1 to :data:`MAX_REASON` characters, no control or format character (a bidi
    override would turn the words around)."""
    reason = " ".join(str(reason).split())
    hidden = any(unicodedata.category(ch) in ("Cc", "Cf") for ch in reason)
    if not reason or len(reason) > MAX_REASON or hidden:
        raise InputError(
            None,
            None,
            f"give a reason of 1 to {MAX_REASON} characters without control characters "
            "(it is shown on the leaderboard)",
        )
    return reason


def _check(p: Phase, new: dict[str, Any], closing: bool, now: datetime, where: str) -> None:
    opens = new.get("opens", utc(p.opens))
    deadline = new.get("deadline", utc(p.deadline))
    if "opens" in new and utc(p.opens) <= now and naive(new["opens"]) != p.opens:
        raise InputError(None, None, f"{where} opened at {_shown(p.opens)}: its opening stays")
    if closing:
        if now < opens:
            raise InputError(None, None, f"{where} has not opened yet: nothing to close")
        if utc(p.deadline) <= now:
            raise InputError(None, None, f"{where} closed at {_shown(p.deadline)} already")
    if deadline <= opens:
        raise InputError(None, None, f"{where}: the deadline must come after the opening")
    if p.published is not None and deadline > now:
        raise InputError(None, None, f"{where} is published: unpublish it before reopening it")


def publish(
    db: Database, campaign: str, phase: str, now: datetime, actor: str = COMMAND_LINE
) -> Phase:
    """Show a hidden phase's scores; only once its deadline has passed on the server clock."""
    return _published(db, campaign, phase, True, now, actor)


def unpublish(
    db: Database, campaign: str, phase: str, now: datetime, actor: str = COMMAND_LINE
) -> Phase:
    """Hide a published phase's scores again (its leaderboard shows them to nobody)."""
    return _published(db, campaign, phase, False, now, actor)


def _published(
    db: Database, campaign: str, phase: str, published: bool, now: datetime, actor: str
) -> Phase:
    with db.session() as s:
        p = find_phase(s, campaign, phase)
        if published and now < utc(p.deadline):
            raise InputError(
                None, None, f"{phase} closes at {utc(p.deadline):%Y-%m-%d %H:%M} UTC: publish after"
            )
        if (p.published is not None) != published:
            p.published = naive(now) if published else None
            audit(s, now, actor, p.campaign_id, "publish" if published else "unpublish",
                  phase=p.name)  # fmt: skip
    return p


def set_registration(
    db: Database,
    campaign: str,
    state: str | None = None,
    max_teams: int | None = None,
    now: datetime | None = None,
    actor: str = COMMAND_LINE,
) -> Registration:
    """Open or close a campaign's registration, or set its team cap (0: none); audited."""
    if state is not None and state not in REGISTRATION:
        raise InputError(None, None, f"registration {state!r}: use open, approval or closed")
    if max_teams:  # 0 lifts the cap
        max_teams = check_whole(max_teams, f"{campaign} max_teams", None)
    with db.session() as s:
        c = find_campaign(s, campaign)
        before = Registration(c.registration, c.max_teams)
        if state is not None:
            c.registration = state
        if max_teams is not None:
            c.max_teams = max_teams or None
        after = Registration(c.registration, c.max_teams)
        if after != before:
            audit(s, now or datetime.now(UTC), actor, c.id, "registration",
                  changes={k: [getattr(before, k), getattr(after, k)]
                           for k in ("state", "max_teams")
                           if getattr(before, k) != getattr(after, k)})  # fmt: skip
        return after


def exclude_run(
    db: Database,
    campaign: str,
    phase: str,
    team: str,
    run: int,
    kind: str,
    reason: str,
    now: datetime,
    actor: str = COMMAND_LINE,
    target: str | None = None,
) -> None:
    """Disqualify or withdraw a team's run n of a phase (every target's n-th scored file, or
    ``target``'s only: the run keeps its row, that target's cell empty): kept and shown with
    ``reason``, ranked nowhere (on that target), and still counted against the team's runs
    (else excluding would hand out a fresh try). Excluding it again (on the same target, or
    on every one) changes the kind or the reason."""
    if kind not in (DISQUALIFIED, WITHDRAWN):
        raise InputError(None, None, f"{kind!r}: a run is {DISQUALIFIED} or {WITHDRAWN}")
    reason = check_reason(reason)
    where = f"{campaign}/{phase}"
    with db.session() as s:
        p = find_phase(s, campaign, phase)
        if target is not None and target not in p.targets:
            raise InputError(None, None, f"{where} has no target {target!r}; its targets: "
                             f"{', '.join(p.targets)}")  # fmt: skip
        t = _team(s, campaign, team)
        scored = s.scalars(
            select(Submission.target).where(
                Submission.phase_id == p.id, Submission.team_id == t.id, Submission.run == run,
                Submission.status == SCORED,
            )
        ).all()  # fmt: skip
        if not scored:
            raise InputError(None, None, f"{team} has no scored run {run} in {where}")
        if target is not None and target not in scored:
            on = ", ".join(sorted(scored))
            raise InputError(None, None, f"{team} has no scored run {run} on {target} in "
                             f"{where}; its run {run} is on {on}")  # fmt: skip
        row = s.scalar(
            select(Exclusion).where(
                Exclusion.phase_id == p.id, Exclusion.team_id == t.id, Exclusion.run == run,
                _on(target),
            )
        )  # fmt: skip
        before = None if row is None else [row.kind, row.reason]
        if row is None:
            row = Exclusion(phase_id=p.id, team_id=t.id, run=run, target=target, kind=kind,
                            reason=reason, at=naive(now))  # fmt: skip
            s.add(row)
        row.kind, row.reason = kind, reason
        if before != [kind, reason]:
            audit(s, now, actor, p.campaign_id, ACTIONS[kind], phase=p.name,
                  run=f"{team} run {run}", reason=reason, **_named(target))  # fmt: skip


def _named(target: str | None) -> dict[str, str]:
    """The audit entry's detail naming the exclusion's target (none for a whole run's)."""
    return {} if target is None else {"target": target}


def _on(target: str | None) -> Any:
    """The condition of an exclusion of ``target`` (None: the whole run's, whose NULL target
    only IS NULL matches: NULLs are distinct, so the database's constraint cannot find it)."""
    return Exclusion.target.is_(None) if target is None else Exclusion.target == target


def reinstate_run(
    db: Database, campaign: str, phase: str, team: str, run: int, now: datetime,
    actor: str = COMMAND_LINE, target: str | None = None,
) -> None:  # fmt: skip
    """Rank an excluded run again, on every target or on ``target`` (the exclusion of that
    target is removed; the audit log keeps it)."""
    with db.session() as s:
        p = find_phase(s, campaign, phase)
        row = s.scalar(
            select(Exclusion).join(Team).where(
                Exclusion.phase_id == p.id, Team.name == team, Exclusion.run == run, _on(target)
            )
        )  # fmt: skip
        on = "" if target is None else f" on {target}"
        if row is None:
            raise InputError(None, None, f"{team} run {run}{on} of {campaign}/{phase} is not "
                             "excluded")  # fmt: skip
        s.delete(row)
        audit(s, now, actor, p.campaign_id, "reinstate", phase=p.name, run=f"{team} run {run}",
              **_named(target))  # fmt: skip


def exclusions(db: Database, phase_id: int) -> dict[tuple[str, str | None], tuple[str, str]]:
    """``{("<team> run <n>", target): (kind, reason)}`` of a phase's excluded runs (target
    None: excluded on every target), by team, run and target."""
    with db.reading() as s:
        rows = excluded_runs(s, Exclusion.phase_id == phase_id)
    return {(f"{team} run {run}", target): (kind, reason)
            for _, team, run, kind, reason, target in rows}  # fmt: skip


TEAM_ACTIONS = {"approve": APPROVED, "revoke": REVOKED}


def set_team_status(
    db: Database, campaign: str, team: str, action: str, now: datetime, actor: str = COMMAND_LINE
) -> str:
    """Approve a team (its uploads open) or revoke its registration (no more uploads; its
    runs stay on the board unless excluded); the new status."""
    if action not in TEAM_ACTIONS:
        raise InputError(None, None, f"{action!r}: approve or revoke a team")
    with db.session() as s:
        row = _team(s, campaign, team)
        before, row.status = row.status, TEAM_ACTIONS[action]
        if before != row.status:
            audit(s, now, actor, row.campaign_id, action, team=row.name,
                  changes={"status": [before, row.status]})  # fmt: skip
        return row.status


def rename_team(
    db: Database, campaign: str, team: str, new: str, now: datetime, actor: str = COMMAND_LINE
) -> str:
    """Give a team another name (the same rules as at registration, and free in the
    campaign, whatever its case or look-alike letters); its runs are shown under it."""
    from simeval.serve.db.names import check_team_name, look_alike, name_key

    try:
        new = check_team_name(new)
    except ValueError as exc:
        raise InputError(None, None, f"team name {new!r}: {exc}") from None
    with db.session() as s:
        row = _team(s, campaign, team)
        others = s.scalars(
            select(Team.name).where(Team.campaign_id == row.campaign_id, Team.id != row.id)
        ).all()
        if look_alike(new, others):
            raise InputError(None, None, f"the team name {new!r} is taken (or looks like one)")
        if new != row.name:
            audit(s, now, actor, row.campaign_id, "rename team",
                  changes={"name": [row.name, new]})  # fmt: skip
            row.name, row.name_key = new, name_key(new)
        return row.name


def _team(s: Any, campaign: str, team: str) -> Team:
    row = s.scalar(select(Team).join(Campaign).where(Campaign.name == campaign, Team.name == team))
    if row is None:
        raise InputError(None, None, f"no team {team!r} in a campaign {campaign!r}")
    return row


MAX_TEXT = 20_000  # characters of a campaign's description or terms (the form's cap allows)


def set_texts(
    db: Database,
    campaign: str,
    description: str | None,
    terms: str | None,
    now: datetime,
    actor: str = COMMAND_LINE,
) -> None:
    """Replace a campaign's description or terms (Markdown; None: unchanged). Teams that
    registered before accepted the earlier terms: the audit log keeps both texts' digests."""
    import hashlib

    with db.session() as s:
        c = find_campaign(s, campaign)
        changes = {}
        for key, value in (("description", description), ("terms", terms)):
            if value is None:
                continue
            value = value.replace("\r\n", "\n")
            if len(value) > MAX_TEXT or "\x00" in value:
                raise InputError(None, None, f"{key}: text of at most {MAX_TEXT:,} characters")
            if value != getattr(c, key):
                digest = [hashlib.sha256(v.encode()).hexdigest()[:12]
                          for v in (getattr(c, key), value)]  # fmt: skip
                changes[key] = digest
                setattr(c, key, value)
        if changes:
            audit(s, now, actor, c.id, "edit texts", changes=changes)


def rotate_token(
    db: Database, campaign: str, team: str, now: datetime | None = None, actor: str = COMMAND_LINE
) -> str:
    """A new token for ``team`` (shown once); the old one stops working at once, also in a
    running server (its cache of checked tokens compares the stored hash). Audited, without
    the token."""
    from simeval.serve.service.security import new_token

    token = new_token()
    with db.session() as s:
        row = _team(s, campaign, team)
        row.token_key, row.token_salt, row.token_hash = token.key, token.salt, token.hash
        audit(s, now or datetime.now(UTC), actor, row.campaign_id, "reset token", team=row.name)
    return token.token


def set_baseline(
    db: Database, campaign: str, team: str, on: bool, now: datetime, actor: str = COMMAND_LINE
) -> None:
    """Mark a team as the organisers' baseline (its runs shown, marked, never ranked among
    the teams) or as a team again."""
    with db.session() as s:
        row = _team(s, campaign, team)
        if row.baseline != on:
            audit(s, now, actor, row.campaign_id, "baseline" if on else "not a baseline",
                  team=row.name)  # fmt: skip
            row.baseline = on


MAX_TITLE = 200  # characters of an announcement's title (its column)


def announce(
    db: Database, campaign: str, title: str, body: str, now: datetime, actor: str = COMMAND_LINE
) -> int:
    """Post an announcement (a title, and Markdown) on the campaign's page; its id."""
    title = " ".join(title.split())
    if not title or len(title) > MAX_TITLE:
        raise InputError(None, None, f"an announcement has a title of 1 to {MAX_TITLE} characters")
    if len(body) > MAX_TEXT or "\x00" in body:
        raise InputError(None, None, f"an announcement's text has at most {MAX_TEXT:,} characters")
    with db.session() as s:
        c = find_campaign(s, campaign)
        row = Announcement(campaign_id=c.id, at=naive(now), title=title,
                           body=body.replace("\r\n", "\n"))  # fmt: skip
        s.add(row)
        s.flush()
        audit(s, now, actor, c.id, "announce", title=title)
        return row.id


def withdraw_announcement(
    db: Database, campaign: str, announcement: int, now: datetime, actor: str = COMMAND_LINE
) -> None:
    """Take an announcement off the campaign's page (the audit log keeps its title)."""
    with db.session() as s:
        row = s.scalar(
            select(Announcement).join(Campaign, Announcement.campaign_id == Campaign.id).where(
                Campaign.name == campaign, Announcement.id == announcement
            )
        )  # fmt: skip
        if row is None:
            raise InputError(None, None, f"no announcement {announcement} in {campaign!r}")
        audit(s, now, actor, row.campaign_id, "withdraw announcement", title=row.title)
        s.delete(row)


def announcements(db: Database, campaign_id: int) -> list[Announcement]:
    """A campaign's announcements, newest first."""
    with db.reading() as s:
        return list(
            s.scalars(
                select(Announcement)
                .where(Announcement.campaign_id == campaign_id)
                .order_by(Announcement.at.desc(), Announcement.id.desc())
            )
        )
