"""``organiser.admin``: an organiser who may add and revoke the other organisers from the
browser (``/organiser/organisers``). The first account of a server is its admin; on a server
made before this column, the oldest account not revoked becomes it, so that someone can
manage the accounts from the browser without a new command.

Revision ID: 0013_organiser_admin
Revises: 0012_inputs
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013_organiser_admin"
down_revision = "0012_inputs"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("organiser") as batch:
        batch.add_column(sa.Column("admin", sa.Boolean, nullable=False, server_default=sa.false()))
    organiser = sa.table(
        "organiser", sa.column("id", sa.Integer), sa.column("revoked", sa.DateTime),
        sa.column("admin", sa.Boolean),
    )  # fmt: skip
    oldest = sa.select(sa.func.min(organiser.c.id)).where(organiser.c.revoked.is_(None))
    first = op.get_bind().execute(oldest).scalar()
    if first is not None:
        op.execute(organiser.update().where(organiser.c.id == first).values(admin=True))


def downgrade() -> None:
    with op.batch_alter_table("organiser") as batch:
        batch.drop_column("admin")
