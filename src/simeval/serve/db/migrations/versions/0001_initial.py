"""The first schema: campaign, phase, team, submission.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "campaign",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(64), nullable=False, unique=True),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("registry", sa.JSON, nullable=False),
        sa.Column("created", sa.DateTime, nullable=False),
    )
    op.create_table(
        "phase",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("campaign_id", sa.Integer, sa.ForeignKey("campaign.id"), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("targets", sa.JSON, nullable=False),
        sa.Column("opens", sa.DateTime, nullable=False),
        sa.Column("deadline", sa.DateTime, nullable=False),
        sa.Column("runs", sa.Integer, nullable=False),
        sa.Column("max_bytes", sa.BigInteger, nullable=False),
        sa.Column("hidden", sa.Boolean, nullable=False),
        sa.Column("published", sa.DateTime, nullable=True),
        sa.UniqueConstraint("campaign_id", "name"),
    )
    op.create_table(
        "team",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("campaign_id", sa.Integer, sa.ForeignKey("campaign.id"), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("token_key", sa.String(32), nullable=False, unique=True),
        sa.Column("token_salt", sa.String(64), nullable=False),
        sa.Column("token_hash", sa.String(128), nullable=False),
        sa.Column("created", sa.DateTime, nullable=False),
        sa.UniqueConstraint("campaign_id", "name"),
    )
    op.create_table(
        "submission",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("team_id", sa.Integer, sa.ForeignKey("team.id"), nullable=False, index=True),
        sa.Column("phase_id", sa.Integer, sa.ForeignKey("phase.id"), nullable=False, index=True),
        sa.Column("target", sa.String(128), nullable=False),
        sa.Column("run", sa.Integer, nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("client_name", sa.String(128), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("size", sa.BigInteger, nullable=False),
        sa.Column("received", sa.DateTime, nullable=False),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("results", sa.JSON, nullable=True),
        sa.UniqueConstraint("team_id", "phase_id", "target", "run"),
    )


def downgrade() -> None:
    for table in ("submission", "team", "phase", "campaign"):
        op.drop_table(table)
