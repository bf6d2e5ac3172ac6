"""The export's tables for the overview paper (issue 32, item 5): the final table in CSV,
LaTeX (booktabs) and Markdown with each target's rank interval, upper bound and tier, RUSSE's
dominance pruning (or not) and top N, every run's per-item scores, and an anonymised export
that names no team in any of them."""

from __future__ import annotations

import csv
import gzip
import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy.stats import spearmanr

from serve_kit import perturbed, register, upload, wait_for_tiers

pytest.importorskip("fastapi")

# alpha best; deep_sim within noise of it; gamma worse; delta about random (beaten by alpha
# on both targets: dominated)
TEAMS = (("alpha", 0.25), ("deep_sim", 0.3), ("gamma", 1.6), ("delta", 40.0))
TARGETS = ("mc30", "rg65")


def campaign(srv: Any, mc30: list, rg65: list) -> dict[tuple[str, str], bytes]:
    """The teams' and a baseline's runs, one per target: ``(team, target) → file``."""
    from simeval.serve.service.editing import set_baseline

    server, clock = srv
    sent = {}
    for i, (team, sd) in enumerate((*TEAMS, ("orgbase", 0.0))):
        token = register(server.client, team)
        for target, pairs in zip(TARGETS, (mc30, rg65), strict=True):
            sent[(team, target)] = data = perturbed(pairs, sd, 100 + i)
            assert upload(server.client, token, data, target=target).status_code == 201
    set_baseline(server.db, "lex25", "orgbase", True, clock.now)
    return sent


def tables(path: Path) -> list[list[dict[str, str]]]:
    """The CSV tables of a file (a blank line between two)."""
    text = path.read_text(encoding="utf-8")
    return [list(csv.DictReader(io.StringIO(t))) for t in text.split("\n\n") if t.strip()]


def sent_scores(data: bytes) -> list[float]:
    return [float(r["sim"]) for r in csv.DictReader(io.StringIO(data.decode()))]


def test_final_tables_tiers_top_and_per_item_scores(srv, mc30, rg65, tmp_path) -> None:
    from typer.testing import CliRunner

    from simeval.cli import app

    server, _ = srv
    sent = campaign(srv, mc30, rg65)
    golds = {"mc30": [g for *_, g in mc30], "rg65": [g for *_, g in rg65]}

    out = tmp_path / "all"
    cli = ["serve", "export", str(server.folder), "-c", "lex25", "--db", server.url]
    done = CliRunner().invoke(app, [*cli, "--out", str(out), "--keep-dominated", "--top", "2"])
    assert done.exit_code == 0, done.output
    printed = done.output.split()
    for name in ("final.csv", "final.tex", "final.md", "top.csv", "per-item/mc30.csv"):
        assert str(out / "trial" / name) in printed, name  # the export prints what it wrote

    (final,) = tables(out / "trial" / "final.csv")
    assert list(final[0]) == ["rank", "system", "mc30", "rg65", "sum",
                              "mc30 rank interval", "mc30 UB", "mc30 tier",
                              "rg65 rank interval", "rg65 UB", "rg65 tier"]  # fmt: skip
    rows = {r["system"]: r for r in final}
    assert set(rows) == {f"{t} run 1" for t, _ in TEAMS} | {"orgbase run 1 (baseline)"}
    for team, _ in TEAMS:
        row = rows[f"{team} run 1"]
        for target in TARGETS:  # scores as scipy computes them from the files sent
            rho = spearmanr(golds[target], sent_scores(sent[(team, target)]))[0]
            assert float(row[target]) == pytest.approx(rho, abs=5e-6)
    baseline = rows["orgbase run 1 (baseline)"]
    assert baseline["rank"] == "" and baseline["mc30 tier"] == "" and baseline["mc30 UB"] == ""
    assert rows["alpha run 1"]["rank"] == "1" and rows["delta run 1"]["rank"] == "4"
    # the same tiers as the live board (which equal simeval leaderboard --tiers: the test of
    # test_serve_tiers.py)
    live = wait_for_tiers(server.client)["tiers"]["benchmarks"]
    for target in TARGETS:
        for system, s in live[target]["runs"].items():
            row = rows[system]
            assert row[f"{target} rank interval"] == "{}–{}".format(*s["interval"])
            assert (row[f"{target} UB"], row[f"{target} tier"]) == (
                str(s["upper_bound"]),
                str(s["tier"]),
            )

    tex = (out / "trial" / "final.tex").read_text()
    assert r"\toprule" in tex and r"\midrule" in tex and r"\bottomrule" in tex
    assert r"deep\_sim run 1" in tex and "deep_sim" not in tex and r"\hline" not in tex
    md = (out / "trial" / "final.md").read_text()
    assert "| deep\\_sim run 1 |" in md and "B = 1000" in md and "Holm" in md

    top = tables(out / "trial" / "top.csv")  # the top 2 of each target, no baseline
    assert len(top) == 2 and [len(t) for t in top] == [2, 2]
    assert {r["system"] for t in top for r in t} <= {"alpha run 1", "deep_sim run 1"}
    assert list(top[0][0])[-3:] == ["rank interval", "UB", "tier"]

    items = list(csv.DictReader((out / "trial" / "per-item" / "rg65.csv").open()))
    assert len(items) == 65 * 5  # every run, the baseline's too, every pair
    for team in ("deep_sim", "orgbase"):
        mine = [r for r in items if r["run"] == f"{team} run 1"]
        assert [(r["word1"], r["word2"]) for r in mine] == [(a, b) for a, b, _ in rg65]
        assert np.allclose([float(r["gold"]) for r in mine], golds["rg65"])
        assert np.allclose([float(r["score"]) for r in mine], sent_scores(sent[(team, "rg65")]))

    pruned = tmp_path / "pruned"  # the default: RUSSE's pruning of dominated runs
    done = CliRunner().invoke(app, [*cli, "--out", str(pruned)])
    assert done.exit_code == 0, done.output
    (final,) = tables(pruned / "trial" / "final.csv")
    assert "delta run 1" not in {r["system"] for r in final}
    assert "delta run 1 (by " in (pruned / "trial" / "final.md").read_text()
    # with a baseline on the board, the final leaderboard still says what it dropped
    assert "deep_sim run 1 (by alpha run 1)" in (
        pruned / "trial" / "leaderboard.md"
    ).read_text().replace("\\", "")
    assert not (pruned / "trial" / "top.csv").exists()


