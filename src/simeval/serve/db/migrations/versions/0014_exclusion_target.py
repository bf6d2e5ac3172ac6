"""``exclusion.target``: a run disqualified or withdrawn on one target of its phase only (its
other targets' cells stay on the board); NULL, as every row made before, excludes it on
every target. The unique constraint becomes (phase, team, run, target); NULLs are distinct
in a unique constraint (SQLite and PostgreSQL alike), so a partial unique index keeps one
whole-run exclusion per run.

Revision ID: 0014_exclusion_target
Revises: 0013_organiser_admin
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014_exclusion_target"
down_revision = "0013_organiser_admin"
branch_labels = None
depends_on = None

# SQLite keeps 0005's constraint unnamed: batch mode names it by this convention to drop it
NAMING = {"uq": "uq_%(table_name)s_%(column_0_N_name)s"}
WHOLE_RUN = sa.text("target IS NULL")


def _old_name() -> str:
    """The name of 0005's unique constraint (PostgreSQL named it; SQLite did not)."""
    found = sa.inspect(op.get_bind()).get_unique_constraints("exclusion")
    named = [u["name"] for u in found if u["column_names"] == ["phase_id", "team_id", "run"]]
    return named[0] if named and named[0] else "uq_exclusion_phase_id_team_id_run"


def upgrade() -> None:
    old = _old_name()
    with op.batch_alter_table("exclusion", naming_convention=NAMING) as batch:
        batch.add_column(sa.Column("target", sa.String(128), nullable=True))
        batch.drop_constraint(old, type_="unique")
        batch.create_unique_constraint(
            "uq_exclusion_run_target", ["phase_id", "team_id", "run", "target"]
        )
    op.create_index("uq_exclusion_whole_run", "exclusion", ["phase_id", "team_id", "run"],
                    unique=True, sqlite_where=WHOLE_RUN, postgresql_where=WHOLE_RUN)  # fmt: skip


def downgrade() -> None:
    """Back to whole runs: the exclusions of one target are dropped (an older server would
    read them as exclusions of every target)."""
    op.drop_index("uq_exclusion_whole_run", "exclusion")
    op.execute("DELETE FROM exclusion WHERE target IS NOT NULL")
    with op.batch_alter_table("exclusion") as batch:
        batch.drop_constraint("uq_exclusion_run_target", type_="unique")
        batch.drop_column("target")
        batch.create_unique_constraint(
            "uq_exclusion_phase_id_team_id_run", ["phase_id", "team_id", "run"]
        )
