"""Team names compared by their confusables skeleton: ``team.name_key`` recomputed.

The key was NFKC, case folded, with Cyrillic and Greek look-alikes of Latin letters folded;
it is now the case-folded Unicode TR39 skeleton of the name
(:func:`simeval.serve.db.names.name_key`), so ``ΝΟΚΙΑ`` and ``NOKlA`` share ``NOKIA``'s.
Every team keeps its name. Two teams of a campaign that the new key finds alike (both
registered under the old one) cannot both hold it: the first keeps it and the later one is
left without a key (:func:`~simeval.serve.db.names.stored_keys`); the registration compares
every team's name anyway, so neither can be imitated again.

Revision ID: 0011_name_skeleton
Revises: 0010_private
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from simeval.serve.db.names import stored_keys

revision = "0011_name_skeleton"
down_revision = "0010_private"
branch_labels = None
depends_on = None


def upgrade() -> None:
    team = sa.table(
        "team",
        sa.column("id", sa.Integer),
        sa.column("campaign_id", sa.Integer),
        sa.column("name", sa.String),
        sa.column("name_key", sa.String),
    )
    connection = op.get_bind()
    rows = connection.execute(sa.select(team.c.id, team.c.campaign_id, team.c.name)).all()
    keys = stored_keys([tuple(row) for row in rows])
    # every key cleared first: a new key may be an old key of another team until it is moved
    connection.execute(sa.update(team).values(name_key=None))
    for team_id, key in keys.items():
        if key is not None:
            connection.execute(sa.update(team).where(team.c.id == team_id).values(name_key=key))


def downgrade() -> None:
    """The new keys stay: they are unique in a campaign, and the older code compares the
    names by its own key when a team registers."""