def test_the_anonymised_paper_files_name_no_team(srv, mc30, rg65, tmp_path) -> None:
    """The command of docs/guide/shared-task.md ("Tiers on the leaderboard") writes the files
    the page lists, and with --anonymise none of them names a team."""
    import re

    from typer.testing import CliRunner

    from simeval.cli import app

    server, _ = srv
    campaign(srv, mc30, rg65)
    page = (Path(__file__).parents[2] / "docs/guide/shared-task.md").read_text()
    command = next(line for line in page.splitlines() if "--out paper --top 5" in line)
    args = command.split()[1:]  # after "simeval"
    args[args.index("srv")] = str(server.folder)
    args[args.index("paper")] = str(tmp_path / "paper")
    args[args.index("key.csv")] = str(tmp_path / "key.csv")
    done = CliRunner().invoke(app, [*args, "--db", server.url, "--keep-dominated"])
    assert done.exit_code == 0, done.output
    listed = set(re.findall(r"`paper/<phase>/([\w./-]+)`", page))
    listed |= {f"{m}.{x}" for m in ("final", "top") for x in ("csv", "tex", "md")}
    assert "per-item" in page
    for name in [*sorted(listed), "per-item/mc30.csv", "per-item/rg65.csv"]:
        assert (tmp_path / "paper" / "trial" / name).is_file(), name
    teams = ["alpha", "deep_sim", "deep\\_sim", "gamma", "delta", "orgbase"]
    for path in (tmp_path / "paper").rglob("*"):
        if path.is_file() and path.parent.name != "submissions":
            raw = path.read_bytes()
            text = (gzip.decompress(raw) if path.suffix == ".gz" else raw).decode().lower()
            assert not [n for n in teams if n in text], path
    (final,) = tables(tmp_path / "paper" / "trial" / "final.csv")
    assert all(r["system"].startswith("team-") for r in final)
    assert len({r["mc30 tier"] for r in final if r["mc30 tier"]}) >= 2
