"""Receiving submissions: who may upload what and when, scoring, recording.

One upload goes through :meth:`Service.admit` (team, phase open on the server clock, target
of the phase, runs left), is streamed to disk by the caller (:mod:`.storage`, size-capped),
then :meth:`Service.record` checks the clock again, scores the file with
:func:`simeval.kinds.scoring.score_submission` — the path of ``simeval score`` — and records it:

- a file the task's reader refuses is recorded as ``rejected`` with the error exactly as
  ``simeval score`` prints it, the stored name replaced by the client's; it takes no run;
- in a hidden phase a file is refused only for what the phase's input file shows, and an error
  that needs the gold is kept with a run that counts (:mod:`.hidden` states the rule);
- a scored file takes the next run number inside one transaction; the unique
  (team, phase, target, run) constraint makes a second writer with the same number fail, and
  it then counts again (so the limit holds exactly under concurrency, on any dialect).

The uploads of one team to one target are recorded one after another (a lock in this
process), and each counts the runs left again before it is scored, so a file sent while the
last runs are being scored waits for them and is refused without being scored
(``benchmarks/serve_load.py`` measures it). This only saves work: the limit itself is the
constraint's.
"""

from __future__ import annotations

import logging
import math
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from simeval.errors import InputError
from simeval.serve.db import Database
from simeval.serve.db.models import (
    APPROVED,
    PENDING,
    REJECTED,
    REVOKED,
    SCORED,
    Campaign,
    FactSheet,
    Phase,
    Submission,
    Team,
    naive,
    utc,
)
from simeval.serve.db.names import check_team_name, look_alike, name_key
from simeval.serve.db.storage import Storage, Upload
from simeval.serve.service.board_cache import Boards
from simeval.serve.service.campaigns import Targets
from simeval.serve.service.gold import job_gold, replaced
from simeval.serve.service.limits import next_run_at, per_day_text
from simeval.serve.service.organisers import OrganiserTokens
from simeval.serve.service.refused import Refused
from simeval.serve.service.results import results_file
from simeval.serve.service.scoring import Job, Scorers
from simeval.serve.service.security import (
    NewToken,
    VerifiedTokens,
    check_secret,
    new_token,
    split_token,
)
from simeval.serve.service.tiers import MAX_RUNS, BoardTiers

log = logging.getLogger("simeval.serve")
MAX_FACT_SHEET = 20_000  # characters of a fact sheet (the team's form fits in TEXT_FORM)
FACT_SHEET_GRACE = timedelta(days=7)  # a visible phase's fact sheets stay open this long
Clock = Callable[[], datetime]
RETRIES = 20
NO_TIERS: dict[str, Any] = {}  # a board's tiers when none are computed (never changed)


def shown_name(client_name: str | None) -> str:
    """The client's file name as shown in messages: its last part, printable, at most 100
    characters. It is never used as a path."""
    name = re.split(r"[/\\]", client_name or "")[-1]
    name = "".join(c for c in name if c.isprintable()).strip()[:100]
    return name if name not in ("", ".", "..") else "upload"


def no_runs(used: int, runs: int, target: str, phase: str) -> str:
    """Why an upload is refused with 409 (at admission, before scoring, or at the insert)."""
    return f"no runs left: {used} of {runs} used on {target} in {phase}"


@dataclass(frozen=True)
class Ticket:
    """An admitted upload: the phase's ids and limits, fixed before reading the body."""

    team_id: int
    team: str
    phase_id: int
    phase: str
    target: str
    registry: list[str]
    runs: int
    max_bytes: int
    deadline: datetime
    hidden: bool
    per_day: int | None = None  # scored runs per target in any 24 hours (:mod:`.limits`)
    secret: str | None = None  # the campaign's input secret (simeval.kinds.handout)

    @classmethod
    def of(cls, team_id: int, team: str, p: Phase, target: str, c: Campaign) -> Ticket:
        """The ticket of an upload by team ``team`` to ``target`` of phase ``p`` of ``c``
        (read inside the session that loaded ``c``)."""
        return cls(team_id, team, p.id, p.name, target, list(c.registry_files), p.runs,
                   p.max_bytes, utc(p.deadline), p.hidden, p.per_day,
                   c.input_secret)  # fmt: skip


