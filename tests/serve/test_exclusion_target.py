"""A run disqualified or withdrawn on one target of its phase (issue 46): its other targets'
cells stay on the board, scored as before; the excluded target's cell is empty and named in
the board's list of exclusions; a whole-run exclusion is as it was. Expected scores are
scipy's over the uploaded files, never the server's."""

from __future__ import annotations

from typing import Any

import pytest

from serve_kit import OPENS

pytest.importorskip("fastapi")


def test_the_migration_keeps_an_exclusion_of_0013_a_whole_run_one(serve_db) -> None:
    """A database of schema 0013 with an exclusion row: after the upgrade the row holds no
    target (every target), and a second whole-run row of the same run is refused by the
    database while one row per target is allowed."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import MetaData, insert, select
    from sqlalchemy.exc import IntegrityError

    from simeval.serve.db import MIGRATIONS, Database

    db = Database(serve_db)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with db.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0013_organiser_admin")
    tables = MetaData()
    tables.reflect(db.engine)
    assert "target" not in tables.tables["exclusion"].c
    when = OPENS.replace(tzinfo=None)
    t = tables.tables
    with db.engine.begin() as c:
        c.execute(insert(t["campaign"]).values(id=1, name="c", title="", registry=[],
                                               created=when, registration="open"))  # fmt: skip
        c.execute(insert(t["phase"]).values(id=1, campaign_id=1, name="p", targets=["a", "b"],
                                            opens=when, deadline=when, runs=1, max_bytes=10,
                                            hidden=False))  # fmt: skip
        c.execute(insert(t["team"]).values(id=1, campaign_id=1, name="x", token_key="k",
                                           token_salt="s", token_hash="h", created=when))  # fmt: skip
        c.execute(insert(t["exclusion"]).values(id=1, phase_id=1, team_id=1, run=1,
                                                kind="disqualified", reason="old", at=when))  # fmt: skip
    db.dispose()
    db = Database(serve_db)  # migrated to the newest
    try:
        tables = MetaData()
        tables.reflect(db.engine)
        exclusion = tables.tables["exclusion"]
        with db.engine.connect() as c:
            rows = c.execute(select(exclusion.c.run, exclusion.c.target, exclusion.c.reason))
            assert [tuple(r) for r in rows] == [(1, None, "old")]
        row = {"phase_id": 1, "team_id": 1, "run": 1, "kind": "withdrawn", "reason": "r",
               "at": when}  # fmt: skip
        with db.engine.begin() as c:  # one row per target of the same run
            c.execute(insert(exclusion).values(**row, target="a"))
            c.execute(insert(exclusion).values(**row, target="b"))
        for target in ("a", None):
            with pytest.raises(IntegrityError), db.engine.begin() as c:
                c.execute(insert(exclusion).values(**row, target=target))
    finally:
        db.dispose()
