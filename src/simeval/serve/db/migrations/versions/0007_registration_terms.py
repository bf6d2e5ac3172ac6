"""Registration that waits for the organiser, and the campaign's description and terms:
``team.status`` (``approved``, ``pending`` or ``revoked``; every team made before is approved),
``team.terms_accepted`` (when the team accepted the terms on registering), and
``campaign.description`` / ``campaign.terms`` (Markdown, rendered without raw HTML).

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("team") as batch:
        batch.add_column(
            sa.Column("status", sa.String(16), nullable=False, server_default="approved")
        )
        batch.add_column(sa.Column("terms_accepted", sa.DateTime, nullable=True))
    with op.batch_alter_table("campaign") as batch:
        batch.add_column(sa.Column("description", sa.Text, nullable=False, server_default=""))
        batch.add_column(sa.Column("terms", sa.Text, nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("campaign") as batch:
        batch.drop_column("terms")
        batch.drop_column("description")
    with op.batch_alter_table("team") as batch:
        batch.drop_column("terms_accepted")
        batch.drop_column("status")
