"""``submission.results_file``: where the results store keeps a scored submission's records
(``submissions/<id>/results.jsonl`` under the storage folder, written by
:func:`simeval.results.store.save_records`, its items beside it). The ``results`` column stays
as the board's copy of those records (a leaderboard reads one query, not a file per run).

The rows made before have NULL here and their records in ``results`` only. A migration knows
the database alone, not the storage folder, so moving them into store files happens when a
server or a command first opens the pair after this revision
(:func:`simeval.serve.service.results.open_server`, once the stamps matched): the folder is
then known to be this database's.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("submission") as batch:
        batch.add_column(sa.Column("results_file", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("submission") as batch:
        batch.drop_column("results_file")