class Recorded(NamedTuple):
    """A recorded upload: its row and the error that refused it (None when it took a run)."""

    row: Submission
    error: InputError | None


def error_view(error: InputError) -> dict[str, Any]:
    return {"error": str(error), "file": error.path, "line": error.line, "message": error.message}


class Service:
    """The server's rules over a database and a storage folder (module docstring)."""

    def __init__(self, db: Database, storage: Storage, clock: Clock, scorers: int = 0) -> None:
        self.db = db
        self.storage = storage
        self.clock = clock
        self.targets = Targets()
        self.scorers = Scorers(scorers, self.targets)  # :mod:`.scoring`
        self.verified = VerifiedTokens()
        self.organisers = OrganiserTokens(db)  # :mod:`.organisers`
        self._turns: dict[tuple[int, int, str], threading.Lock] = {}
        self._turns_lock = threading.Lock()
        self.boards = Boards(db)  # the kept leaderboards: :mod:`.board_cache`
        # each board's rank tiers, computed aside (:mod:`.tiers`), in a process of their own
        # when the uploads are scored in processes
        self.board_tiers = BoardTiers(process=scorers > 0)

    def close(self) -> None:
        """Stop the scoring processes and the tiers' thread (the server is shutting down)."""
        self.scorers.close()
        self.board_tiers.close()

    # teams

    def register(
        self,
        campaign: str,
        team: str,
        token: NewToken | None = None,
        accept_terms: bool = False,
    ) -> str:
        """Add a team named ``team`` (NFKC; :mod:`.names`) if the campaign's registration is
        open (or waits for approval: the team is then ``pending``) and below its cap, and the
        team accepts the campaign's terms when it has some; returns its token (shown once,
        stored hashed). ``token``: one made beforehand (the server makes it in its hashing
        threads). A revoked team still counts against the cap."""
        try:
            team = check_team_name(team)
        except ValueError as exc:
            raise Refused(422, f"team name {team!r}: {exc}") from None
        key = name_key(team)
        token = token or new_token()
        taken = Refused(409, f"the team name {team!r} is taken (or looks like one that is)")
        try:
            with self.db.session() as s:  # the campaign's row locked: the cap holds exactly
                c = s.scalar(select(Campaign).where(Campaign.name == campaign).with_for_update())
                if c is None:
                    raise Refused(404, f"no campaign {campaign!r}")
                if c.registration == "closed":
                    raise Refused(403, f"registration to {campaign} is closed; ask the organiser")
                if c.terms.strip() and not accept_terms:
                    raise Refused(
                        422, f"accept the terms of {campaign} to register (its page shows them)"
                    )
                names = s.scalars(select(Team.name).where(Team.campaign_id == c.id)).all()
                if c.max_teams is not None and len(names) >= c.max_teams:
                    raise Refused(
                        403, f"{campaign} has its {c.max_teams} teams; registration is closed"
                    )
                if look_alike(team, names):  # every name's keys recomputed
                    raise taken
                s.add(
                    Team(
                        campaign_id=c.id,
                        name=team,
                        name_key=key,
                        token_key=token.key,
                        token_salt=token.salt,
                        token_hash=token.hash,
                        created=naive(self.clock()),
                        status=PENDING if c.registration == "approval" else APPROVED,
                        terms_accepted=naive(self.clock()) if c.terms.strip() else None,
                    )
                )
        except IntegrityError:
            raise taken from None
        log.info("team %s registered in %s", team, campaign)
        return token.token

    def authenticate(self, token: str | None) -> Team | None:
        """The team holding ``token``, or None: :meth:`cached`, else :meth:`token_row` and
        one scrypt (the server runs these steps apart: :func:`.security.hashing`)."""
        parts = split_token(token or "")
        if parts is None:
            return None
        assert token is not None
        team = self.cached(token)
        if team is None:
            team = self.token_row(parts[0])
            team = self.verify(token, team)
        return team

    def cached(self, token: str) -> Team | None:
        """The team of a token checked before, if its row still holds the hash it had then."""
        known = self.verified.get(token)
        if known is None:
            return None
        with self.db.reading() as s:
            team = s.get(Team, known[0])
        if team is None or team.token_hash != known[1]:
            self.verified.forget(token)
            return None
        return team

    def token_row(self, key: str) -> Team | None:
        """The team whose token has this key (no secret checked)."""
        with self.db.reading() as s:
            return s.scalar(select(Team).where(Team.token_key == key))

    def verify(self, token: str, team: Team | None) -> Team | None:
        """``team`` if ``token``'s secret is its secret: one scrypt in every case, also for an
        unknown key (``team`` None), and no database connection held meanwhile."""
        parts = split_token(token)
        secret = parts[1] if parts else ""
        salt, stored = (team.token_salt, team.token_hash) if team is not None else (None, None)
        if not check_secret(secret, salt, stored) or team is None:
            return None
        self.verified.add(token, team.id, team.token_hash)
        return team

    @staticmethod
    def _rejections(s: Any, team_id: int, since: datetime) -> int:
        """Rejected uploads of the team received since ``since`` (counted in ``s``)."""
        return s.scalar(
            select(func.count())
            .select_from(Submission)
            .where(
                Submission.team_id == team_id,
                Submission.status == REJECTED,
                Submission.received >= naive(since),
            )
        )

    def check_rejections(self, team: Team, per_day: int, s: Any = None) -> None:
        """Refuse (429) a team that sent ``per_day`` rejected uploads in the last 24 hours
        (0: no limit); checked before the body is read (in ``s``, or a session of its own)."""
        if per_day <= 0:
            return
        if s is None:
            with self.db.reading() as s:
                return self.check_rejections(team, per_day, s)
        if self._rejections(s, team.id, self.clock() - timedelta(days=1)) >= per_day:
            raise Refused(
                429, f"{per_day} rejected uploads in 24 hours; check your files with simeval score"
            )

    def prune_rejected(self, team_id: int, keep: int, days: float) -> list[str]:
        """Remove the stored bytes of the team's rejected uploads beyond its ``keep`` latest
        or older than ``days``; their rows stay (the export marks them ``pruned``)."""
        cutoff = naive(self.clock() - timedelta(days=days))
        with self.db.reading() as s:
            found = s.execute(
                select(Submission.id, Submission.received)
                .where(Submission.team_id == team_id, Submission.status == REJECTED)
                .order_by(Submission.received.desc(), Submission.id)
            ).all()
        pruned = []
        for i, (sid, received) in enumerate(found):
            if (i >= keep or received < cutoff) and self.storage.folder(sid).exists():
                self.storage.drop(sid)
                pruned.append(sid)
        return pruned

    def check_runs_left(self, team: Team, p: Phase, s: Any) -> None:
        """Refuse (409) before the body is read when no target of ``p`` has a run left (the
        web form names its target inside the body); counted in ``s``."""
        used = {t: self._runs_used(s, team.id, p.id, t) for t in p.targets}
        if all(n >= p.runs for n in used.values()):
            target = p.targets[0] if len(p.targets) == 1 else "every target"
            raise Refused(409, no_runs(min(used.values()), p.runs, target, p.name))

    # uploads

    def phase(self, campaign_id: int, name: str, s: Any = None) -> Phase:
        """The campaign's phase ``name`` (read in ``s``, or a session of its own), or 404."""
        if s is None:
            with self.db.reading() as s:
                return self.phase(campaign_id, name, s)
        p = s.scalar(select(Phase).where(Phase.campaign_id == campaign_id, Phase.name == name))
        if p is None:
            raise Refused(404, f"no phase {name!r} in this campaign")
        return p

    def _runs_used(self, s: Any, team_id: int, phase_id: int, target: str) -> int:
        return s.scalar(
            select(func.count())
            .select_from(Submission)
            .where(
                Submission.team_id == team_id,
                Submission.phase_id == phase_id,
                Submission.target == target,
                Submission.status == SCORED,
            )
        )

    def open_phase(self, team: Team, phase_name: str, s: Any = None) -> Phase:
        """The team's phase ``phase_name`` (read in ``s``, or a session of its own), if it
        takes uploads now (server clock) and the team may upload (approved)."""
        if team.status == PENDING:
            raise Refused(403, "your team waits for the organiser's approval; uploads open then")
        if team.status == REVOKED:
            raise Refused(403, "the organiser revoked your team's registration")
        p = self.phase(team.campaign_id, phase_name, s)
        now = self.clock()
        if now < utc(p.opens):
            raise Refused(403, f"{p.name} opens at {utc(p.opens):%Y-%m-%d %H:%M} UTC")
        if now > utc(p.deadline):
            raise Refused(403, f"{p.name} closed at {utc(p.deadline):%Y-%m-%d %H:%M} UTC")
        return p

    def admit(
        self, team: Team, phase_name: str, target: str | None, rejected_per_day: int = 0
    ) -> Ticket:
        """Check everything that can be checked before the file is read, in one database
        session (an upload's every read counts under a stream of uploads): the team's
        rejected uploads (:meth:`check_rejections`), the phase open to it, the target, the
        runs left."""
        with self.db.reading() as s:
            self.check_rejections(team, rejected_per_day, s)
            p = self.open_phase(team, phase_name, s)
            if target is None or target == "":
                if len(p.targets) != 1:
                    raise Refused(422, f"name the target: one of {', '.join(p.targets)}")
                target = p.targets[0]
            if target not in p.targets:
                shown = ", ".join(p.targets)
                raise Refused(422, f"{target!r} is not a target of {p.name}: {shown}")
            ticket = Ticket.of(team.id, team.name, p, target, s.get_one(Campaign, team.campaign_id))
            self._runs_left(s, ticket, self.clock())
        return ticket

    def admit_form(self, team: Team, phase_name: str, rejected_per_day: int = 0) -> Phase:
        """What :meth:`admit` checks before the web form's body is read, in one database
        session, where the target is still unknown (it comes inside the body): the phase
        open to the team, its rejected uploads, a run left on some target."""
        with self.db.reading() as s:
            p = self.open_phase(team, phase_name, s)
            self.check_rejections(team, rejected_per_day, s)
            self.check_runs_left(team, p, s)
        return p

    def _runs_left(self, s: Any, ticket: Ticket, at: datetime) -> int:
        """The runs the team used on the ticket's target (counted in ``s``), refused (409)
        when none is left or the per-day limit is reached ``at`` that moment."""
        used = self._runs_used(s, ticket.team_id, ticket.phase_id, ticket.target)
        if used >= ticket.runs:
            raise Refused(409, no_runs(used, ticket.runs, ticket.target, ticket.phase))
        if ticket.per_day is None:
            return used
        next_at = next_run_at(s, ticket.team_id, ticket.phase_id, ticket.target, ticket.per_day, at)
        if next_at is not None:
            wait = str(max(1, math.ceil((next_at - at).total_seconds())))
            text = per_day_text(ticket.per_day, ticket.target, ticket.phase, next_at)
            raise Refused(409, text, {"retry-after": wait})
        return used

    def record(
        self,
        ticket: Ticket,
        upload: Upload,
        client_name: str | None,
        carried_from: str | None = None,
    ) -> Recorded:
        """Score a received upload and record it (module docstring); the upload is kept
        or discarded, never left half-way. ``carried_from``: the submission of an earlier
        phase whose stored file this is (:mod:`.carry`)."""
        name = shown_name(client_name)
        received = self.clock()
        if received > ticket.deadline:
            upload.discard()
            raise Refused(403, f"{ticket.phase} closed at {ticket.deadline:%Y-%m-%d %H:%M} UTC")
        with self._turn(ticket):
            return self._record(ticket, upload, name, received, carried_from)

    def _turn(self, ticket: Ticket) -> threading.Lock:
        """The lock that orders the uploads of one team to one target of a phase."""
        with self._turns_lock:
            return self._turns.setdefault(
                (ticket.team_id, ticket.phase_id, ticket.target), threading.Lock()
            )

    def _record(
        self,
        ticket: Ticket,
        upload: Upload,
        name: str,
        received: datetime,
        carried_from: str | None = None,
    ) -> Recorded:
        try:
            with self.db.reading() as s:  # never waits for a writer: _insert counts for good
                self._runs_left(s, ticket, received)
                files = replaced(s, self.storage.root, phase_id=ticket.phase_id)
            job = Job(
                tuple(ticket.registry),
                ticket.target,
                str(upload.folder),
                upload.sha256,
                name,
                ticket.max_bytes,
                ticket.hidden,
                job_gold(self.targets.registry(ticket.registry), ticket.target, files),
                ticket.secret,
            )
            answer = self.scorers(job)
        except Exception:
            upload.discard()
            raise
        refused = answer.results is None
        row = Submission(
            id=upload.id,
            team_id=ticket.team_id,
            phase_id=ticket.phase_id,
            target=ticket.target,
            status=REJECTED if refused else SCORED,
            client_name=name,
            sha256=upload.sha256,
            size=upload.size,
            received=naive(received),
            error=str(answer.error) if answer.error else None,
            results=answer.results,
            warnings=list(answer.warnings) if ticket.hidden else None,
            results_file=None if refused else results_file(self.storage, upload.id),
            carried_from=carried_from,
        )
        try:
            self.storage.keep(upload)
        except BaseException:  # renamed or not: neither place keeps it
            upload.discard()
            self.storage.drop(upload.id)
            raise
        try:
            row = self._insert(row, ticket)
        except BaseException:
            self.storage.drop(upload.id)
            raise
        self.boards.recorded(ticket.phase_id)  # the phase's board is built again
        if not refused and self.boards.shown(ticket.phase_id) <= MAX_RUNS:
            # the new board's tiers start now, not at the next page view; a board already
            # past MAX_RUNS gets none (:mod:`.tiers`), so nothing is built for them
            self.board_tiers.soon(ticket.phase_id, lambda: self._refresh_tiers(ticket.phase_id))
        log.info(
            "submission %s by %s to %s/%s: %s%s",
            row.id,
            ticket.team,
            ticket.phase,
            ticket.target,
            row.status,
            f" run {row.run}" if row.run is not None else " (no run used)",
        )
        return Recorded(row, answer.error if refused else None)

    def _insert(self, row: Submission, ticket: Ticket) -> Submission:
        """Commit ``row``; a scored one takes the next free run number or is refused."""
        for _ in range(RETRIES):
            try:
                with self.db.session() as s:
                    if row.status == SCORED:
                        row.run = self._runs_left(s, ticket, utc(row.received)) + 1
                    s.add(row)
                return row
            except IntegrityError:  # another upload took that run number first: count again
                row = _fresh(row)
        raise Refused(503, "the server is busy; send the file again")

    # reading

    def phase_by_id(self, phase_id: int) -> Phase:
        with self.db.reading() as s:
            return s.get_one(Phase, phase_id)

    def campaigns(self) -> list[tuple[str, str]]:
        with self.db.reading() as s:
            return [(c.name, c.title) for c in s.scalars(select(Campaign).order_by(Campaign.id))]

    def campaign(self, name: str) -> tuple[Campaign, list[Phase]]:
        with self.db.reading() as s:
            c = s.scalar(select(Campaign).where(Campaign.name == name))
            if c is None:
                raise Refused(404, f"no campaign {name!r}")
            return c, list(c.phases)

    def campaign_name(self, campaign_id: int) -> str:
        with self.db.reading() as s:
            return s.get_one(Campaign, campaign_id).name

    def submissions(self, team_id: int) -> list[tuple[Submission, Phase]]:
        """The team's submissions with their phases (loaded), newest first."""
        with self.db.reading() as s:
            subs = s.scalars(
                select(Submission)
                .where(Submission.team_id == team_id)
                .order_by(Submission.received.desc(), Submission.id)
            ).all()
            return [(sub, sub.phase) for sub in subs]

    def leaderboard(self, campaign: str, phase: str, part: str | None = None) -> tuple[Phase, Any]:
        """The phase and its live table (every run; None while its scores are hidden). A
        split phase's (:mod:`.split_rule`): ``part`` ``public`` (every run on the public items) or
        ``private`` (each team's final runs on the rest, once revealed); by default the
        private board once revealed, else the public one."""
        from simeval.serve.service.split_rule import board_part

        c, phases = self.campaign(campaign)
        p = next((x for x in phases if x.name == phase), None)
        if p is None:
            raise Refused(404, f"no phase {phase!r} in {campaign}")
        if p.hidden and p.published is None:
            return p, None
        part = board_part(p, self.clock(), part)
        rows = None if part is None else (lambda: self._split_rows(p, part))
        return p, self.boards.table(c, p, part, rows)

    def tiers(self, p: Phase, table: Any) -> Any:
        """The rank tiers of ``table``, phase ``p``'s current board (:meth:`leaderboard`):
        ``{benchmark: Tiers}``, or None while they are computed in the background (the first
        call for a table starts it) and for a hidden board (None)."""
        from simeval.serve.service.split_rule import is_split

        if table is None:
            return None
        # none computed: a split board's would read every item's rows, the private ones too
        # (:mod:`.split_rule`); a board above MAX_RUNS runs gets none (:mod:`.tiers`). One
        # object: the answer kept with a table knows its tiers by identity
        if not table.rows or is_split(p) or len(table.rows) > MAX_RUNS:
            return NO_TIERS
        return self.board_tiers.get(p.id, table, lambda: self._compute_tiers(p.id, table))

    def _compute_tiers(self, phase_id: int, table: Any) -> Any:
        """The tiers of the runs ``table`` ranks (:meth:`tier_runs`), here or in the tiers'
        process (:mod:`.tiers`); :meth:`tiers` asks only for boards of at most MAX_RUNS."""
        return self.board_tiers.run(*self.tier_runs(phase_id, table))

    def tier_runs(self, phase_id: int, table: Any) -> tuple[list[Any], list[str]]:
        """What the tiers of ``table`` are computed from: the runs it ranks (baselines left
        out: :mod:`.tiers`) as ``(system, stored records, their items' folder)``, without the
        files of a target a run is excluded on, and its benchmark columns."""
        from simeval.serve.service.board_table import system_of
        from simeval.serve.service.campaigns import exclusion_on
        from simeval.serve.service.editing import exclusions
        from simeval.serve.service.results import stored_records
        from simeval.serve.service.tiers import board_benchmarks

        shown = {str(row[1]) for row in table.rows}
        with self.db.reading() as s:
            subs = s.execute(
                select(Team.name, Submission)
                .join(Team, Submission.team_id == Team.id)
                .where(Submission.phase_id == phase_id, Submission.status == SCORED,
                       Team.baseline.is_(False))
                .order_by(Submission.received, Submission.id)
            ).all()  # fmt: skip
        out = exclusions(self.db, phase_id)
        runs = [(system_of(team, sub.run), *stored_records(self.storage, sub))
                for team, sub in subs if system_of(team, sub.run) in shown
                and exclusion_on(out, system_of(team, sub.run), sub.target) is None]  # fmt: skip
        return runs, board_benchmarks(table)

    def _refresh_tiers(self, phase_id: int) -> None:
        """Build the phase's board and start its tiers (after a new score)."""
        p = self.phase_by_id(phase_id)
        p, table = self.leaderboard(self.campaign_name(p.campaign_id), p.name)
        self.tiers(p, table)

    def _split_rows(self, p: Phase, part: str) -> list[tuple[str, int, list[Any], bool, str]]:
        """``(team, run, records, baseline, target)`` of a split phase's board: every run's
        public records, or the private records of each team's final runs (every baseline
        run)."""
        from simeval.serve.service.picks import phase_finals
        from simeval.serve.service.results import stored_records
        from simeval.serve.service.split_rule import PRIVATE, parts

        with self.db.reading() as s:
            found = s.execute(
                select(Submission, Team.name, Team.baseline)
                .join(Team, Submission.team_id == Team.id)
                .where(Submission.phase_id == p.id, Submission.status == SCORED)
                .order_by(Submission.received, Submission.id)
            ).all()
        finals = phase_finals(self.db, p) if part == PRIVATE else set()
        rows = []
        for sub, team, base in found:
            if part == PRIVATE and not base and (team, sub.run) not in finals:
                continue
            records, folder = stored_records(self.storage, sub)
            rows.append((team, sub.run, parts.records(records, folder, p, part), base, sub.target))
        return rows

    def part_records(
        self, sub: Submission, phase: Phase
    ) -> tuple[str, list[dict[str, Any]]] | None:
        """In a split phase (:mod:`.split_rule`), what its team may see of a scored row: its
        records on the public items until the private scores are shown, then on the private
        items, as ``(part, records)``; else None (its own records)."""
        from simeval.serve.service.results import stored_records
        from simeval.serve.service.split_rule import PRIVATE, PUBLIC, is_split, parts, revealed

        if not is_split(phase) or sub.status != SCORED:
            return None
        part = PRIVATE if revealed(phase, self.clock()) else PUBLIC
        return part, parts.records(*stored_records(self.storage, sub), phase, part)

    def final_runs(self, team: Team, phase_name: str, runs: list[int] | None = None) -> Any:
        """The team's final runs of a split phase (:mod:`.picks`), after recording ``runs``
        as its pick when given: ``(phase, finals, scored runs, picked)``."""
        from simeval.serve.service.picks import final_runs, pick_final

        p = self.phase(team.campaign_id, phase_name)
        if runs is not None:
            pick_final(self.db, team, p, runs, self.clock())
        return p, *final_runs(self.db, team.id, p)

    def detectable(self, c: Campaign, phase: Phase) -> list[tuple[str, Any]]:
        """``(benchmark, Detectable)`` per scored benchmark of the phase (a suite's members
        each): the smallest difference in its main metric that the test set can detect
        (:func:`simeval.metrics.tiers.detectable_difference`), for the campaign page before
        the phase opens. A metric without a formula (RUSSE's sum) is left out."""
        from simeval.metrics.tiers import detectable_difference

        out = []
        for name in phase.targets:
            try:
                target = self.targets.get(list(c.registry_files), name)
            except Exception:  # a target that does not load is the campaign's own problem
                continue
            for member in getattr(target, "members", None) or [target]:
                gold = getattr(member, "gold", None)
                try:
                    n = len(gold) if gold is not None else 0
                    if n:
                        out.append((member.name, detectable_difference(n, member.main_metric)))
                except (TypeError, ValueError):
                    continue
        return out

    def fact_sheet(self, team: Team, phase_name: str, text: str | None = None) -> str:
        """The team's fact sheet for a phase (its system described, Markdown); with ``text``,
        replaced first: until the phase's scores are published (a hidden phase) or its
        deadline has passed by a week (a visible one), so the export holds what was said
        with the final runs."""
        p = self.phase(team.campaign_id, phase_name)
        mine = (FactSheet.team_id == team.id, FactSheet.phase_id == p.id)
        if text is None:  # a read: no write lock (the team's page reads one per phase)
            with self.db.reading() as s:
                row = s.scalar(select(FactSheet).where(*mine))
            return row.text if row is not None else ""
        now = self.clock()
        if p.published is not None or now > utc(p.deadline) + FACT_SHEET_GRACE:
            raise Refused(403, f"the fact sheets of {p.name} are closed")
        text = text.replace("\r\n", "\n")
        if len(text) > MAX_FACT_SHEET or "\x00" in text:
            raise Refused(422, f"a fact sheet has at most {MAX_FACT_SHEET:,} characters")
        with self.db.session() as s:
            row = s.scalar(select(FactSheet).where(*mine))
            if row is None:
                row = FactSheet(team_id=team.id, phase_id=p.id)
                s.add(row)
            row.text, row.updated = text, naive(now)
            return row.text

    def excluded(self, phase_id: int) -> dict[tuple[str, str | None], tuple[str, str]]:
        """The phase's disqualified and withdrawn runs: ``{(system, target): (kind,
        reason)}``, target None for a run excluded on every target."""
        from simeval.serve.service.editing import exclusions

        return exclusions(self.db, phase_id)

    def input_file(self, campaign: str, phase: str, target: str) -> tuple[str, bytes]:
        """A phase's input file for ``target`` (never the gold), once the phase has opened
        (server clock): a test phase's inputs are the test itself."""
        from simeval.serve.service.campaigns import input_file

        c, phases = self.campaign(campaign)
        p = next((x for x in phases if x.name == phase), None)
        if p is None or target not in p.targets:
            raise Refused(404, f"no input {target!r} in {campaign}/{phase}")
        if self.clock() < utc(p.opens):
            raise Refused(
                403, f"{p.name} opens at {utc(p.opens):%Y-%m-%d %H:%M} UTC; its inputs too"
            )
        found = input_file(self.targets.get(list(c.registry_files), target), c.input_secret)
        if found is None:
            raise Refused(404, f"{target} has no input file to download in this version")
        return found


def _fresh(row: Submission) -> Submission:
    """A transient copy of a row whose insert failed (the session that held it is gone)."""
    keys = ("id", "team_id", "phase_id", "target", "status", "client_name", "sha256", "size")
    more = ("received", "error", "results", "warnings", "results_file", "carried_from")
    return Submission(**{k: getattr(row, k) for k in (*keys, *more)})
