"""``score_history``: the scores a submission had before it was scored again (after an
upgrade of simeval, or a gold file replaced): its records as they were, the store file that
held them (kept, never overwritten), when, by whom and why.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "score_history",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "submission_id",
            sa.String(32),
            sa.ForeignKey("submission.id"),
            nullable=False,
            index=True,
        ),
        sa.Column("at", sa.DateTime, nullable=False),
        sa.Column("actor", sa.String(128), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("results", sa.JSON, nullable=True),
        sa.Column("results_file", sa.Text, nullable=True),
        sa.Column("error", sa.Text, nullable=True),
    )


def downgrade() -> None:
    op.drop_table("score_history")
