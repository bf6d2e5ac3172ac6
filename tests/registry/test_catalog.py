"""The built-in catalog as TOML (``simeval/registry/catalog/*.toml``): every catalogued file's
size and sha256 checked with hashlib against the real data; a new benchmark as one TOML entry,
built-in or a user's, listed and scored with scipy's value; errors that name file and line."""

from __future__ import annotations

import hashlib
import json
import shutil
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from scipy.stats import pearsonr, spearmanr
from typer.testing import CliRunner

import simeval
from simeval.cli import app
from simeval.data import catalog
from simeval.errors import InputError
from simeval.registry import Registry

runner = CliRunner()
CATALOG_DIR = Path(simeval.__file__).parent / "registry" / "catalog"

PAIRS = """\
cup mug 4.5
cup cap 1.0
lake pond 4.0
lake bake 0.5
road street 4.8
road toad 0.2
song tune 3.9
song long 0.7
"""  # word1 word2 gold, made up for the test
GOLD = [(a, b, float(g)) for a, b, g in map(str.split, PAIRS.splitlines())]
PREDICTED = [0.8, 0.3, 0.6, 0.4, 0.9, 0.1, 0.5, 0.2]  # a system's scores, same order
EXCLUDED = {("lake", "bake"), ("song", "tune")}  # held out by the entry's ``exclude`` file


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _run(*args: str) -> str:
    result = runner.invoke(app, list(args), env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.stdout


def _write_pairs(folder: Path) -> tuple[Path, Path, Path]:
    """The gold, the pairs to exclude, and a submission (word1,word2,sim) in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    gold = folder / "pairs.tsv"
    gold.write_text("w1\tw2\tmean\n" + "".join(f"{a}\t{b}\t{g}\n" for a, b, g in GOLD))
    excluded = folder / "held-out.tsv"
    excluded.write_text("".join(f"{a}\t{b}\t0\n" for a, b in sorted(EXCLUDED)))
    submission = folder.parent / "submission.csv"
    rows = zip(GOLD, PREDICTED, strict=True)
    submission.write_text("word1,word2,sim\n" + "".join(f"{a},{b},{p}\n" for (a, b, _), p in rows))
    return gold, excluded, submission


def _expected() -> dict[str, float]:
    kept = [(g, p) for (a, b, g), p in zip(GOLD, PREDICTED, strict=True) if (a, b) not in EXCLUDED]
    gold, predicted = zip(*kept, strict=True)
    return {
        "spearman": float(spearmanr(predicted, gold).statistic),
        "pearson": float(pearsonr(predicted, gold).statistic),
    }


# -- (a) the catalog's files are the real files ----------------------------------------------


def test_every_catalogued_file_has_its_size_and_sha256(data_dir: Path) -> None:
    """Read with tomllib and hashed with hashlib: nothing of simeval in between."""
    files = [
        f
        for path in sorted(CATALOG_DIR.glob("*.toml"))
        for dataset in tomllib.loads(path.read_text(encoding="utf-8")).get("dataset", {}).values()
        for f in dataset["files"]
    ]
    # at least every file of the Python catalog this replaced and the analogy set (a new data
    # set adds its own: no count here to edit)
    assert len(files) >= 206
    assert len({f["path"] for f in files}) == len(files)
    for f in files:
        local = data_dir / f["path"]
        assert local.stat().st_size == f["size"], f["path"]
        assert _sha(local) == f["sha256"], f["path"]


def test_every_builtin_benchmark_reads_catalogued_files() -> None:
    """A built-in benchmark's files are all in some [dataset.*] table (so they are checked
    against a sha256 and can be downloaded), and the families are one file each."""
    assert {p.stem for p in CATALOG_DIR.glob("*.toml")} >= {
        "analogy",
        "linking",
        "russe",
        "sts",
        "words",
    }
    catalogued = {f.path for e in catalog.CATALOG.values() for f in e.files}
    registry = Registry.catalog()
    # at least the Python catalog's and google-analogy (a new benchmark adds to them)
    assert len(registry.entries) >= 67 and len(registry.suites) >= 11
    for name in registry.entries:
        assert set(registry.files(name)) <= catalogued, name


# -- (b) a new benchmark is one TOML entry ----------------------------------------------------


@pytest.fixture
def builtin_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of the built-in catalog that simeval reads instead of its own."""
    folder = tmp_path / "catalog"
    shutil.copytree(CATALOG_DIR, folder)
    monkeypatch.setattr(catalog, "CATALOG_DIR", folder)
    catalog.catalog_files.cache_clear()
    yield folder
    catalog.catalog_files.cache_clear()


