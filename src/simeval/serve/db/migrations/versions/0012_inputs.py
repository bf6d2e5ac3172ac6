"""A campaign's ``input_secret``: what draws the order and the ids of the inputs it hands out
(:mod:`simeval.kinds.handout`). Campaigns made before it keep NULL, their inputs as published:
their teams may hold files made from those, and a new order would misread them.

Revision ID: 0012_inputs
Revises: 0011_name_skeleton
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_inputs"
down_revision = "0011_name_skeleton"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("campaign") as batch:
        batch.add_column(sa.Column("input_secret", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("campaign") as batch:
        batch.drop_column("input_secret")
