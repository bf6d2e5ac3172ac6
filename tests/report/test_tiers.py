"""Rank tiers on hand-made results whose tiers are known by construction: rank intervals that
hold the rank and shrink with n, the greedy tiers, their p-values against ``compare``'s, and
the tiers on the command line, in memory and in the report (the statistics over arrays:
tests/metrics/test_tiers.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simeval.api import score
from simeval.api.reporting import compare_systems
from simeval.metrics.stats import Resampling
from simeval.report.collect import load_grid
from simeval.report.tiers import grid_tiers
from simeval.results.store import save_results

N = 2000


def _results(tmp_path: Path, systems: dict[str, np.ndarray], gold: np.ndarray, kind: str) -> Path:
    """A results folder: each system's scores scored against ``gold`` as a pair file."""
    from simeval.kinds.pairs import pair_file

    gold_file = tmp_path / "gold.csv"
    gold_file.write_text("".join(f"w{i},v{i},{y!r}\n" for i, y in enumerate(gold.tolist())))
    target = pair_file(gold_file, kind)
    folder = tmp_path / "res"
    for name, scores in systems.items():
        f = tmp_path / f"{name}.csv"
        f.write_text("".join(f"w{i},v{i},{s!r}\n" for i, s in enumerate(scores.tolist())))
        save_results(folder, score(target, f, system={"name": name}))
    return folder


def _transposed(values: np.ndarray, swaps: int, gap: int, seed: int) -> np.ndarray:
    """``values`` with ``swaps`` disjoint pairs of positions ``gap`` apart exchanged: every
    such ranking has Σd² = swaps · 2 · gap² against the original, so the same Spearman ρ."""
    rng = np.random.default_rng(seed)
    out, used = values.copy(), np.zeros(len(values), dtype=bool)
    done = 0
    for i in rng.permutation(len(values) - gap):
        if done == swaps:
            break
        if not (used[i] or used[i + gap]):
            out[i], out[i + gap] = out[i + gap], out[i]
            used[i] = used[i + gap] = True
            done += 1
    assert done == swaps
    return out