def test_a_builtin_benchmark_is_one_toml_entry(
    builtin_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A family file with one [dataset] table (its files' sha256) and one [benchmark] table:
    listed, described, and scored as scipy scores it, the pairs of ``exclude`` left out."""
    data = tmp_path / "data"
    gold, excluded, submission = _write_pairs(data / "toy")
    monkeypatch.setenv("SIMEVAL_DATA_DIR", str(data))
    files = ", ".join(
        f'{{ path = "toy/{p.name}", size = {p.stat().st_size}, sha256 = "{_sha(p)}", '
        f'remote = "{p.name}" }}'
        for p in (gold, excluded)
    )
    (builtin_copy / "toy.toml").write_text(
        f"""
[dataset.toy]
title = "Toy pairs"
description = "Eight pairs made up for a test."
upstream = "https://example.org/toy/"
licence = "CC0"
citation = "none"
files = [{files}]

[benchmark.toy-pairs]
kind = "graded"
gold = "toy/pairs.tsv"
column = "mean"
description = "eight made-up pairs, two held out"
score_range = [0.0, 1.0]
exclude = "toy/held-out.tsv"
split = "dev"
source = "toy"
"""
    )
    listing = _run("benchmarks")
    assert "toy-pairs" in listing and "eight made-up pairs, two held out" in listing
    assert "mc30" in listing  # the catalog's own entries are still there
    info = _run("data", "info", "toy-pairs")
    assert "Toy pairs" in info and _sha(gold)[:16] in info
    record = json.loads(_run("score", "file", "toy-pairs", str(submission), "--json"))
    assert record["benchmark"] == "toy-pairs"
    for metric, value in _expected().items():
        assert record["metrics"][metric] == pytest.approx(value, abs=1e-12)
    assert record["data"] == {"toy/pairs.tsv": _sha(gold), "toy/held-out.tsv": _sha(excluded)}


def test_a_users_benchmark_is_one_toml_entry(tmp_path: Path) -> None:
    """The same entry in a user's registry file, paths relative to it."""
    gold, excluded, submission = _write_pairs(tmp_path / "lab")
    registry = tmp_path / "lab.toml"
    registry.write_text(
        """
[benchmark.lab-pairs]
kind = "graded"
gold = "lab/pairs.tsv"
description = "eight made-up pairs, two held out"
exclude = "lab/held-out.tsv"
"""
    )
    listing = _run("benchmarks", "--registry", str(registry))
    assert "lab-pairs" in listing and "eight made-up pairs, two held out" in listing
    text = _run(
        "score", "file", "lab-pairs", str(submission), "--registry", str(registry), "--json"
    )
    record = json.loads(text)
    for metric, value in _expected().items():
        assert record["metrics"][metric] == pytest.approx(value, abs=1e-12)
    assert record["data"] == {
        str(gold.resolve()): _sha(gold),
        str(excluded.resolve()): _sha(excluded),
    }


# -- (c) errors name the file and the line ---------------------------------------------------

ENTRY = """\
# a lab's registry
[benchmark.lab-pairs]
kind = "graded"
gold = "pairs.tsv"
{bad}
description = "pairs"
"""


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ('score_range = "0-1"', "'score_range' must be \\[low, high\\]"),
        ('colum = "mean"', "unknown key\\(s\\) \\['colum'\\]"),
        ('views = [{ name = "POS", how = "sideways", columns = ["POS"] }]', "a view is"),
        ('views = [{ name = "POS", how = "column" }]', "a view is"),
        ('score_range = [0, "high"]', "'score_range' must be"),
        ('builder = "bucc"', "'builder' makes a linking collection"),
        ("marks = 3", "'marks' must be a table of file paths"),
        ('split = "dev', "not a TOML registry"),  # unterminated string
    ],
)
def test_a_malformed_entry_names_its_file_and_line(tmp_path: Path, bad: str, message: str) -> None:
    path = tmp_path / "lab.toml"
    path.write_text(ENTRY.format(bad=bad))
    with pytest.raises(InputError, match=message) as caught:
        Registry.default([path])
    assert caught.value.path == str(path)
    assert caught.value.line == 5  # the bad line, counted by hand in ENTRY
    assert str(caught.value).startswith(f"{path}:5: ")


@pytest.mark.parametrize(
    ("text", "message"),
    [("benchmark = 3\n", "benchmark must hold tables"), ("[suite]\nlab = 3\n", "suite.lab must")],
)
def test_tables_that_are_not_tables_are_refused(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "lab.toml"
    path.write_text(text)
    with pytest.raises(InputError, match=message) as caught:
        Registry.default([path])
    assert caught.value.path == str(path)


def test_a_suite_with_an_unknown_member_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "lab.toml"
    path.write_text('[suite.lab]\ndescription = "x"\nmembers = ["mc30", "nope"]\n')
    with pytest.raises(InputError, match="member 'nope' is unknown") as caught:
        Registry.default([path])
    assert (caught.value.path, caught.value.line) == (str(path), 3)


def test_datasets_and_catalog_names_are_the_catalogs(tmp_path: Path) -> None:
    path = tmp_path / "lab.toml"
    path.write_text('[dataset.mine]\ntitle = "x"\n')
    with pytest.raises(InputError, match="the built-in catalog's"):
        Registry.default([path])
    path.write_text('[benchmark.x]\ngold = "a.tsv"\n\n[benchmark.mc30]\ngold = "b.tsv"\n')
    with pytest.raises(InputError, match="the catalog has a mc30") as caught:
        Registry.default([path])
    assert caught.value.line == 4


def test_a_malformed_builtin_dataset_names_its_file_and_line(builtin_copy: Path) -> None:
    """A catalog file whose [dataset] table lacks a file's sha256: `simeval data info` exits 2
    with the file and the line of ``files``, no traceback."""
    bad = builtin_copy / "toy.toml"
    bad.write_text(
        '[dataset.toy]\ntitle = "Toy"\ndescription = "x"\nupstream = "https://example.org/"\n'
        'licence = "CC0"\ncitation = "none"\n'
        'files = [{ path = "toy/a.tsv", size = 3, remote = "a.tsv" }]\n'
    )
    result = runner.invoke(app, ["data", "info", "toy"])
    assert result.exit_code == 2
    assert f"{bad}:7: dataset toy: each file is {{path, size, sha256, remote}}" in result.output


def test_a_name_declared_twice_in_the_catalog_names_its_line(builtin_copy: Path) -> None:
    (builtin_copy / "toy.toml").write_text('# mc30 again\n\n[benchmark.mc30]\ngold = "x.tsv"\n')
    result = runner.invoke(app, ["benchmarks"])
    assert result.exit_code == 2
    assert f"{builtin_copy / 'toy.toml'}:3: benchmark 'mc30' is declared twice" in result.output
