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
    from simeval.serve.service.editing import exclude_run
    from simeval.serve.service.export import export

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
    from simeval.serve.service.export import _leaks

    (tmp_path / "items").mkdir()
    (tmp_path / "a.csv").write_text("team-01,0.5\n")
    (tmp_path / "b.md").write_text("| 1 | team-02 | by GAMMA |")
    (tmp_path / "items" / "c.tsv.gz").write_bytes(gzip.compress(b"x\tbeta-nlp\t1"))
    (tmp_path / "d.txt").write_text("gammaray betanlp")
    assert _leaks(tmp_path, ["Gamma", "beta-nlp", "ab"]) == [
        "b.md: 'GAMMA'",
        "items/c.tsv.gz: 'beta-nlp'",
    ]


def _records(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def test_names_that_are_words_of_the_export_are_replaced_by_field(tmp_path: Path, mc30) -> None:
    """Teams named like a metric (``spearman``), like a letter (``e``) and like a part of
    another team's name (``Alpha`` in ``AlphaLab``): the anonymised export is the plain one
    with each team field (the team column, the system names, the client file names) replaced
    and every metric key and value as it was."""
    from simeval.serve.service.editing import exclude_run
    from simeval.serve.service.export import export

    clock = Clock(OPENS + timedelta(days=1))
    server = make_server(f"sqlite:///{tmp_path / 'serve.db'}", tmp_path / "srv", clock)
    client, storage = server.client, server.app.state.service.storage
    teams = ("spearman", "e", "Alpha", "AlphaLab")
    for i, team in enumerate(teams):
        token = register(client, team)
        bad = b"word1,word2,sim\ncar,automobile,oops\n"
        assert upload(client, token, bad, target="mc30", filename=f"{team}.csv").status_code == 422
        for run in (1, 2):
            data, _ = pair_file(mc30, 10 * i + run)
            r = upload(client, token, data, target="mc30", filename=f"{team}-run{run}.csv")
            assert r.status_code == 201, r.text
    exclude_run(server.db, "lex25", "trial", "AlphaLab", 2, "withdrawn",
                "AlphaLab asked; spearman and Alpha did not", clock.now)  # fmt: skip
    export(server.db, storage, "lex25", tmp_path / "plain")
    key = tmp_path / "key.csv"
    export(server.db, storage, "lex25", tmp_path / "anon", anonymise=True, key=key)
    server.db.dispose()

    alias = {team: a for a, team in csv.reader(key.open()) if a != "alias"}
    assert sorted(alias) == sorted(teams) and len(set(alias.values())) == 4

    plain = list(csv.DictReader((tmp_path / "plain" / "submissions.csv").open()))
    anon = list(csv.DictReader((tmp_path / "anon" / "submissions.csv").open()))
    assert len(plain) == len(anon) == 12
    for p, a in zip(plain, anon, strict=True):
        assert a["team"] == alias[p["team"]]
        assert a["client_name"] == "" and p["client_name"].startswith(p["team"])
        file_free = p["error"].replace(p["client_name"], "<file>")
        assert a["error"] == file_free  # "<file>:2: sim: expected a decimal number, got 'oops'"
        same = set(p) - {"team", "client_name", "error", "excluded_reason"}
        assert {k: a[k] for k in same} == {k: p[k] for k in same}
    (reason,) = {a["excluded_reason"] for a in anon if a["excluded_reason"]}
    assert reason == (f"{alias['AlphaLab']} asked; {alias['spearman']} and {alias['Alpha']} "
                      "did not")  # fmt: skip

    def system(name: str) -> str:
        team, _, run = name.rpartition(" run ")
        return f"{alias[team]} run {run}"

    plain_records = _records(tmp_path / "plain" / "trial" / "results.jsonl")
    anon_records = _records(tmp_path / "anon" / "trial" / "results.jsonl")
    assert len(plain_records) == len(anon_records) == 7  # AlphaLab run 2 withdrawn
    for p, a in zip(plain_records, anon_records, strict=True):
        assert a["system"]["name"] == system(p["system"]["name"])
        assert a["system"]["file"] == "<file>" != p["system"]["file"]
        assert set(a["metrics"]) == {"spearman", "pearson"}
        assert {k: v for k, v in a.items() if k != "system"} == {
            k: v for k, v in p.items() if k != "system"
        }
    plain_board = list(csv.reader((tmp_path / "plain" / "trial" / "leaderboard.csv").open()))
    anon_board = list(csv.reader((tmp_path / "anon" / "trial" / "leaderboard.csv").open()))
    names = [i for i, cell in enumerate(plain_board[0]) if cell.lower() == "system"]
    assert names and anon_board[0] == plain_board[0]
    for p, a in zip(plain_board[1:], anon_board[1:], strict=True):
        assert a == [system(c) if i in names else c for i, c in enumerate(p)]