@pytest.fixture(scope="module")
def equal_three(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three systems with exactly equal Spearman ρ on 2,000 items (each the gold's order
    with 400 different transpositions 150 apart: ρ = 1 − 6·400·2·150²/(n(n²−1)) ≈ 0.973)
    and one clearly worse (the gold plus noise: ρ ≈ 0.70)."""
    gold = np.arange(N, dtype=float)
    noise = np.random.default_rng(9).normal(scale=N * 0.6, size=N)
    systems = {name: _transposed(gold, 400, 150, seed) for seed, name in enumerate("ABC", 1)}
    systems["D"] = gold + noise
    return _results(tmp_path_factory.mktemp("equal"), systems, gold, "graded")


@pytest.fixture(scope="module")
def chain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ≈ B and B ≈ C, but A ≫ C: the gold plus independent noise of SD 0.9, 0.96, 1.02."""
    gold = np.random.default_rng(7).normal(size=N)
    systems = {
        name: gold + np.random.default_rng(seed).normal(scale=sd, size=N)
        for name, sd, seed in (("A", 0.9, 1), ("B", 0.96, 2), ("C", 1.02, 3))
    }
    return _results(tmp_path_factory.mktemp("chain"), systems, gold, "graded")


def _tiers(folder: Path, replicates: int = 1000, seed: int = 0):
    grid = load_grid(folder)
    (bench,) = grid.benchmarks
    return bench, grid_tiers(grid, bench, Resampling(replicates, seed))


# -- on results --------------------------------------------------------------------------


def test_three_equal_systems_and_a_worse_one(equal_three: Path) -> None:
    """Tiers {A, B, C}, {D}; D's interval is rank 4 alone, UB 4; A, B, C are within 1-3,
    UB 1, each interval holding the observed rank (all three tie at 1)."""
    bench, found = _tiers(equal_three)
    grid = load_grid(equal_three)
    rho = [grid.get(s, bench).score for s in "ABC"]
    expected = 1 - 6 * 400 * 2 * 150**2 / (N * (N**2 - 1))
    assert rho == pytest.approx([expected] * 3, abs=1e-12)
    s = found.standings
    assert {k: v.tier for k, v in s.items()} == {"A": 1, "B": 1, "C": 1, "D": 2}
    assert s["D"].interval == (4, 4) and s["D"].upper_bound == 4
    for name in "ABC":
        low, high = s[name].interval
        assert low == 1 and high <= 3 and s[name].upper_bound == 1
    # the tests between equal correlations: Williams' t is 0, p = 1
    assert found.tests == ["Williams"]
    assert found.p_values[("A", "B")] == pytest.approx(1.0)


def test_a_chain_splits_by_the_greedy_rule(chain: Path) -> None:
    """compare's own p-values set the premise (A vs B and B vs C not significant, A vs C
    significant after Holm's ×2); the tiers are then {A, B}, {C}."""
    bench, found = _tiers(chain)
    p = {
        (a, b): compare_systems(chain, a, b, bench, 1000, 0)[2].main.p_value
        for a, b in (("A", "B"), ("B", "C"), ("A", "C"))
    }
    assert p[("A", "B")] > 0.05 and p[("B", "C")] > 0.05 and 2 * p[("A", "C")] < 0.05
    assert {k: v.tier for k, v in found.standings.items()} == {"A": 1, "B": 1, "C": 2}


def test_rank_intervals_hold_the_rank_and_shrink_with_n(chain: Path, tmp_path: Path) -> None:
    """The same three systems on their first 200 items, then on all 2,000: every interval
    holds the observed rank, and the intervals are narrower on 2,000 items."""
    grid = load_grid(chain)
    (bench,) = grid.benchmarks
    items = {s: grid.get(s, bench).items() for s in grid.systems}
    few = _results(
        tmp_path, {s: it["score"][:200] for s, it in items.items()}, items["A"]["gold"][:200],
        "graded",
    )  # fmt: skip
    widths = []
    for folder in (few, chain):
        g = load_grid(folder)
        (b,) = g.benchmarks
        found = grid_tiers(g, b, Resampling(1000, 0))
        observed = sorted(g.systems, key=lambda s: -g.get(s, b).score)
        for rank, s in enumerate(observed, 1):
            low, high = found.standings[s].interval
            assert low <= rank <= high
        widths.append(sum(v.interval[1] - v.interval[0] for v in found.standings.values()))
    assert widths[1] < widths[0]


@pytest.fixture(scope="module")
def related(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Related pairs (AP: approximate randomization): 600 pairs, half related; four systems,
    the label plus noise of SD 0.8, 0.85, 1.2 and 3."""
    labels = np.array([1.0, 0.0] * 300)
    systems = {
        name: labels + np.random.default_rng(seed).normal(scale=sd, size=len(labels))
        for name, sd, seed in (("P", 0.8, 11), ("Q", 0.85, 12), ("R", 1.2, 13), ("S", 3, 14))
    }
    return _results(tmp_path_factory.mktemp("related"), systems, labels, "related")


@pytest.mark.parametrize("case", ["chain", "related"])
def test_tier_p_values_are_compares(case: str, request: pytest.FixtureRequest) -> None:
    """Every p-value the tiers rest on equals ``simeval compare``'s for the same pair, seed and
    replicates (compare_systems is what the command prints), Williams and AR alike."""
    folder = request.getfixturevalue(case)
    bench, found = _tiers(folder, 300, 4)
    assert found.p_values
    for (a, b), p in found.p_values.items():
        assert p == compare_systems(folder, a, b, bench, 300, 4)[2].main.p_value
    assert found.tests == (["Williams"] if case == "chain" else ["approximate randomization"])
    # and the command's verdict line shows the same p for the last pair
    from typer.testing import CliRunner

    from simeval.cli import app
    from simeval.report.format import p_is

    args = ["compare", a, b, "-b", bench, "--results", str(folder), "-B", "300", "--seed", "4"]
    shown = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    assert f"p {p_is(p)}" in shown.stdout


def test_leaderboard_tiers_on_the_command_line(related: Path) -> None:
    """``simeval leaderboard --tiers``: the columns, the tiers, the method line (Markdown);
    the terminal table and its note within 80 columns; --tiers with --metric is refused."""
    from typer.testing import CliRunner

    from simeval.cli import app

    runner = CliRunner()
    args = ["leaderboard", str(related), "--tiers", "-B", "300"]
    shown = runner.invoke(app, [*args, "-f", "markdown"])
    assert shown.exit_code == 0, shown.output
    rows = [line for line in shown.stdout.splitlines() if line.startswith("|")]
    assert rows[-6].endswith("| rank interval | UB | tier |")
    assert "B = 300, seed 0" in shown.stdout and "Holm-corrected" in shown.stdout
    # S (SD 3) is the only system in its tier, ranked last in every replicate
    assert rows[-1].startswith("| 4 | S |") and rows[-1].endswith("| 4–4 | 4 | 3 |")
    text = runner.invoke(app, args, env={"COLUMNS": "80"})
    assert text.exit_code == 0, text.output
    lines = text.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert any("rank interval" in line and "tier" in line for line in lines)
    cells = [[c.strip() for c in line.split("│")[1:-1]] for line in lines if "│" in line]
    assert ["4", "S", "0.5991", "4–4", "4", "3"] in cells
    refused = runner.invoke(app, ["leaderboard", str(related), "--tiers", "-m", "ap"])
    assert refused.exit_code == 2
    assert "--tiers ranks by each benchmark's main metric" in refused.output


def test_report_shows_the_tiers(related: Path, tmp_path: Path) -> None:
    """The HTML report's benchmark section holds the tiered leaderboard: the same intervals
    and tiers as grid_tiers computes, and the method under it."""
    import re

    from simeval.api.reporting import write_report

    page = tmp_path / "report.html"
    write_report(related, page, replicates=300, seed=2, jobs=1)
    text = page.read_text()
    _, found = _tiers(related, 300, 2)
    start = text.index(": rank tiers</caption>")
    table = text[start : text.index("</table>", start)]
    assert "<th>rank interval</th>" in table or ">rank interval<" in table
    for s in found.standings.values():
        row = table[table.index(f">{s.system}<") :].split("</tr>")[0]
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
        assert cells[-3:] == ["{}–{}".format(*s.interval), str(s.upper_bound), str(s.tier)]
    assert "B = 300, seed 2" in text[start:]


def test_leaderboard_tiers_of_results_in_memory() -> None:
    """``simeval.leaderboard(results, tiers=True)`` on what ``simeval.evaluate`` returns (rows
    held in memory, no results folder) tiers the systems: on MC-30's 30 pairs orthographic
    (ρ 0.118) and random (−0.360) cannot be told apart by compare's test, so one tier, each
    interval covering ranks 1 and 2."""
    import simeval

    results = [*simeval.evaluate("orthographic:kind=prefix", "mc30"),
               *simeval.evaluate("random:seed=1", "mc30")]  # fmt: skip
    board = simeval.leaderboard(results, tiers=True, replicates=300)
    rows = [line for line in board.splitlines() if line.startswith("| ")]
    assert rows[-2].startswith("| 1 | orthographic:kind=prefix |")
    assert rows[-2].endswith("| 1–2 | 1 | 1 |") and rows[-1].endswith("| 1–2 | 1 | 1 |")
    verdict = simeval.compare(results[0], results[1], replicates=300).verdicts[0]
    assert verdict.main.p_value > 0.05


def test_one_paired_bootstrap_for_every_system(tmp_path: Path) -> None:
    """B is A with every related pair's score lowered and every unrelated pair's raised by
    0.01: on any set of items B orders no (related, unrelated) couple better than A does, so
    when both are ranked on the same resampled items A is first in every replicate. Their AP
    differs by less than 0.01, under half of AP's own standard error here (binomial, over 300
    positives: √(0.8·0.2/300) ≈ 0.023), so draws made apart for each system would cross
    (with a seed per system this test fails: B's interval is 1-2)."""
    labels = np.array([1.0, 0.0] * 300)
    a = labels + np.random.default_rng(21).normal(size=len(labels))
    b = a - 0.01 * labels + 0.01 * (1 - labels)
    folder = _results(tmp_path, {"A": a, "B": b}, labels, "related")
    grid = load_grid(folder)
    (bench,) = grid.benchmarks
    assert 0 < grid.get("A", bench).score - grid.get("B", bench).score < 0.01
    found = grid_tiers(grid, bench, Resampling(500, 0))
    assert found.standings["A"].interval == (1, 1)
    assert found.standings["B"].interval == (2, 2)


def test_a_system_of_tied_scores_is_ranked_last_and_not_tiered(tmp_path: Path) -> None:
    """T scores 0 on 1,995 of 2,000 items (99.75% tied: no information, the report's rule)
    and ranks those five best: its Spearman ρ is above the noisy system's, yet it gets no
    tier and rank 3 in every replicate; A and N are tiered as if T were not there."""
    gold = np.random.default_rng(5).normal(size=N)
    tied = np.zeros(N)
    top = np.argsort(gold)[-5:]
    tied[top] = gold[top]
    systems = {
        "A": gold + np.random.default_rng(6).normal(scale=0.5, size=N),
        "N": gold + np.random.default_rng(7).normal(scale=20, size=N),
        "T": tied,
    }
    folder = _results(tmp_path, systems, gold, "graded")
    grid = load_grid(folder)
    (bench,) = grid.benchmarks
    assert grid.get("T", bench).score > grid.get("N", bench).score
    found = grid_tiers(grid, bench, Resampling(300, 0)).standings
    assert found["T"].tier is None and found["T"].interval == (3, 3)
    assert found["A"].interval == (1, 1) and found["A"].tier == 1
    assert found["N"].interval == (2, 2) and found["N"].tier == 2


def test_the_report_runs_each_paired_test_once(chain: Path, tmp_path: Path, monkeypatch) -> None:
    """The section's p against the best and its tiers test the same pairs (A against B and
    C: A ≈ B joins A's tier, C is left alone, so no third test): each is computed once, and
    the tiers shown are still grid_tiers' own."""
    from simeval.api.reporting import write_report
    from simeval.report import compare as compare_module

    calls = []
    real = compare_module.paired_bootstrap

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(compare_module, "paired_bootstrap", counted)
    page = tmp_path / "report.html"
    write_report(chain, page, replicates=200, seed=3, jobs=1)
    assert len(calls) == 2  # A-B and A-C; before: twice each
    monkeypatch.setattr(compare_module, "paired_bootstrap", real)
    _, found = _tiers(chain, 200, 3)
    assert [found.standings[s].tier for s in "ABC"] == [1, 1, 2]
    text = page.read_text()
    start = text.index(": rank tiers</caption>")
    for s in found.standings.values():
        row = text[text.index(f">{s.system}<", start) :].split("</tr>")[0]
        assert row.endswith(f"<td>{s.tier}</td>") or f">{s.tier}<" in row[-40:]
