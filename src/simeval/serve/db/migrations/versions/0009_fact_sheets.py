"""``fact_sheet``: a team's description of its system for a phase (Markdown), what the seed
tasks' organisers asked of every team with its final runs, shown in the export.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "fact_sheet",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("team_id", sa.Integer, sa.ForeignKey("team.id"), nullable=False),
        sa.Column("phase_id", sa.Integer, sa.ForeignKey("phase.id"), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("updated", sa.DateTime, nullable=False),
        sa.UniqueConstraint("team_id", "phase_id"),
    )


def downgrade() -> None:
    op.drop_table("fact_sheet")
