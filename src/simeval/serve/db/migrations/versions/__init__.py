"""One module per schema version, applied in order by Alembic."""
