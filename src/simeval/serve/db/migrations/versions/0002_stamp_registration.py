"""The server stamp and registration settings.

- ``server``: one row, the database's own id and the id of the storage folder it belongs to
  (the folder holds the database's id in turn), so a server started on the wrong database or
  the wrong folder is refused instead of taking stored uploads for leftovers;
- ``campaign.registration`` (``open`` or ``closed``) and ``campaign.max_teams``;
- ``team.name_key``: the folded name (:func:`simeval.serve.db.names.name_key`), unique in a
  campaign, so look-alike names are refused; filled here for the teams made before (today's
  key, as :func:`~simeval.serve.db.names.stored_keys` fills it: a later look-alike gets none).

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from simeval.serve.db.names import stored_keys

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "server",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("db_id", sa.String(32), nullable=False),
        sa.Column("folder_id", sa.String(32), nullable=True),
        sa.Column("folder", sa.Text, nullable=True),
        sa.Column("created", sa.DateTime, nullable=False),
    )
    with op.batch_alter_table("campaign") as batch:
        batch.add_column(
            sa.Column("registration", sa.String(16), nullable=False, server_default="open")
        )
        batch.add_column(sa.Column("max_teams", sa.Integer, nullable=True))
    with op.batch_alter_table("team") as batch:
        batch.add_column(sa.Column("name_key", sa.String(256), nullable=True))
    team = sa.table(
        "team",
        sa.column("id", sa.Integer),
        sa.column("campaign_id", sa.Integer),
        sa.column("name", sa.String),
    )
    connection = op.get_bind()
    rows = connection.execute(sa.select(team.c.id, team.c.campaign_id, team.c.name)).all()
    for team_id, key in stored_keys([tuple(row) for row in rows]).items():
        connection.execute(
            sa.text("UPDATE team SET name_key = :key WHERE id = :id"), {"key": key, "id": team_id}
        )
    with op.batch_alter_table("team") as batch:
        batch.create_unique_constraint("uq_team_campaign_name_key", ["campaign_id", "name_key"])


def downgrade() -> None:
    with op.batch_alter_table("team") as batch:
        batch.drop_constraint("uq_team_campaign_name_key", type_="unique")
        batch.drop_column("name_key")
    with op.batch_alter_table("campaign") as batch:
        batch.drop_column("max_teams")
        batch.drop_column("registration")
    op.drop_table("server")
