"""``submission.warnings``: in a hidden phase, the warnings an upload was shown, those of the
file and the input alone (:mod:`simeval.serve.service.hidden`), kept so that every later view of the
submission shows them as its upload's answer did. NULL for the rows made before, and in
visible phases (their result records carry the warnings).

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("submission") as batch:
        batch.add_column(sa.Column("warnings", sa.JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("submission") as batch:
        batch.drop_column("warnings")
