"""Organiser baselines and announcements: ``team.baseline`` (a team the organisers run: its
runs are on the board, marked, and never ranked among the teams; every team made before is
not one) and ``announcement`` (dated Markdown notes on the campaign's page).

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # a plain ADD COLUMN (no CHECK constraint): a batch would copy the team table, and SQLite
    # refuses to drop a table that submissions point at while foreign keys are on
    op.add_column(
        "team",
        sa.Column(
            "baseline",
            sa.Boolean(create_constraint=False),
            nullable=False,
            server_default=sa.false(),
        ),
    )
    op.create_table(
        "announcement",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("campaign_id", sa.Integer, sa.ForeignKey("campaign.id"), nullable=False),
        sa.Column("at", sa.DateTime, nullable=False),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("announcement")
    with op.batch_alter_table("team") as batch:
        batch.drop_column("baseline")
