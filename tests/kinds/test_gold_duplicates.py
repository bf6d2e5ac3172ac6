"""A gold pair file that gives one ordered pair two different scores (issue 30, hole 9).

Decision: a user's gold file is refused with an error naming the file and both lines; identical
repeats are warned of and stay items (as the official scorers count rows). The catalogued
files whose published figures include conflicting rows keep them, so no published number
moves: WordSim-353 rates money/cash twice (9.15 and 9.08) and the RUSSE train files rt.csv,
ae-train.csv and ae2-train.csv repeat pairs with 1 and 0. The last test finds those files by
reading every catalogued gold with the csv module, independently of simeval's reader.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from scipy.stats import spearmanr
from typer.testing import CliRunner

from simeval.cli import app
from simeval.errors import InputError
from simeval.kinds.pairs import PairEntry
from simeval.registry.loaders import from_path
from simeval.registry.lookup import Registry


def test_conflicting_duplicate_pair_in_a_users_gold_is_refused(tmp_path: Path) -> None:
    """On main: accepted silently, the pair counted twice with its two scores."""
    gold = tmp_path / "gold.csv"
    gold.write_text("word1,word2,sim\ncat,dog,3\nsun,moon,2\ncat,dog,7\n")
    with pytest.raises(InputError) as caught:
        from_path(gold)
    error = caught.value
    assert error.path == str(gold) and error.line == 4
    assert "line 2" in error.message and "3.0" in error.message and "7.0" in error.message


def test_the_reversed_pair_is_another_pair(tmp_path: Path) -> None:
    gold = tmp_path / "gold.csv"
    gold.write_text("cat,dog,3\ndog,cat,7\nsun,moon,2\n")
    assert len(from_path(gold).gold) == 3


def test_identical_repeats_are_kept_with_a_warning(tmp_path: Path) -> None:
    gold = tmp_path / "gold.tsv"
    gold.write_text("cat\tdog\t3\nsun\tmoon\t2\ncat\tdog\t3\n")
    bench = from_path(gold)
    assert len(bench.gold) == 3 and bench.gold.scores.tolist() == [3.0, 2.0, 3.0]
    (warning,) = bench.gold.warnings
    assert warning.line == 3 and "repeat an earlier pair" in warning.message


def test_a_registry_entry_of_the_user_is_refused_too(tmp_path: Path) -> None:
    (tmp_path / "g.csv").write_text("a,b,1\nc,d,2\na,b,4\n")
    toml = tmp_path / "mine.toml"
    toml.write_text('[benchmark.mine]\nkind = "graded"\ngold = "g.csv"\n')
    registry = Registry.catalog()
    registry.add_file(toml)
    with pytest.raises(InputError, match="given twice with different scores") as caught:
        registry.load("mine")
    assert caught.value.line == 3


def _conflicts(path: Path, column: str | None) -> int:
    """Rows giving an earlier (word1, word2) another score, counted with the csv module."""
    text = path.read_text(encoding="utf-8-sig")
    first = text.splitlines()[0]
    sep = "\t" if "\t" in first else "," if "," in first else None
    if sep is None:
        rows = [line.split() for line in text.splitlines() if line.strip()]
    else:
        rows = [r for r in csv.reader(text.splitlines(), delimiter=sep) if r]
    header = rows[0]
    if column is not None:
        index = header.index(column)
    elif "sim" in header:
        index = header.index("sim")
    else:
        index = 2
    seen: dict[tuple[str, str], str] = {}
    count = 0
    for row in rows:
        key, score = (row[0], row[1]), row[index]
        try:
            float(score)
        except ValueError:
            continue  # a header
        if key in seen and float(seen[key]) != float(score):
            count += 1
        seen.setdefault(key, score)
    return count


def test_catalogued_golds_keep_their_published_rows(data_dir: Path) -> None:
    registry = Registry.catalog()
    found = {}
    for entry in registry.entries.values():
        if isinstance(entry, PairEntry) and (
            conflicts := _conflicts(data_dir / entry.gold, entry.column)
        ):
            found[entry.gold] = conflicts
    assert found == {
        "russe/rt.csv": 72,
        "russe/ae-train.csv": 12,
        "russe/ae2-train.csv": 59,
        "wordsim353/combined.csv": 1,
    }
    ws = registry.load("wordsim353")
    assert len(ws.gold) == 353  # the published evaluation counts both money/cash rows
    money = [
        s for p, s in zip(ws.gold.pairs, ws.gold.scores, strict=True) if p == ("money", "cash")
    ]
    assert money == [9.15, 9.08]


# -- a policy for duplicate gold pairs (issue 44 item 5) ---------------------------------------
# A published set whose translation merged two pairs into one: cat,dog rated 3 and 7.
MERGED = "word1,word2,sim\ncat,dog,3\nsun,moon,2\ncat,dog,7\nsea,ship,5\nred,blue,1\n"
SUBMITTED = {("cat", "dog"): 0.4, ("sun", "moon"): 0.1, ("sea", "ship"): 0.9, ("red", "blue"): 0.3}
# (policy, the gold's items as scored, by hand): each row, or one item per pair
BY_HAND = {
    "each": [("cat", "dog", 3), ("sun", "moon", 2), ("cat", "dog", 7), ("sea", "ship", 5),
             ("red", "blue", 1)],
    "mean": [("cat", "dog", 5), ("sun", "moon", 2), ("sea", "ship", 5), ("red", "blue", 1)],
    "first": [("cat", "dog", 3), ("sun", "moon", 2), ("sea", "ship", 5), ("red", "blue", 1)],
}  # fmt: skip


@pytest.fixture
def merged(tmp_path: Path) -> Path:
    (tmp_path / "gold.csv").write_text(MERGED)
    (tmp_path / "pred.csv").write_text("".join(f"{a},{b},{s}\n" for (a, b), s in SUBMITTED.items()))
    return tmp_path


def _expected(policy: str) -> float:
    rows = BY_HAND[policy]
    return spearmanr([g for *_, g in rows], [SUBMITTED[(a, b)] for a, b, _ in rows])[0]


def _json(args: list[str]) -> dict:
    done = CliRunner().invoke(app, [*args, "--json"])
    assert done.exit_code == 0, done.output
    return json.loads(done.stdout.splitlines()[0])


@pytest.mark.parametrize("policy", ["each", "mean", "first"])
def test_score_pairs_duplicates_policy_scores_as_scipy_by_hand(merged: Path, policy: str) -> None:
    args = [
        "score",
        "pairs",
        "--gold",
        str(merged / "gold.csv"),
        "--pred",
        str(merged / "pred.csv"),
    ]
    record = _json([*args, "--duplicates", policy])
    assert record["metrics"]["spearman"] == pytest.approx(_expected(policy), abs=1e-12)
    assert record["coverage"]["gold"] == len(BY_HAND[policy])
    assert record["settings"]["duplicates"] == policy


@pytest.mark.parametrize("policy", ["each", "mean", "first"])
def test_a_registry_entry_chooses_the_policy(merged: Path, policy: str) -> None:
    toml = merged / "mine.toml"
    toml.write_text(f'[benchmark.mine]\ngold = "gold.csv"\nduplicates = "{policy}"\n')
    args = ["score", "pairs", "--benchmark", "mine", "--pred", str(merged / "pred.csv")]
    record = _json([*args, "--registry", str(toml)])
    assert record["metrics"]["spearman"] == pytest.approx(_expected(policy), abs=1e-12)
    assert record["settings"]["duplicates"] == policy


def test_python_and_evaluate_take_the_policy(merged: Path) -> None:
    import simeval

    target = simeval.load_target(str(merged / "gold.csv"), duplicates="mean")
    (result,) = simeval.score(target, SUBMITTED)
    assert result.metrics["spearman"] == pytest.approx(_expected("mean"), abs=1e-12)
    assert result.settings["duplicates"] == "mean"
    args = ["evaluate", "overlap", "-b", str(merged / "gold.csv"), "--no-save"]
    record = _json([*args, "--duplicates", "first"])
    assert record["coverage"]["gold"] == 4 and record["settings"]["duplicates"] == "first"


def test_the_default_refusal_names_the_option_of_each_door(merged: Path) -> None:
    args = [
        "score",
        "pairs",
        "--gold",
        str(merged / "gold.csv"),
        "--pred",
        str(merged / "pred.csv"),
    ]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 2 and f"{merged / 'gold.csv'}:4:" in done.stderr, done.stderr
    assert "--duplicates each|mean|first" in done.stderr, done.stderr
    with pytest.raises(InputError, match=r'duplicates="each"\|"mean"\|"first"'):
        from_path(merged / "gold.csv")
    toml = merged / "mine.toml"
    toml.write_text('[benchmark.mine]\ngold = "gold.csv"\nduplicates = "average"\n')
    done = CliRunner().invoke(app, ["benchmarks", "--registry", str(toml)])
    assert done.exit_code == 2 and f"{toml}:3:" in done.stderr, done.stderr
    assert "duplicates must be error, each, mean or first" in done.stderr


def test_every_command_reading_a_gold_file_takes_duplicates() -> None:
    """The refusal names --duplicates: each command that reads a gold pair file by path (the
    ones with --gold-column: evaluate, predict, score file, score pairs) must have it."""
    import typer

    def commands(group, path=""):
        for name, sub in getattr(group, "commands", {}).items():
            yield from commands(sub, f"{path} {name}".strip())
        yield path, {o for p in group.params for o in p.opts}

    readers = {path: opts for path, opts in commands(typer.main.get_command(app))
               if "--gold-column" in opts}  # fmt: skip
    assert {"evaluate", "predict", "score file", "score pairs"} <= set(readers)
    assert all("--duplicates" in opts for opts in readers.values()), readers
