"""The anonymised export (issue 32, item 5): no team's name and no client file name anywhere
in it, CSV included (CodaLab's exports leaked usernames), with the numbers unchanged; the key
(alias → team) only where the organiser asks, outside the export."""

from __future__ import annotations

import csv
import gzip
import json
from datetime import timedelta
from pathlib import Path

import pytest

from serve_kit import OPENS, Clock, make_server, pair_file, register, upload

pytest.importorskip("fastapi")


def test_no_name_leaks_and_the_numbers_stay(tmp_path: Path, mc30) -> None:
    from scipy.stats import spearmanr

    from simeval.errors import InputError
    from simeval.serve.service.campaigns import export
    from simeval.serve.service.editing import exclude_run

    clock = Clock(OPENS + timedelta(days=1))
    server = make_server(f"sqlite:///{tmp_path / 'serve.db'}", tmp_path / "srv", clock)
    client, storage = server.client, server.app.state.service.storage
    truth = [g for *_, g in mc30]
    expected = {}
    for i, team in enumerate(("AlphaLab", "beta-nlp", "Gamma")):
        token = register(client, team)
        data, scores = pair_file(mc30, 20 + i)
        r = client.post("/api/phases/trial/submissions", content=data,
                        params={"target": "mc30", "filename": f"{team}-final.csv"},
                        headers={"authorization": f"Bearer {token}"})  # fmt: skip
        assert r.status_code == 201, r.text
        expected[team] = spearmanr(truth, scores)[0]
        bad = b"word1,word2,sim\ncar,automobile,oops\n"
        assert (
            upload(client, token, bad, target="mc30", filename=f"{team}-bad.csv").status_code == 422
        )
    exclude_run(server.db, "lex25", "trial", "Gamma", 1, "disqualified",
                "Gamma used the test gold", clock.now)  # fmt: skip
    key = tmp_path / "key.csv"
    with pytest.raises(InputError, match="outside the export"):
        export(server.db, storage, "lex25", tmp_path / "out", True, tmp_path / "out" / "k.csv")
    export(server.db, storage, "lex25", tmp_path / "out", anonymise=True, key=key)

    names = ["alphalab", "beta-nlp", "gamma", "-final.csv", "-bad.csv"]
    for path in (tmp_path / "out").rglob("*"):
        if path.is_file() and path.parent.name != "submissions":
            raw = path.read_bytes()
            text = (gzip.decompress(raw) if path.suffix == ".gz" else raw).decode().lower()
            assert not [n for n in names if n in text], path
    alias = dict(csv.reader(key.open()))
    alias.pop("alias")
    assert sorted(alias.values()) == ["AlphaLab", "Gamma", "beta-nlp"]
    assert sorted(alias) == ["team-01", "team-02", "team-03"]
    rows = list(csv.DictReader((tmp_path / "out" / "submissions.csv").open()))
    assert {r["team"] for r in rows} == set(alias) and all(r["client_name"] == "" for r in rows)
    gamma = next(a for a, t in alias.items() if t == "Gamma")
    marked = [r for r in rows if r["team"] == gamma and r["status"] == "scored"]
    assert marked[0]["excluded_reason"] == f"{gamma} used the test gold"
    records = [
        json.loads(x) for x in (tmp_path / "out/trial/results.jsonl").read_text().splitlines()
    ]
    scores = {r["system"]["name"]: r["metrics"]["spearman"] for r in records}
    for a, team in alias.items():
        if team != "Gamma":  # excluded: not in the phase's results
            assert scores[f"{a} run 1"] == pytest.approx(expected[team], abs=1e-12)
    assert all(r["system"]["file"] == "<file>" for r in records)
    server.db.dispose()


def test_the_leak_check_finds_a_name_as_a_token(tmp_path: Path) -> None:
    """The check that refuses an anonymised export finds a team's name as a whole token, in
    a plain file and inside a gzip'd one, case-folded; not inside a longer word."""
    from simeval.serve.service.campaigns import _leaks

    (tmp_path / "items").mkdir()
    (tmp_path / "a.csv").write_text("team-01,0.5\n")
    (tmp_path / "b.md").write_text("| 1 | team-02 | by GAMMA |")
    (tmp_path / "items" / "c.tsv.gz").write_bytes(gzip.compress(b"x\tbeta-nlp\t1"))
    (tmp_path / "d.txt").write_text("gammaray betanlp")
    assert _leaks(tmp_path, ["Gamma", "beta-nlp", "ab"]) == [
        "b.md: 'GAMMA'",
        "items/c.tsv.gz: 'beta-nlp'",
    ]
