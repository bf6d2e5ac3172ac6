"""The leaderboard as data (issue 47, item 1): ``leaderboard(..., fmt="frame")`` is a DataFrame
with a row per benchmark and system, and ``simeval leaderboard --format frame`` its CSV. Its
cells are the printed tables' (checked against the CSV tables), its scores scipy's Spearman of
the predictions, its Holm-adjusted p-values Holm's step-down (written here) over the p-values
``simeval.compare`` gives for the same pairs."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import spearmanr
from typer.testing import CliRunner

import simeval
from simeval.cli import app

SYSTEMS = {"alpha": 11, "beta": 12, "gamma": 13}  # name -> noise seed: three close systems
HOW = {"replicates": 200, "seed": 3}


@pytest.fixture(scope="module")
def scored() -> tuple[dict, list]:
    """predictions[(benchmark, system)] and every result."""
    predictions, results = {}, []
    for bench in ("rg65", "mc30"):
        b = simeval.benchmark(bench)
        for name, seed in SYSTEMS.items():
            noisy = np.asarray(b.gold) + np.random.default_rng(seed).normal(0, 1.2, len(b.gold))
            predictions[(bench, name)] = noisy.tolist()
            results += b.score(noisy.tolist(), name=name)
    return predictions, results


def _tables(text: str) -> list[list[dict[str, str]]]:
    return [list(csv.DictReader(io.StringIO(t))) for t in text.split("\n\n") if t.strip()]


def test_the_frame_holds_the_printed_cells_and_scipys_scores(scored) -> None:
    predictions, results = scored
    frame = simeval.leaderboard(results, "frame", tiers=True, **HOW)
    overall, *per_benchmark = _tables(simeval.leaderboard(results, "csv", tiers=True, **HOW))
    assert len(frame) == 6 and set(frame["benchmark"]) == {"rg65", "mc30"}
    for row in frame.to_dict("records"):
        gold = simeval.benchmark(row["benchmark"]).gold
        expected = spearmanr(gold, predictions[(row["benchmark"], row["system"])])[0]
        assert row["score"] == pytest.approx(expected, abs=1e-12)
    printed = {(t, r["system"]): r for t, table in zip(("rg65", "mc30"), per_benchmark,
                                                       strict=True) for r in table}  # fmt: skip
    for row in frame.to_dict("records"):
        cells = printed[(row["benchmark"], row["system"])]
        assert int(cells["rank"]) == row["rank"] and float(cells["spearman"]) == pytest.approx(
            row["score"], rel=1e-5
        )
        assert cells["rank interval"] == f"{row['rank_low']}–{row['rank_high']}"
        assert (int(cells["UB"]), int(cells["tier"])) == (row["upper_bound"], row["tier"])
    for cells in overall:
        mine = frame[frame["system"] == cells["system"]]
        assert set(mine["overall_rank"]) == {int(cells["rank"])}
        assert mine["overall"].iloc[0] == pytest.approx(float(cells["sum"]), rel=1e-5)


def _holm(p: list[float]) -> list[float]:
    """Holm's step-down adjustment, by its definition (max over the running products)."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    out, running = [0.0] * len(p), 0.0
    for step, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - step) * p[i]))
        out[i] = running
    return out


def test_the_holm_p_values_adjust_compares_p_values(scored) -> None:
    _, results = scored
    frame = simeval.leaderboard(results, "frame", tiers=True, **HOW)
    joined = 0
    for bench, rows in frame.groupby("benchmark"):
        best = rows.sort_values("score", ascending=False).iloc[0]["system"]
        others = [s for s in rows["system"] if s != best]

        def of(system: str, bench: str = bench) -> list:
            return [r for r in results if r.benchmark == bench and r.system["name"] == system]

        raw = [simeval.compare(of(best), of(s), **HOW).verdicts[0].main.p_value for s in others]
        for system, adjusted in zip(others, _holm(raw), strict=True):
            row = rows[rows["system"] == system].iloc[0]
            if adjusted >= 0.05:  # joins the best's tier: its p-value is shown
                joined += 1
                assert row["tier"] == 1 and row["p_holm"] == pytest.approx(adjusted, abs=1e-12)
        assert np.isnan(rows[rows["system"] == best]["p_holm"].iloc[0])
    assert joined  # three systems this close share a tier somewhere


def test_without_tiers_the_frame_has_no_tier_columns(scored) -> None:
    _, results = scored
    frame = simeval.leaderboard(results, "frame")
    assert "tier" not in frame and frame["rank"].tolist()[:3] == [1, 2, 3]


def test_the_command_line_prints_the_frame_as_csv(scored, tmp_path: Path) -> None:
    _, results = scored
    simeval.api.keep_results(results, tmp_path)
    done = CliRunner().invoke(app, ["leaderboard", str(tmp_path), "-f", "frame", "--tiers",
                                    "-B", "200", "--seed", "3"])  # fmt: skip
    assert done.exit_code == 0, done.output
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    frame = simeval.leaderboard(tmp_path, "frame", tiers=True, **HOW)
    assert [r["system"] for r in rows] == frame["system"].tolist()
    assert [float(r["score"]) for r in rows] == frame["score"].tolist()  # in full: repr
    assert [r["tier"] for r in rows] == [str(t) for t in frame["tier"]]
    assert [r["p_holm"] for r in rows] == ["" if p != p else repr(p) for p in frame["p_holm"]]
