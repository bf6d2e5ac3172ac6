"""Public and private leaderboards: a phase's ``public_share`` of items scored live, the
secret ``split_seed`` that draws them, how many ``final_runs`` a team picks, and
``final_pick``, the runs each team picked (none: its last ``final_runs``).

Revision ID: 0010_private
Revises: 0010_phases (re-chained after gold and phases were merged)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_private"
down_revision = "0010_phases"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("phase") as batch:
        batch.add_column(sa.Column("public_share", sa.Float, nullable=True))
        batch.add_column(sa.Column("split_seed", sa.String(64), nullable=True))
        batch.add_column(sa.Column("final_runs", sa.Integer, nullable=False, server_default="2"))
    op.create_table(
        "final_pick",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("phase_id", sa.Integer, sa.ForeignKey("phase.id"), nullable=False),
        sa.Column("team_id", sa.Integer, sa.ForeignKey("team.id"), nullable=False),
        sa.Column("run", sa.Integer, nullable=False),
        sa.Column("at", sa.DateTime, nullable=False),
        sa.UniqueConstraint("phase_id", "team_id", "run"),
    )
    op.create_index("ix_final_pick_phase_id", "final_pick", ["phase_id"])


def downgrade() -> None:
    op.drop_index("ix_final_pick_phase_id", "final_pick")
    op.drop_table("final_pick")
    with op.batch_alter_table("phase") as batch:
        batch.drop_column("final_runs")
        batch.drop_column("split_seed")
        batch.drop_column("public_share")
