"""``gold_file``: a gold file an organiser uploaded in place of a benchmark's own, per
campaign: the stored file (relative to the storage folder), its sha256 and size, when and by
whom. The newest row of a (campaign, benchmark) is the gold the server scores with; older rows
stay as the history of replacements.

Revision ID: 0010_gold
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_gold"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "gold_file",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("campaign_id", sa.Integer, sa.ForeignKey("campaign.id"), nullable=False),
        sa.Column("benchmark", sa.String(128), nullable=False),
        sa.Column("file", sa.Text, nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("size", sa.BigInteger, nullable=False),
        sa.Column("client_name", sa.String(128), nullable=False),
        sa.Column("at", sa.DateTime, nullable=False),
        sa.Column("actor", sa.String(128), nullable=False),
    )
    op.create_index("ix_gold_file_campaign_benchmark", "gold_file", ["campaign_id", "benchmark"])


def downgrade() -> None:
    op.drop_index("ix_gold_file_campaign_benchmark", "gold_file")
    op.drop_table("gold_file")
