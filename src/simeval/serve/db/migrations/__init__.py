"""Alembic migrations of the server's database (run by :func:`simeval.serve.db.upgrade`)."""
