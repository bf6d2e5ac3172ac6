"""Phases made in the console and runs carried between them: ``phase.per_day`` (scored runs
per team and target in any 24 hours; NULL: no such limit), ``phase.combine`` (how the board
combines a run's targets: ``sum``, every phase made before, ``mean`` or ``mean-rank``) and
``submission.carried_from`` (the id of the submission a carried run was scored from).

Revision ID: 0010_phases
Revises: 0010_gold (chained after the gold branch, merged first)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_phases"
down_revision = "0010_gold"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMNs: a batch would copy the tables, which others point at
    op.add_column("phase", sa.Column("per_day", sa.Integer, nullable=True))
    op.add_column(
        "phase", sa.Column("combine", sa.String(16), nullable=False, server_default="sum")
    )
    op.add_column("submission", sa.Column("carried_from", sa.String(32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("submission") as batch:
        batch.drop_column("carried_from")
    with op.batch_alter_table("phase") as batch:
        batch.drop_column("combine")
        batch.drop_column("per_day")
