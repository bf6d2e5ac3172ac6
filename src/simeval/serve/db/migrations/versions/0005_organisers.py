"""``organiser``, ``audit`` and ``exclusion``: organiser accounts (a hashed token, as a
team's), the log of every change made to a campaign after ``simeval serve campaign`` created
it, and the runs an organiser disqualified or withdrew (kept, ranked nowhere).

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "organiser",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(64), nullable=False, unique=True),
        sa.Column("token_key", sa.String(32), nullable=False, unique=True),
        sa.Column("token_salt", sa.String(64), nullable=False),
        sa.Column("token_hash", sa.String(128), nullable=False),
        sa.Column("created", sa.DateTime, nullable=False),
        sa.Column("revoked", sa.DateTime, nullable=True),
    )
    op.create_table(
        "audit",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("at", sa.DateTime, nullable=False, index=True),
        sa.Column("actor", sa.String(128), nullable=False),
        sa.Column("campaign_id", sa.Integer, sa.ForeignKey("campaign.id"), nullable=True),
        sa.Column("action", sa.String(64), nullable=False),
        sa.Column("detail", sa.JSON, nullable=False),
    )
    op.create_table(
        "exclusion",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("phase_id", sa.Integer, sa.ForeignKey("phase.id"), nullable=False, index=True),
        sa.Column("team_id", sa.Integer, sa.ForeignKey("team.id"), nullable=False),
        sa.Column("run", sa.Integer, nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("at", sa.DateTime, nullable=False),
        sa.UniqueConstraint("phase_id", "team_id", "run"),
    )


def downgrade() -> None:
    op.drop_table("exclusion")
    op.drop_table("audit")
    op.drop_table("organiser")
