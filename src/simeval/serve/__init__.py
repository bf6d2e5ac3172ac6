"""The shared-task server: campaigns, phases, teams and their submissions, scored through the
same task contract as ``simeval score`` (:func:`simeval.api.score`).

- :mod:`.models`: the database tables (SQLAlchemy 2), created by the versioned migrations in
  ``migrations/`` (Alembic), run by :func:`.db.upgrade` on every start;
- :mod:`.db`: engines (SQLite by default, any SQLAlchemy URL), sessions, migrations;
- :mod:`.storage`: uploads streamed to disk under server-chosen names, size-capped, fsynced and
  renamed into place only once scored; orphans swept on start;
- :mod:`.security`: token hashing (scrypt), CSRF, per-client rate limits;
- :mod:`.campaigns`: what the organiser does (create, publish, export);
- :mod:`.submit`: receiving one upload: limits, scoring, recording;
- :mod:`.scoring`: scoring one upload, in the server's process or a pool of processes;
- :mod:`.board`: leaderboards from the recorded results (RUSSE Table 5 rules);
- :mod:`.app` and :mod:`.pages`: the HTTP API and the web pages (FastAPI).

Every module that needs fastapi, sqlalchemy or alembic imports them at its top, and this
package is only imported by ``simeval serve`` / ``simeval submit`` inside their functions, so
the rest of simeval runs without the ``serve`` extra.
"""

from __future__ import annotations

EXTRA_HINT = "the server needs its extra: pip install 'simeval[serve]'"


def require_extra() -> None:
    """Raise a clear error when the ``serve`` extra is not installed."""
    from simeval.errors import SimevalError

    try:
        import alembic  # noqa: F401
        import fastapi  # noqa: F401
        import sqlalchemy  # noqa: F401
    except ImportError as exc:
        raise SimevalError(f"{EXTRA_HINT} ({exc.name} is missing)") from None
