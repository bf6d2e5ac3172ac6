"""The shared-task server: campaigns, phases, teams and their submissions, scored through the
same path as ``simeval score`` (:func:`simeval.kinds.scoring.score_submission`, which
:func:`simeval.api.score` wraps). The api sits above the server and calls it
(:mod:`simeval.api.serving`); the server never imports the api.

Four layers, each importing only those below it (the ``serve-layers`` contract in
pyproject.toml):

- :mod:`.routers`: HTTP only: the JSON API (:mod:`.routers.api`), the web pages
  (:mod:`.routers.pages`), errors as status codes (:mod:`.routers.errors`), what the routes
  share (:mod:`.routers.web`), request bodies read to a cap (:mod:`.routers.forms`);
- :mod:`.views`: what a participant is shown: the page templates (:mod:`.views.pages`) and
  a submission's view (:mod:`.views.submissions`);
- :mod:`.service`: the rules: receiving one upload (limits, quotas, recording:
  :mod:`.service.submit`), scoring it (:mod:`.service.scoring`), the hidden-phase rule
  (:mod:`.service.hidden`), results in the results store (:mod:`.service.results`), leaderboards
  (:mod:`.service.board_table`, kept between requests by :mod:`.service.board_cache`), the
  public/private split (:mod:`.service.split_rule`), what the organiser does
  (:mod:`.service.campaigns`, :mod:`.service.export`, :mod:`.service.backup`), tokens, CSRF and
  rate limits (:mod:`.service.security`);
- :mod:`.db`: engines and sessions (SQLite by default, any SQLAlchemy URL), the tables
  (:mod:`.db.models`), the versioned migrations (``db/migrations``, Alembic, run on every
  start), uploads on disk (:mod:`.db.storage`), the stamps and locks that tie a database to
  its folder (:mod:`.db.pairing`), team names (:mod:`.db.names`).

:mod:`.app` starts a server (locks, stamps, quarantine, targets) and mounts the routers.

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
