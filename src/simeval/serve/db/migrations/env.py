"""Alembic's environment: migrate the connection :func:`simeval.serve.db.upgrade` hands over
(``config.attributes["connection"]``), or one opened from ``sqlalchemy.url``."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from simeval.serve.db.models import Base

config = context.config


def _migrate(connection: object) -> None:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=True,  # SQLite alters tables by copying them
    )
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if connection is not None:
    _migrate(connection)
else:  # pragma: no cover  (the `alembic` command line)
    engine = create_engine(config.get_main_option("sqlalchemy.url"))
    with engine.connect() as conn:
        _migrate(conn)
