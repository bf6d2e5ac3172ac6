"""``simeval score trec`` answers without Typer (:mod:`simeval.cli.lean`), with the output of
the Typer command byte for byte, and the same one-line error for a wrong file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from simeval.cli.lean import options

# Runs `simeval ARGS` in a fresh interpreter, through `main` (lean) or straight through the
# Typer application (full); says on the last line of stderr which libraries it imported.
PROBE = """
import sys
how, sys.argv = sys.argv[1], ["simeval", *sys.argv[2:]]
from simeval import cli
try:
    cli.main() if how == "lean" else cli._app()()
    code = 0
except SystemExit as exc:
    code = exc.code or 0
heavy = ("typer", "rich", "scipy", "pandas", "simeval.registry")
print("LOADED", *sorted(m for m in heavy if m in sys.modules), file=sys.stderr)
sys.exit(code)
"""

QRELS = "q1 0 d1 1\nq2 0 d5 1\nq3 0 d9 1\n"
# q1: d3 (0.9) first, then the tie at 0.5 by docno descending: d2, d1, so d1 is third;
# q2: d5 first. q3 has no line: trec_eval leaves it out of the means.
RUN = (
    "q1 Q0 d1 1 0.5 sys\n"
    "q1 Q0 d2 2 0.5 sys\n"
    "q1 Q0 d3 3 0.9 sys\n"
    "q2 Q0 d4 1 0.1 sys\n"
    "q2 Q0 d5 2 0.2 sys\n"
)


def simeval(how: str, *args: str, cwd: Path) -> tuple[int, str, str, list[str]]:
    """Exit status, stdout, stderr (without the probe's line) and the heavy imports."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, how, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": ":".join(sys.path), "COLUMNS": "80"},
    )
    *err, loaded = done.stderr.splitlines(keepends=True)
    return done.returncode, done.stdout, "".join(err), loaded.split()[1:]


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    (tmp_path / "all.txt").write_text("q1 0 d1 1\nq2 0 d5 1\n")  # every query in the run
    return tmp_path


def without_clock(out: str) -> list[dict]:
    """JSON lines without the fields that differ between two runs of the same command."""
    records = [json.loads(line) for line in out.splitlines()]
    for r in records:
        for k in ("created", "seconds", "id"):
            r.pop(k)
    return records


def test_json_without_typer_equals_the_typer_command(files: Path) -> None:
    args = ("score", "trec", "--qrels", "all.txt", "--run=run.txt", "--json")
    code, out, err, loaded = simeval("lean", *args, cwd=files)
    assert (code, err, loaded) == (0, "", [])  # no Typer, rich, scipy, pandas or catalog
    full = simeval("full", *args, cwd=files)
    assert full[0] == 0 and "typer" in full[3]
    assert without_clock(out) == without_clock(full[1])
    metrics = without_clock(out)[0]["metrics"]
    assert metrics["recip_rank"] == pytest.approx((1 / 3 + 1) / 2)
    assert (metrics["success_1"], metrics["success_5"]) == (0.5, 1.0)
    assert (metrics["num_q"], metrics["num_ret"], metrics["num_rel_ret"]) == (2, 5, 2)


# MRR by hand: q1's d1 is third, q2's d5 first; with -c q3 counts 0; with -M 1 q1 finds none
@pytest.mark.parametrize(
    ("extra", "mrr"),
    [
        ((), (1 / 3 + 1) / 2),
        (("--json",), (1 / 3 + 1) / 2),
        (("-c", "--wide"), (1 / 3 + 1 + 0) / 3),
        (("--complete", "-M", "2", "--json"), (0 + 1 + 0) / 3),
        (("-M", "1"), (0 + 1) / 2),
    ],
)
def test_tables_and_warnings_are_the_typer_commands(
    files: Path, extra: tuple[str, ...], mrr: float
) -> None:
    args = ("score", "trec", "--run", "run.txt", "--qrels", "qrels.txt", *extra)
    code, out, err, _ = simeval("lean", *args, cwd=files)
    full = simeval("full", *args, cwd=files)
    assert code == full[0] == 0
    assert "1 judged queries are not in the run (e.g. q3)" in err
    assert err == full[2]
    if "--json" in extra:
        assert without_clock(out) == without_clock(full[1])
        assert without_clock(out)[0]["metrics"]["recip_rank"] == pytest.approx(mrr)
    else:
        assert out == full[1]
        assert "recip_rank *" in out and f"{mrr:.4f}" in out


