"""Every `simeval` command the README shows (in code blocks and inline code; the pages that
were its sections too, docs/reference/commands.md's synopsis among them) exists, and every
option it uses is one the command accepts: renaming a command or an option without updating
the README makes this fail."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import readme_text
from simeval.cli import app

GROUPS = {"data", "score", "build", "serve"}  # commands with sub-commands
NESTED = {"build annotation"}  # sub-commands with sub-commands


def readme_commands() -> list[str]:
    """The `simeval …` commands inside fenced blocks and inline code of the README and of the
    docs pages that were its sections."""
    text = readme_text.shown_text()
    code = re.findall(r"```[^\n]*\n(.*?)```", text, flags=re.S)  # ```text title="x" too
    code += re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", text, flags=re.S))
    found: list[str] = []
    for block in code:
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("#", 1)[0]
            for part in re.split(r"&&|;|\|\|", line):
                part = part.strip()
                if part.startswith("do "):
                    part = part[3:].strip()
                if re.match(r"^\w+=\$\(simeval ", part):  # TOKEN=$(simeval register …)
                    part = part.split("(", 1)[1].rstrip(")")
                if part.startswith("simeval "):
                    found.append(part)
    return list(dict.fromkeys(found))


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


COMMANDS = readme_commands()


def test_the_readme_shows_the_main_commands() -> None:
    shown = {" ".join(_words(c)[1:3]) for c in COMMANDS}
    for expected in ("evaluate encoder", "score file", "results results/main", "data list"):
        assert any(s.startswith(expected) for s in shown), expected
    assert len(COMMANDS) >= 30


@pytest.mark.parametrize("command", COMMANDS)
def test_readme_command_exists_with_its_options(command: str) -> None:
    words = _words(command)[1:]
    if words[0] == "--scheduler":  # the one global option: in the top-level help
        top = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"})
        assert "--scheduler" in top.stdout
        words = words[2:]
    path = words[:2] if words[0] in GROUPS else words[:1]
    if " ".join(path) in NESTED:  # simeval build annotation assign …
        path = words[:3]
    if path[-1] == "…":  # "simeval score … --results DIR": any scorer; `score file` stands in
        path = [path[0], "file"]
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, f"README shows `{command}`, but `simeval {' '.join(path)}` fails"
    help_text = result.stdout
    for word in words[len(path) :]:
        option = word.strip("[]").split("=")[0]
        if option.startswith("-") and option not in ("-", "--") and not option.startswith("-…"):
            assert option in help_text, f"README uses {option} with `simeval {' '.join(path)}`"


def test_main_job_prints_the_readme_table(tmp_path: Path) -> None:
    """The main job's loop (its three measures that need no model; the encoder's numbers are
    checked in test_encoder.py), then `simeval results`: every number of those columns equals
    the README's table, and overlap's STS-2012 ALL is the paper's baseline 0.3110."""
    runner = CliRunner()
    results = tmp_path / "main"
    specs = ["random:seed=1", "overlap", "orthographic:kind=prefix"]
    for spec in specs:
        args = ["evaluate", spec, "-s", "russe", "-s", "sts12", "-s", "words"]
        done = runner.invoke(app, [*args, "--results", str(results)])
        assert done.exit_code == 0, done.output
    shown = runner.invoke(app, ["results", str(results)], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    printed = {}
    for line in shown.stdout.splitlines():
        cells = [c for c in re.split(r"[│┃]", line) if c.strip()]
        if len(cells) == 2 + len(specs):
            printed[cells[0].strip()] = [c.strip() for c in cells[2:]]
    table = readme_text.table_after("`simeval results results/main` after the main job")
    header = table[0]
    assert header[2:5] == specs
    for row in table[2:]:
        assert printed[row[0]] == row[2:5], row[0]
    assert printed["sts12"][1] == "0.3110"  # Agirre et al. 2012, the baseline's ALL


def _short(x: float) -> str:
    """A number as the README's xling table prints it: .xyz, or 1.00."""
    return "1.00" if x == 1 else f"{x:.3f}".removeprefix("0")


@pytest.mark.slow
def test_xling_table_rows_of_hapax_and_dictionary() -> None:
    """The README's xling table, rows hapax and dictionary (success@1/success@5/MRR per
    language, and the mean MRR), as `simeval evaluate RANKER -s xling` prints them."""
    from simeval.api import evaluate

    table = readme_text.table_after("| ranker | de | fr | ru | tr | zh | mean MRR |")
    table = [["ranker", "de", "fr", "ru", "tr", "zh", "mean MRR"], *table]
    rows = {r[0].split(" ")[0]: r for r in table[2:]}

    for ranker in ("hapax", "dictionary"):
        found = {r.benchmark: r.metrics for r in evaluate(ranker, "xling")}
        for j, lang in enumerate(("de", "fr", "ru", "tr", "zh"), start=1):
            m = found[f"xling-{lang}-en"]
            cell = "/".join(_short(m[k]) for k in ("success_1", "success_5", "recip_rank"))
            assert cell == rows[ranker][j], (ranker, lang)
        assert _short(found["xling"]["recip_rank"]) == rows[ranker][6]


@pytest.mark.slow
@pytest.mark.parametrize("ranker", ["procrustes", "combine"])
def test_xling_fr_cells_of_procrustes_and_combine(ranker: str) -> None:
    """`simeval evaluate procrustes|combine -b xling-fr-en` (the smallest language; the whole
    suite takes minutes) prints the README table's fr cell, success@1/success@5/MRR at its
    printed precision."""
    import json

    table = readme_text.table_after("| ranker | de | fr | ru | tr | zh | mean MRR |")
    (row,) = [r for r in table if r[0].split(" ")[0] == ranker]
    shown = CliRunner().invoke(app, ["evaluate", ranker, "-b", "xling-fr-en", "--json"])
    assert shown.exit_code == 0, shown.output
    (record,) = [json.loads(x) for x in shown.stdout.splitlines() if x.startswith("{")]
    assert record["benchmark"] == "xling-fr-en"
    m = record["metrics"]
    cell = "/".join(_short(m[k]) for k in ("success_1", "success_5", "recip_rank"))
    assert cell == row[2]


def test_catalog_commands(data_dir: Path) -> None:
    """`simeval data list`, `data info NAME`, `benchmarks`: every catalogued data set listed,
    a file's digest shown as its first 16 hex digits of hashlib's sha256 of the local copy."""
    import hashlib

    from simeval.data.catalog import CATALOG

    runner = CliRunner()
    env = {"COLUMNS": "200"}
    listed = runner.invoke(app, ["data", "list"], env=env)
    assert listed.exit_code == 0
    assert all(name in listed.stdout for name in CATALOG)
    info = runner.invoke(app, ["data", "info", "mc30"], env=env)
    assert info.exit_code == 0
    digest = hashlib.sha256((data_dir / "mc30" / "EN-MC-30.txt").read_bytes()).hexdigest()
    assert digest[:16] in info.stdout
    names = runner.invoke(app, ["benchmarks"], env=env)
    assert names.exit_code == 0
    for suite in ("russe", "sts12", "xling", "words"):
        assert re.search(rf"^\W*{suite}\s", names.stdout, flags=re.M), suite


def test_agreement_command_prints_the_readme_figures() -> None:
    """README: 0.6774 (153 pairs, 13 raters), 0.5594 (200, 16), 0.6106 pooled, leave-one-out
    0.7564 pooled (recomputed with scipy in test_report_numbers.py)."""
    shown = CliRunner().invoke(app, ["agreement"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0
    rows = [line for line in shown.stdout.splitlines() if "set1" in line or "pooled" in line]
    assert re.search(r"153\D+13\D+0\.6774", rows[0])
    assert re.search(r"0\.6106\D+0\.7564", rows[-1])


def test_leaderboard_top_lists_each_benchmark(tmp_path: Path) -> None:
    """`simeval leaderboard DIR --top N`: a top-N table per benchmark, in score order."""
    from simeval.api import evaluate

    found = []
    for spec in ("random:seed=1", "orthographic:kind=prefix", "orthographic:kind=dice"):
        found += evaluate(spec, "mc30", "rg65", results_dir=tmp_path)
    board = CliRunner().invoke(app, ["leaderboard", str(tmp_path), "--top", "2", "-f", "csv"])
    assert board.exit_code == 0
    blocks = board.stdout.strip().split("\n\n")
    assert len(blocks) == 3  # the overall table, then mc30 and rg65 in recorded order
    for bench, block in zip(("mc30", "rg65"), blocks[1:], strict=True):
        rows = [line.split(",") for line in block.splitlines()[1:]]
        ranked = sorted(
            (r for r in found if r.benchmark == bench and r.score == r.score),
            key=lambda r: -r.score,
        )
        assert [row[1] for row in rows] == [r.system["spec"] for r in ranked[:2]]
        assert float(rows[0][2]) == pytest.approx(ranked[0].score, rel=1e-5)


@pytest.mark.slow
def test_compare_rows_of_the_readme(encoder_cache: Path, monkeypatch, tmp_path: Path) -> None:
    """The README's three `simeval compare` rows (B = 1000, seed 0) print its differences,
    intervals and p-values; the measures are evaluated as the main job does."""
    from simeval.api import evaluate

    monkeypatch.setenv("SIMEVAL_CACHE_DIR", str(encoder_cache))
    results = tmp_path / "main"
    for spec, targets in (
        ("random:seed=1", ["simlex999"]),
        ("overlap", ["sts12", "russe-rt"]),
        ("orthographic:kind=prefix", ["russe-rt"]),
        ("encoder", ["sts12", "simlex999"]),
    ):
        evaluate(spec, *targets, results_dir=results)
    table = readme_text.table_after("| command | main metric: A − B [95% interval] | test, p |")
    assert len(table) == 4  # the separator and three rows
    for command, difference, test in table[1:]:
        words = _words(command.strip("`"))[2:]
        words[words.index("--results") + 1] = str(results)
        shown = CliRunner().invoke(app, ["compare", *words], env={"COLUMNS": "200"})
        assert shown.exit_code == 0, shown.output
        value = re.search(r"-?\d\.\d{4} \[.*\]", difference).group(0)  # "0.5025 [a, b]"
        main = next(line for line in shown.stdout.splitlines() if " * " in line)
        assert value in main, (command, main)
        p = test.split("p ", 1)[1].removeprefix("= ")
        assert p in shown.stdout.split("verdict:")[1], (command, p)


def test_build_linking_then_predict_and_score_a_bucc_run(tmp_path: Path) -> None:
    """`simeval build linking OUT --lang fr` writes the README's fr collection (74 test queries,
    297 English documents); `simeval predict hapax -s xling-fr-en --out F` writes a BUCC run
    that `simeval score trec --run F --qrels Q` scores as the README's table says (1.00)."""
    runner = CliRunner()
    out = tmp_path / "fr"
    built = runner.invoke(app, ["build", "linking", str(out), "--lang", "fr"])
    assert built.exit_code == 0, built.output
    qrels = (out / "qrels.test").read_text().splitlines()
    corpus = (out / "corpus.jsonl").read_text().splitlines()
    assert (len(qrels), len(corpus)) == (74, 297)
    run = tmp_path / "fr.run"
    made = runner.invoke(app, ["predict", "hapax", "-s", "xling-fr-en", "--out", str(run)])
    assert made.exit_code == 0, made.output
    lines = run.read_text().splitlines()
    assert all(len(line.split()) == 6 and line.split()[1] == "X" for line in lines)
    scored = runner.invoke(
        app, ["score", "trec", "--run", str(run), "--qrels", str(out / "qrels.test"), "--json"]
    )
    assert scored.exit_code == 0, scored.output
    import json

    metrics = json.loads(scored.stdout.splitlines()[0])["metrics"]
    assert (metrics["success_1"], metrics["success_5"], metrics["recip_rank"]) == (1.0, 1.0, 1.0)
    assert metrics["num_q"] == 74 and metrics["num_ret"] <= 5 * 74


# -- `simeval data fetch` against a local mirror -----------------------------------------------


def _data_readme_sha256(data_dir: Path, path: str) -> str:
    """The sha256 the data folder's README lists for ``path`` (its own table, not the catalog)."""
    text = (data_dir / "README.md").read_text(encoding="utf-8")
    return re.search(rf"^\| `{re.escape(path)}` \|.*`([0-9a-f]{{64}})` \|$", text, re.M).group(1)


@pytest.fixture
def http_mirror(tmp_path: Path, data_dir: Path):
    """A copy of mc30 and rg65 served over HTTP on 127.0.0.1; rg65's copy has one byte changed
    (same length, so only the sha256 can tell)."""
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    root = tmp_path / "upstream"
    for path in ("mc30/EN-MC-30.txt", "rg65/EN-RG-65.txt"):
        (root / path).parent.mkdir(parents=True)
        (root / path).write_bytes((data_dir / path).read_bytes())
    bad = bytearray((root / "rg65/EN-RG-65.txt").read_bytes())
    bad[10] = ord("#") if bad[10] != ord("#") else ord("%")
    (root / "rg65/EN-RG-65.txt").write_bytes(bytes(bad))

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_data_fetch_downloads_verifies_and_refuses(
    http_mirror: str, tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`simeval data fetch NAME` with no local copy: downloaded from the mirror into the cache,
    where hashlib's sha256 is the one the data README lists; a file whose bytes differ is
    refused with exit 2 and not kept; with SIMEVAL_OFFLINE=1 nothing is fetched."""
    import hashlib

    cache = tmp_path / "fetched"
    monkeypatch.delenv("SIMEVAL_DATA_DIR")
    monkeypatch.delenv("SIMEVAL_OFFLINE")
    monkeypatch.setenv("SIMEVAL_CACHE_DIR", str(cache))
    monkeypatch.setenv("SIMEVAL_MIRROR_URL", http_mirror)
    runner = CliRunner()
    env = {"COLUMNS": "200"}

    offline = runner.invoke(app, ["data", "fetch", "mc30"], env={**env, "SIMEVAL_OFFLINE": "1"})
    assert offline.exit_code == 2
    assert "downloads are off" in offline.output and "SIMEVAL_DATA_DIR" in offline.output
    assert not cache.exists() or not any(p.is_file() for p in cache.rglob("*.txt"))

    done = runner.invoke(app, ["data", "fetch", "mc30"], env=env)
    assert done.exit_code == 0, done.output
    assert f"mc30: 1 files ready in {cache}" in " ".join(done.stdout.split())
    fetched = cache / "mc30" / "EN-MC-30.txt"
    digest = hashlib.sha256(fetched.read_bytes()).hexdigest()
    assert digest == _data_readme_sha256(data_dir, "mc30/EN-MC-30.txt")

    refused = runner.invoke(app, ["data", "fetch", "rg65"], env=env)
    assert refused.exit_code == 2
    assert "corrupted" in refused.output
    assert [p.name for p in cache.rglob("*") if p.is_file() and ".locks" not in p.parts] == [
        "EN-MC-30.txt"
    ]


# -- `simeval build linking OUT --lang X --input FORMAT:FILES --drop-sentences P` ---------------


def test_build_linking_drop_sentences_drops_that_share(tmp_path: Path) -> None:
    """60 documents of 30 sentences in Maruf et al.'s marked-lines layout; with
    --drop-sentences 0.3 (and BUCC's first sentence dropped) every written document keeps its
    sentences in order, never the first, and the share kept of the remaining 29 per document is
    0.7 within 4 binomial standard errors; the counts line adds up."""
    docs, length, p = 60, 30, 0.3
    x_lines, en_lines = [], []
    for d in range(docs):
        x_lines.append("<d>")
        en_lines.append("<d>")
        for s in range(length):
            x_lines.append(f"Satz {d} {s} hier.")
            en_lines.append(f"Sentence {d} {s} here.")
    x, en = tmp_path / "x.de", tmp_path / "x.en"
    x.write_text("\n".join(x_lines) + "\n")
    en.write_text("\n".join(en_lines) + "\n")
    out = tmp_path / "built"
    built = CliRunner().invoke(
        app,
        ["build", "linking", str(out), "--lang", "de", "--input", f"marked-lines:{x},{en}",
         "--drop-sentences", str(p)],
        env={"COLUMNS": "200"},
    )  # fmt: skip
    assert built.exit_code == 0, built.output
    import json

    def kept(path: Path, word: str) -> list[list[int]]:
        out = []
        for line in path.read_text().splitlines():
            text = json.loads(line)["text"]
            out.append([int(s.split()[2]) for s in text.split("\n")])
            assert all(s.startswith(word) for s in text.split("\n"))
        return out

    sides = [(out / "corpus.jsonl", "Sentence", docs), (out / "queries.jsonl", "Satz", None)]
    for path, word, n_docs in sides:
        kept_ids = kept(path, word)
        if n_docs is not None:
            assert len(kept_ids) == n_docs  # every English document stays in the corpus
        for ids in kept_ids:
            assert ids == sorted(set(ids)) and ids and 0 not in ids
        total = len(kept_ids) * (length - 1)
        share = sum(map(len, kept_ids)) / total
        assert abs(share - (1 - p)) <= 4 * np.sqrt(p * (1 - p) / total), (path.name, share)
    queries = len(kept(out / "queries.jsonl", "Satz"))
    test = len((out / "qrels.test").read_text().splitlines())
    train = len((out / "qrels.train").read_text().splitlines())
    assert train + test == queries and test == round(0.5 * queries)
    counts = " ".join(built.stdout.split())
    assert (
        f"{docs} pairs read, {docs} non-empty, {queries} kept ({train} train, {test} test)"
        in counts
    )
    assert f"{docs} English documents" in counts


def _extra_requirements(extras: set[str]) -> set[str]:
    """The distribution names (normalised) that ``pip install ".[extras]"`` brings in, the
    ``simeval[...]`` extras inside an extra followed, read from pyproject.toml."""
    import tomllib

    table = tomllib.loads((readme_text.README.parent / "pyproject.toml").read_text("utf-8"))
    optional = table["project"]["optional-dependencies"]
    unknown = extras - set(optional)
    assert not unknown, f"the README installs extras pyproject.toml lacks: {sorted(unknown)}"
    names: set[str] = set()
    todo, seen = list(extras), set()
    while todo:
        extra = todo.pop()
        if extra in seen:
            continue
        seen.add(extra)
        for requirement in optional[extra]:
            name = re.match(r"[A-Za-z0-9_.-]+", requirement).group(0).lower().replace("_", "-")
            if name == "simeval":
                todo += re.search(r"\[(.*?)\]", requirement).group(1).split(",")
            else:
                names.add(name)
    return names


def test_the_readme_setup_installs_what_its_test_and_docs_commands_run() -> None:
    """The README's set-up (its first bash block) installs the extras that its other commands
    need: the fast tier (`python -m pytest -m "not slow" -q -n 2`: pytest and pytest-xdist) and
    the docs site (`mkdocs build --strict` with mkdocs.yml's material theme and mkdocstrings),
    and it exports SIMEVAL_DATA_DIR, which the site's charts (docs/hooks/plots.py) read."""
    setup = readme_text.blocks(readme_text.README.read_text(encoding="utf-8"), "bash")[0]
    installs = re.findall(r"pip install [^&\n]*-e \"\.\[([^\]]*)\]\"", setup)
    assert len(installs) == 1, setup
    installed = _extra_requirements(set(installs[0].split(",")))
    readme = readme_text.README.read_text(encoding="utf-8")
    assert 'python -m pytest -m "not slow" -q -n 2' in " ".join(readme.split())
    assert "mkdocs build --strict" in readme
    mkdocs_yml = (readme_text.README.parent / "mkdocs.yml").read_text(encoding="utf-8")
    assert "name: material" in mkdocs_yml and "- mkdocstrings:" in mkdocs_yml
    needed = {"pytest", "pytest-xdist", "mkdocs", "mkdocs-material", "mkdocstrings-python"}
    assert needed - installed == set(), f"the README's set-up misses {needed - installed}"
    assert "export SIMEVAL_DATA_DIR=" in setup
