"""The server's tables (SQLAlchemy 2, declarative). Times are UTC, stored without a zone
(every dialect keeps them alike); :func:`utc` turns them back into aware datetimes.

- ``campaign``: a named shared task; ``registry`` (``registry_files``) lists the organiser's
  registry files, so targets may be catalog names or the organiser's own benchmarks;
  ``input_secret`` draws the order and ids of its inputs (:mod:`simeval.kinds.handout`);
- ``phase``: a window (``opens`` … ``deadline``) with its targets, a runs-per-team limit (and
  ``per_day``, runs in any 24 hours), an upload size cap, whether scores are hidden until
  ``published`` (a test phase) and how its board combines targets (``combine``); a split
  phase's ``public_share`` of items scored live, its secret ``split_seed``, and how many
  ``final_runs`` a team picks;
- ``team``: a name and a hashed token (``token_key`` finds the row, ``token_hash`` =
  scrypt(secret, ``token_salt``) checks the secret; the token itself is never stored), its
  ``status`` (approved, pending the organiser's approval, or revoked) and when it accepted
  the campaign's terms; ``baseline`` marks a team the organisers run (its runs are shown,
  marked, and never ranked among the teams);
- ``announcement``: a dated note (Markdown) on the campaign's page;
- ``fact_sheet``: a team's description of its system for a phase (Markdown), in the export;
- ``submission``: one upload, stored under the server's name ``id`` (never the client's), with
  its sha256, size, time and either the result records (``status='scored'``, ``run`` = 1, 2, …)
  or the validation error (``status='rejected'``, ``run`` NULL: it does not count). The unique
  constraint on (team, phase, target, run) holds the run limit under concurrency. In a hidden
  phase a scored row may hold an error and no records (the gold refused a counted run), and
  ``warnings`` keeps what the upload was told (:mod:`.hidden`). ``results_file`` names the
  results store's file of a scored row (relative to the storage folder, :mod:`.results`);
  ``results`` is the board's copy of its records; ``carried_from`` names the submission of an
  earlier phase that an organiser carried into this one (scored again from its bytes);
- ``organiser``: a person who runs the server's campaigns from the browser (``simeval serve
  organiser add``); a hashed token as a team's, ``revoked`` once taken away (the row stays, so
  the audit log's names keep meaning); ``admin`` may add and revoke organisers from the
  browser (the server's first account is);
- ``exclusion``: a run (a team's run n of a phase: every target's n-th file, or with
  ``target`` that target's file only) that an organiser disqualified or withdrew: kept,
  shown with its reason, ranked nowhere (on that target: the run's other cells stay);
- ``score_history``: a submission's earlier scores, kept when it is scored again (an
  upgrade of simeval, a replaced gold): its records, their store file, when, who and why;
- ``gold_file``: a gold file an organiser uploaded in place of a benchmark's own (per
  campaign): the newest row of a (campaign, benchmark) is the gold scored with, older rows the
  history of replacements (:mod:`simeval.serve.service.gold`);
- ``final_pick``: a run a team picked as final in a split phase (none: its last runs);
- ``audit``: every change an organiser (or the command line) made to a campaign: when, who,
  what (``action``) and the values before and after (``detail``).
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    JSON,
    BigInteger,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

SCORED = "scored"
REJECTED = "rejected"
APPROVED = "approved"  # a team's status: it may upload
PENDING = "pending"  # registered where registration waits for the organiser's approval
REVOKED = "revoked"  # the organiser took its registration away: no more uploads


def naive(moment: datetime) -> datetime:
    """``moment`` in UTC without its zone, as stored (a naive input is taken as UTC)."""
    if moment.tzinfo is None:
        return moment
    return moment.astimezone(UTC).replace(tzinfo=None)


def utc(stored: datetime) -> datetime:
    """A stored time as an aware UTC datetime."""
    return stored.replace(tzinfo=UTC) if stored.tzinfo is None else stored.astimezone(UTC)


class Base(DeclarativeBase):
    pass


class ServerStamp(Base):
    """The one row that ties this database to its storage folder (:mod:`.pairing`)."""

    __tablename__ = "server"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    db_id: Mapped[str] = mapped_column(String(32))
    folder_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    folder: Mapped[str | None] = mapped_column(Text, nullable=True)
    created: Mapped[datetime] = mapped_column(DateTime)


class Campaign(Base):
    __tablename__ = "campaign"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    title: Mapped[str] = mapped_column(String(200), default="")
    registry_files: Mapped[list[str]] = mapped_column("registry", JSON, default=list)
    created: Mapped[datetime] = mapped_column(DateTime)
    registration: Mapped[str] = mapped_column(String(16), default="open")  # approval, closed
    max_teams: Mapped[int | None] = mapped_column(Integer, nullable=True)
    description: Mapped[str] = mapped_column(Text, default="", server_default="")  # Markdown
    terms: Mapped[str] = mapped_column(
        Text, default="", server_default=""
    )  # accepted on registering
    # draws the order and ids of the inputs handed out (simeval.kinds.handout); NULL: as
    # published (campaigns made before secrets, or ``inputs = "published"`` in the file)
    input_secret: Mapped[str | None] = mapped_column(String(64), nullable=True)
    phases: Mapped[list[Phase]] = relationship(  # as they open, then as the file declared them
        back_populates="campaign", order_by="(Phase.opens, Phase.id)"
    )
    teams: Mapped[list[Team]] = relationship(back_populates="campaign")


class Phase(Base):
    __tablename__ = "phase"
    __table_args__ = (UniqueConstraint("campaign_id", "name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaign.id"))
    name: Mapped[str] = mapped_column(String(64))
    targets: Mapped[list[str]] = mapped_column(JSON)
    opens: Mapped[datetime] = mapped_column(DateTime)
    deadline: Mapped[datetime] = mapped_column(DateTime)
    runs: Mapped[int] = mapped_column(Integer)
    max_bytes: Mapped[int] = mapped_column(BigInteger)
    hidden: Mapped[bool] = mapped_column(default=False)  # scores hidden until published
    published: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    per_day: Mapped[int | None] = mapped_column(Integer, nullable=True)  # runs in any 24 h
    combine: Mapped[str] = mapped_column(String(16), default="sum", server_default="sum")
    # the public/private split (:mod:`..service.split_rule`): the share of items the live board
    # scores (None: no split), the secret seed that draws them, the final runs a team picks
    public_share: Mapped[float | None] = mapped_column(Float, nullable=True)
    split_seed: Mapped[str | None] = mapped_column(String(64), nullable=True)
    final_runs: Mapped[int] = mapped_column(Integer, default=2, server_default="2")
    campaign: Mapped[Campaign] = relationship(back_populates="phases")


class Team(Base):
    __tablename__ = "team"
    __table_args__ = (
        UniqueConstraint("campaign_id", "name"),
        UniqueConstraint("campaign_id", "name_key", name="uq_team_campaign_name_key"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaign.id"))
    name: Mapped[str] = mapped_column(String(64))
    name_key: Mapped[str | None] = mapped_column(String(256), nullable=True)  # names.name_key
    token_key: Mapped[str] = mapped_column(String(32), unique=True)
    token_salt: Mapped[str] = mapped_column(String(64))
    token_hash: Mapped[str] = mapped_column(String(128))
    created: Mapped[datetime] = mapped_column(DateTime)
    status: Mapped[str] = mapped_column(String(16), default=APPROVED, server_default=APPROVED)
    terms_accepted: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    baseline: Mapped[bool] = mapped_column(default=False, server_default=false())
    campaign: Mapped[Campaign] = relationship(back_populates="teams")


class Submission(Base):
    __tablename__ = "submission"
    __table_args__ = (UniqueConstraint("team_id", "phase_id", "target", "run"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True)  # also the stored file's name
    team_id: Mapped[int] = mapped_column(ForeignKey("team.id"), index=True)
    phase_id: Mapped[int] = mapped_column(ForeignKey("phase.id"), index=True)
    target: Mapped[str] = mapped_column(String(128))
    run: Mapped[int | None] = mapped_column(Integer, nullable=True)
    status: Mapped[str] = mapped_column(String(16))
    client_name: Mapped[str] = mapped_column(String(128), default="")  # shown, never a path
    sha256: Mapped[str] = mapped_column(String(64))
    size: Mapped[int] = mapped_column(BigInteger)
    received: Mapped[datetime] = mapped_column(DateTime)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    results: Mapped[list[dict] | None] = mapped_column(JSON, nullable=True)
    warnings: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)  # hidden phases
    results_file: Mapped[str | None] = mapped_column(Text, nullable=True)  # the store's file
    carried_from: Mapped[str | None] = mapped_column(String(32), nullable=True)  # a run's id
    team: Mapped[Team] = relationship()
    phase: Mapped[Phase] = relationship()


class Organiser(Base):
    __tablename__ = "organiser"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    token_key: Mapped[str] = mapped_column(String(32), unique=True)
    token_salt: Mapped[str] = mapped_column(String(64))
    token_hash: Mapped[str] = mapped_column(String(128))
    created: Mapped[datetime] = mapped_column(DateTime)
    revoked: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    admin: Mapped[bool] = mapped_column(default=False, server_default=false())


class AuditEntry(Base):
    __tablename__ = "audit"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime, index=True)
    actor: Mapped[str] = mapped_column(String(128))  # "organiser:NAME" or "command line"
    campaign_id: Mapped[int | None] = mapped_column(ForeignKey("campaign.id"), nullable=True)
    action: Mapped[str] = mapped_column(String(64))
    detail: Mapped[dict] = mapped_column(JSON, default=dict)


DISQUALIFIED = "disqualified"
WITHDRAWN = "withdrawn"


class Exclusion(Base):
    __tablename__ = "exclusion"
    __table_args__ = (
        UniqueConstraint("phase_id", "team_id", "run", "target", name="uq_exclusion_run_target"),
        # NULLs are distinct in the constraint above: one whole-run exclusion per run
        Index("uq_exclusion_whole_run", "phase_id", "team_id", "run", unique=True,
              sqlite_where=text("target IS NULL"), postgresql_where=text("target IS NULL")),
    )  # fmt: skip

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    phase_id: Mapped[int] = mapped_column(ForeignKey("phase.id"), index=True)
    team_id: Mapped[int] = mapped_column(ForeignKey("team.id"))
    run: Mapped[int] = mapped_column(Integer)
    target: Mapped[str | None] = mapped_column(String(128), nullable=True)  # None: every one
    kind: Mapped[str] = mapped_column(String(16))  # DISQUALIFIED or WITHDRAWN
    reason: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(DateTime)
    team: Mapped[Team] = relationship()


class ScoreHistory(Base):
    __tablename__ = "score_history"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    submission_id: Mapped[str] = mapped_column(ForeignKey("submission.id"), index=True)
    at: Mapped[datetime] = mapped_column(DateTime)
    actor: Mapped[str] = mapped_column(String(128))
    reason: Mapped[str] = mapped_column(Text)
    results: Mapped[list[dict] | None] = mapped_column(JSON, nullable=True)
    results_file: Mapped[str | None] = mapped_column(Text, nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)


class Announcement(Base):
    __tablename__ = "announcement"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaign.id"))
    at: Mapped[datetime] = mapped_column(DateTime)
    title: Mapped[str] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text)


class FactSheet(Base):
    __tablename__ = "fact_sheet"
    __table_args__ = (UniqueConstraint("team_id", "phase_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    team_id: Mapped[int] = mapped_column(ForeignKey("team.id"))
    phase_id: Mapped[int] = mapped_column(ForeignKey("phase.id"))
    text: Mapped[str] = mapped_column(Text)
    updated: Mapped[datetime] = mapped_column(DateTime)


class GoldFile(Base):
    __tablename__ = "gold_file"
    __table_args__ = (Index("ix_gold_file_campaign_benchmark", "campaign_id", "benchmark"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaign.id"))
    benchmark: Mapped[str] = mapped_column(String(128))
    file: Mapped[str] = mapped_column(Text)  # relative to the storage folder
    sha256: Mapped[str] = mapped_column(String(64))
    size: Mapped[int] = mapped_column(BigInteger)
    client_name: Mapped[str] = mapped_column(String(128))  # shown, never a path
    at: Mapped[datetime] = mapped_column(DateTime)
    actor: Mapped[str] = mapped_column(String(128))


class FinalPick(Base):
    __tablename__ = "final_pick"
    __table_args__ = (UniqueConstraint("phase_id", "team_id", "run"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    phase_id: Mapped[int] = mapped_column(ForeignKey("phase.id"), index=True)
    team_id: Mapped[int] = mapped_column(ForeignKey("team.id"))
    run: Mapped[int] = mapped_column(Integer)
    at: Mapped[datetime] = mapped_column(DateTime)