def test_a_wrong_run_gives_the_one_line_error(files: Path) -> None:
    (files / "bad.txt").write_text("q1 Q0 d1 1 0.5 sys\nq1 Q0 d2 2 0.5\n")
    args = ("score", "trec", "--qrels", "qrels.txt", "--run", "bad.txt", "--json")
    code, out, err, loaded = simeval("lean", *args, cwd=files)
    assert (code, out) == (2, "")
    assert err == "error: bad.txt:2: expected 6 fields (qid Q0 docno rank score runid), got 5\n"
    assert "typer" in loaded  # the error is printed by the commands' own code
    assert simeval("full", *args, cwd=files)[:3] == (code, out, err)


def test_a_missing_file_gives_the_commands_error(files: Path) -> None:
    args = ("score", "trec", "--qrels", "qrels.txt", "--run", "nowhere.txt")
    code, out, err, _ = simeval("lean", *args, cwd=files)
    assert code == 2 and out == "" and err.startswith("error: ") and "nowhere.txt" in err
    assert simeval("full", *args, cwd=files)[:3] == (code, out, err)


@pytest.mark.parametrize(
    "args",
    [
        ["--qrels", "q", "--run", "r", "--keep", "out"],  # keeping results: Typer's
        ["--qrels", "q", "--run", "r", "--help"],
        ["--qrels", "q"],  # --run missing: Typer says so
        ["--qrels", "q", "--run", "r", "--run", "s"],
        ["--qrels", "q", "--run", "r", "-M", "0"],  # below the minimum
        ["--qrels", "q", "--run", "r", "-M", "two"],
        ["--qrels", "q", "--run", "r", "-M5"],
        ["--qrels", "--run", "r"],
        ["--qrels", "q", "--run", "r", "extra"],
        ["--qrels=", "--run", "r"],
        ["--qrels", "q", "--run", "r", "--json=yes"],
    ],
)
def test_anything_else_is_left_to_typer(args: list[str]) -> None:
    assert options(args) is None


def test_the_options_read_as_typer_reads_them() -> None:
    found = options(["--run=r.txt", "-c", "--qrels", "q.txt", "--max-retrieved", "7", "--wide"])
    assert found == {
        "run": Path("r.txt"),
        "complete": True,
        "qrels": Path("q.txt"),
        "max_retrieved": 7,
        "wide": True,
    }


def test_other_commands_go_to_typer(files: Path) -> None:
    code, out, _, loaded = simeval("lean", "score", "--help", cwd=files)
    assert code == 0 and "trec" in out and "typer" in loaded


def test_the_start_runs_no_program_to_find_libc(monkeypatch: pytest.MonkeyPatch) -> None:
    """``ctypes.util.find_library`` runs ldconfig (and a compiler): 20 ms of every start, a
    tenth of scoring a BUCC-size run. glibc's ``mallopt`` is found among the process's own
    symbols instead."""
    import ctypes
    import ctypes.util

    from simeval.cli import _keep_freed_memory

    def refuse(name: str) -> None:
        raise AssertionError(f"find_library({name!r}) was called")

    monkeypatch.setattr(ctypes.util, "find_library", refuse)
    _keep_freed_memory()
    assert ctypes.CDLL(None).mallopt(-1, 128 << 20) == 1  # glibc: 1 when the option is taken
