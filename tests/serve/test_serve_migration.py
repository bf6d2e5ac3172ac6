"""A campaign scored by the server of schema 0003 (results in the ``submission.results``
column, items at ``items/<n>.tsv.gz`` beside the upload) opens with today's code: migration
0004 and the first start move its records into the results store, and its export is a results
folder that ``simeval results`` and ``simeval leaderboard`` read as they are.

The old campaign is built as 0003's code left it: the pair is made and stamped, the schema
taken back to 0003, and the rows inserted as that version wrote them. Expected numbers are
scipy's over the hand-made items, never the server's."""

from __future__ import annotations

import json
from datetime import datetime

import numpy as np
from alembic import command
from alembic.config import Config
from scipy.stats import pearsonr, spearmanr
from sqlalchemy import MetaData, insert, select
from typer.testing import CliRunner

from simeval.cli import app as cli
from simeval.results.items import write_items
from simeval.serve.db import MIGRATIONS
from simeval.serve.db.models import Submission
from simeval.serve.service.export import export
from simeval.serve.service.results import open_server

WHEN = datetime(2026, 1, 10, 12, 0)
GOLD = np.array([4.0, 3.5, 3.0, 1.0, 0.5, 2.0])
SCORES = {
    "alpha": np.array([0.9, 0.8, 0.7, 0.1, 0.3, 0.2]),
    "beta": np.array([0.1, 0.5, 0.2, 0.9, 0.6, 0.3]),
}


def _to_0003(engine) -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0003")


def _old_record(team: str) -> dict:
    """A result record as the 0003 server kept it (no ``machine``, items named by position)."""
    s = SCORES[team]
    return {
        "benchmark": "mc30",
        "task": "graded-pairs",
        "main_metric": "spearman",
        "metrics": {
            "spearman": float(spearmanr(GOLD, s).statistic),
            "pearson": float(pearsonr(GOLD, s).statistic),
        },
        "coverage": {"gold": 6, "scored": 6, "missing": 0, "extra": 0},
        "system": {"kind": "submission", "file": f"{team}.csv", "sha256": "0" * 64},
        "data": {"mc30.txt": "1" * 64},
        "warnings": [],
        "settings": {},
        "versions": {"simeval": "0.0"},
        "created": "2026-01-10T12:00:00+00:00",
        "seconds": 0.01,
        "id": f"{team}000000000000"[:16],
        "items_file": "items/0.tsv.gz",
        "breakdown": {},
        "flags": [],
    }


def _old_campaign(url: str, files) -> dict[str, dict]:
    db, storage = open_server(url, files)  # stamped by today's code, as 0003's stamped it
    _to_0003(db.engine)
    tables = MetaData()
    tables.reflect(db.engine)
    t = tables.tables
    records = {}
    with db.engine.begin() as c:
        c.execute(
            insert(t["campaign"]).values(
                id=1, name="lex25", title="Lex", registry=[], created=WHEN, registration="open"
            )
        )
        c.execute(
            insert(t["phase"]).values(
                id=1,
                campaign_id=1,
                name="trial",
                targets=["mc30"],
                opens=WHEN,
                deadline=WHEN,
                runs=3,
                max_bytes=10_000,
                hidden=False,
            )
        )
        for n, team in enumerate(SCORES, start=1):
            c.execute(
                insert(t["team"]).values(
                    id=n,
                    campaign_id=1,
                    name=team,
                    name_key=team,
                    token_key=f"k{n}",
                    token_salt="s",
                    token_hash="h",
                    created=WHEN,
                )
            )
            sub_id = f"{n:032x}"
            folder = storage.folder(sub_id)
            (folder / "items").mkdir(parents=True)
            (folder / "upload").write_bytes(b"w1 w2 0.5\n")
            items = {
                "word1": np.array([f"a{i}" for i in range(6)]),
                "word2": np.array([f"b{i}" for i in range(6)]),
                "gold": GOLD,
                "score": SCORES[team],
                "covered": np.ones(6),
                "counted": np.ones(6),
            }
            write_items(folder / "items" / "0.tsv.gz", items, 1)
            records[team] = _old_record(team)
            c.execute(
                insert(t["submission"]).values(
                    id=sub_id,
                    team_id=n,
                    phase_id=1,
                    target="mc30",
                    run=1,
                    status="scored",
                    client_name=f"{team}.csv",
                    sha256="0" * 64,
                    size=10,
                    received=WHEN,
                    results=[records[team]],
                )
            )
    db.dispose()
    return records


def test_a_0003_campaign_moves_into_the_store_and_exports_a_results_folder(serve_db, tmp_path):
    files = tmp_path / "files"
    old = _old_campaign(serve_db, files)
    db, storage = open_server(serve_db, files)  # head: 0004, then the records adopted
    try:
        with db.reading() as s:
            subs = {sub.team.name: sub for sub in s.scalars(select(Submission))}
            for team, sub in subs.items():
                assert sub.results_file == f"submissions/{sub.id}/results.jsonl"
                (line,) = (files / sub.results_file).read_text().splitlines()
                assert json.loads(line) == old[team]  # the record itself, unchanged
        out = tmp_path / "export"
        export(db, storage, "lex25", out)
    finally:
        db.dispose()
    exported = [json.loads(x) for x in (out / "trial" / "results.jsonl").read_text().splitlines()]
    assert [r["system"]["name"] for r in exported] == ["alpha run 1", "beta run 1"]
    for r in exported:
        team = r["system"]["name"].split()[0]
        assert r["metrics"] == old[team]["metrics"]
        assert r["items_file"] == f"items/{r['id']}.tsv.gz"
        source = files / "submissions" / subs[team].id / "items" / "0.tsv.gz"
        assert (out / "trial" / r["items_file"]).read_bytes() == source.read_bytes()
    alpha = spearmanr(GOLD, SCORES["alpha"]).statistic
    table = (out / "trial" / "leaderboard.csv").read_text().splitlines()
    assert table == [
        "rank,system,mc30,sum",
        f"1,alpha run 1,{alpha:.6f},{alpha:.6f}",
    ]  # beta dominated
    shown = CliRunner().invoke(cli, ["results", str(out / "trial")])
    assert shown.exit_code == 0, shown.output
    assert "alpha run 1" in shown.output and "beta run 1" in shown.output
    board = CliRunner().invoke(cli, ["leaderboard", str(out / "trial")])
    assert board.exit_code == 0, board.output
    assert board.output.index("alpha run 1") < board.output.index("beta run 1")  # 0.94 > -0.2


def test_adoption_runs_once(serve_db, tmp_path):
    files = tmp_path / "files"
    _old_campaign(serve_db, files)
    from simeval.serve.service.results import adopt_results

    db, storage = open_server(serve_db, files)
    try:
        assert adopt_results(db, storage) == 0  # open_server did it; nothing is appended twice
        for path in (files / "submissions").glob("*/results.jsonl"):
            assert len(path.read_text().splitlines()) == 1
    finally:
        db.dispose()
