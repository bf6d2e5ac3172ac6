"""Time the README's main job: four measures evaluated on russe, sts12 and the English word
benchmarks, ``simeval results`` and ``simeval report`` — first with an empty embedding cache
(what a fresh machine runs), then again with the cache filled. Each step is a process of its
own: its wall time and its CPU time (user + system, of it and the processes it waited for)
are printed side by side. On a shared machine wall time stretches with the load; CPU time is
what a quiet machine would spend (spread over its cores where a step runs in parallel).

With ``--install`` the install is timed too, as on a fresh clone: ``git clone`` of this
repository's HEAD into a temporary folder, ``python3 -m venv .venv``, and the README's two pip
commands, each timed separately, with pip's wheel and HTTP caches as they are
(``~/.cache/pip``); then ``du -sh`` of the virtual environment, and the job runs in it.
``--venv PATH`` skips creating the environment and running pip: the job runs in the existing
environment PATH (with the clone first on PYTHONPATH), the cheap path for tests.

With ``--before REV`` the same job (and install) also runs on the code of git revision REV,
in the same run, so the ratio compares like with like on one machine at one time.

With ``--backends torch onnx`` the job runs once per encoder backend (``encoder:backend=B``
in place of ``encoder``), each with its own empty embedding cache (the ONNX export, made at
the first use, included) and, without ``--install``, its own empty bytecode folder
(``PYTHONPYCACHEPREFIX``: every module is compiled on first import, as after the README's
``pip install --no-compile``; the environment's own folders are not written). It prints the
encoder step's CPU and wall ratio and the first run's total against the goal: at most 75 s
of wall time on a quiet machine, with the load average beside it (on a loaded machine wall
time stretches; CPU time is what a quiet machine would spend).

Run: SIMEVAL_DATA_DIR=../shared/data HF_HUB_OFFLINE=1 python benchmarks/main_job.py
     [--install] [--before bdd0416] [--backends torch onnx] [--first-only]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

MEASURES = ("random:seed=1", "overlap", "orthographic:kind=prefix", "encoder")
REPO = Path(__file__).resolve().parents[1]
CLI = "from simeval.cli import main; main()"
TORCH = "torch==2.13.0"
RUNS = ("first", "cached")
GOAL_WALL = 75.0  # seconds: the first run of the job (evaluate x4, results, report), quiet machine


@dataclass
class Spent:
    """One step's wall seconds, CPU seconds (user + system) and peak resident MiB."""

    wall: float
    cpu: float
    peak: float


def timed(argv: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> Spent:
    """Run ``argv`` to the end, quietly; the process's own resource use (``wait4``: it and
    every process it waited for), not the machine's."""
    start = time.perf_counter()
    child = subprocess.Popen(
        argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    assert child.stderr is not None
    errors = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if child.returncode:
        sys.exit(f"{' '.join(argv)} failed ({child.returncode}):\n{errors.decode()[-3000:]}")
    return Spent(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def steps(results: Path, measures: tuple[str, ...] = MEASURES) -> list[tuple[str, list[str]]]:
    out = [
        (
            f"evaluate {m}",
            ["evaluate", m, "-s", "russe", "-s", "sts12", "-s", "words", "--results", str(results)],
        )
        for m in measures
    ]
    out.append(("results", ["results", str(results)]))
    out.append(("report", ["report", str(results), "--html", str(results / "report.html")]))
    return out


@dataclass
class Tree:
    """Where a revision's job runs: the interpreter and what goes first on PYTHONPATH."""

    python: Path
    src: Path | None


def user_env(**extra: str) -> dict[str, str]:
    """This process's environment as a user's shell would have it: no PYTHONPATH, and Python
    writes its bytecode caches (a sandbox's PYTHONDONTWRITEBYTECODE would make every process
    compile every module it imports again)."""
    drop = ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")
    return {**{k: v for k, v in os.environ.items() if k not in drop}, **extra}


def job(
    tree: Tree, folder: Path, cache: Path, measures: tuple[str, ...], pycache: Path | None = None
) -> dict[str, Spent]:
    """Each step of the main job run with the code of ``tree`` (bytecode kept in ``pycache``
    when given, instead of beside the modules)."""
    env = user_env(SIMEVAL_CACHE_DIR=str(cache))
    if tree.src is not None:
        env["PYTHONPATH"] = str(tree.src)
    if pycache is not None:
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return {
        name: timed([str(tree.python), "-c", CLI, *args], env)
        for name, args in steps(folder, measures)
    }


def both_runs(
    tree: Tree,
    work: Path,
    label: str,
    measures: tuple[str, ...],
    runs: tuple[str, ...] = RUNS,
    fresh_bytecode: bool = False,
) -> dict[str, dict[str, Spent]]:
    """The job's first run (empty embedding cache) and, if asked, its run again (filled)."""
    cache = work / f"cache-{label}"
    cache.mkdir()
    pycache = work / f"pycache-{label}" if fresh_bytecode else None
    return {
        run: job(tree, work / f"results-{label}-{run}", cache, measures, pycache) for run in runs
    }


def with_backend(measures: tuple[str, ...], backend: str | None) -> tuple[str, ...]:
    """``measures`` with ``encoder`` run on ``backend`` (unchanged when None)."""
    if backend is None:
        return measures
    return tuple(f"encoder:backend={backend}" if m == "encoder" else m for m in measures)


def pip_commands(readme: Path) -> list[str]:
    """The ``pip install`` commands of a README's main job (its first bash block), in order."""
    block = readme.read_text(encoding="utf-8").split("```bash\n", 1)[1].split("```", 1)[0]
    return [" ".join(c.split()) for c in re.findall(r"pip install [^&\\\n]*", block)]


def install(rev: str, clone: Path, venv: Path | None) -> tuple[Tree, dict[str, Spent], str]:
    """A fresh clone of ``rev`` and its virtual environment, made as that revision's README
    makes them: the time of each step, and the environment's size (``du -sh``)."""
    sha = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", rev], check=True, capture_output=True, text=True
    ).stdout.strip()
    spent = {"git clone": timed(["git", "clone", "-q", "--no-checkout", str(REPO), str(clone)])}
    subprocess.run(["git", "-C", str(clone), "checkout", "-q", sha], check=True)
    if venv is not None:
        return Tree(venv / "bin" / "python", clone / "src"), spent, du(venv)
    made = clone / ".venv"
    env = user_env()
    spent["python3 -m venv .venv"] = timed([sys.executable, "-m", "venv", str(made)], env)
    for command in pip_commands(clone / "README.md"):
        argv = [str(made / "bin" / "python"), "-m", *shlex.split(command)]
        spent[command] = timed(argv, env, cwd=clone)
    return Tree(made / "bin" / "python", None), spent, du(made)


def du(folder: Path) -> str:
    return subprocess.run(
        ["du", "-sh", str(folder)], check=True, capture_output=True, text=True
    ).stdout.split()[0]


NAME = 42  # the step column: the README's longest pip command fits


def cell(s: Spent | None) -> str:
    return f"{'':>16}" if s is None else f"{s.wall:>7.1f}s {s.cpu:>6.1f}s"


def table(title: str, rows: list[str], columns: dict[str, dict[str, Spent]]) -> None:
    """Rows of steps, and for each column its wall and CPU seconds; a total row."""
    print(f"{title:<{NAME}}" + "".join(f"{c:>17}" for c in columns))
    print(f"{'':<{NAME}}" + f"{'wall':>8}{'cpu':>8} " * len(columns))
    for name in rows:
        print(f"{name:<{NAME}}" + " ".join(cell(col.get(name)) for col in columns.values()))
    totals = [
        Spent(sum(s.wall for s in c.values()), sum(s.cpu for s in c.values()), 0)
        for c in columns.values()
    ]
    print(f"{'total':<{NAME}}" + " ".join(cell(t) for t in totals))


@dataclass
class Timings:
    """Everything one call measured: per revision label, its install steps, its environment's
    size, and the steps of its first and cached runs."""

    install: dict[str, dict[str, Spent]]
    venv: dict[str, str]
    runs: dict[str, dict[str, dict[str, Spent]]]

    def dump(self, path: Path) -> None:
        path.write_text(json.dumps(vars(self), default=vars, indent=1))

    @classmethod
    def load(cls, path: Path) -> Timings:
        data = json.loads(path.read_text())

        def spent(d: dict[str, dict[str, float]]) -> dict[str, Spent]:
            return {name: Spent(**s) for name, s in d.items()}

        return cls(
            {c: spent(d) for c, d in data["install"].items()},
            data["venv"],
            {c: {r: spent(d) for r, d in rs.items()} for c, rs in data["runs"].items()},
        )


def gather(revs: dict[str, str], args: argparse.Namespace) -> Timings:
    """Install (with ``--install``) and run the job for each revision, one after the other
    (with ``--backends``: once per encoder backend, on this revision)."""
    found = Timings({}, {}, {})
    backends: list[str | None] = list(args.backends or [None])
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)
        for n, (label, rev) in enumerate(revs.items()):
            if args.install:
                tree, found.install[label], found.venv[label] = install(
                    rev, work / f"clone{n}", args.venv
                )
            elif label == "now":
                tree = Tree(Path(sys.executable), REPO / "src")
            else:
                tree = Tree(Path(sys.executable), work / "before" / "src")
                git("worktree", "add", "--detach", str(work / "before"), rev)
            try:
                for backend in backends:
                    name = label if backend is None else backend
                    found.runs[name] = both_runs(
                        tree,
                        work,
                        f"{n}-{name}",
                        with_backend(tuple(args.measures), backend),
                        RUNS[:1] if args.first_only else RUNS,
                        fresh_bytecode=bool(args.backends) and not args.install,
                    )
                    if backend is not None and label in found.install:
                        found.install[name], found.venv[name] = (
                            found.install[label],
                            found.venv[label],
                        )
            finally:
                if not args.install and label != "now":
                    git("worktree", "remove", "--force", str(work / "before"))
    if args.backends:
        for label in revs:
            found.install.pop(label, None)
            found.venv.pop(label, None)
    return found


def git(*args: str) -> None:
    subprocess.run(["git", "-C", str(REPO), *args], check=True, capture_output=True)


def show(t: Timings) -> None:
    """The tables (install, first run, cached run; a column per revision) and the sums."""
    labels = list(t.runs)
    if t.install:
        rows = list(dict.fromkeys(name for spent in t.install.values() for name in spent))
        table("install", rows, t.install)
        print(f"{'venv size (du -sh)':<{NAME}}" + "".join(f"{t.venv[c]:>17}" for c in labels))
        print()
    runs = [r for r in RUNS if all(r in t.runs[c] for c in labels)]
    for r in runs:
        names = list(dict.fromkeys(name for c in labels for name in t.runs[c][r]))
        table(f"{r} run", names, {c: t.runs[c][r] for c in labels})
        print()
    for c in labels:
        peak = max(s.peak for s in t.runs[c]["first"].values())
        print(f"{c}: peak {peak:,.0f} MiB (the first run's largest step)")
    for c in labels:
        if t.install:
            spent = [*t.install[c].values(), *t.runs[c]["first"].values()]
            wall, cpu = sum(s.wall for s in spent), sum(s.cpu for s in spent)
            print(f"{c}: fresh clone to report {wall:.1f} s wall, {cpu:.1f} s CPU")
    if len(labels) == 2 and labels[1] not in BACKENDS:  # --before: now against a revision
        before = labels[1]
        parts = {f"{r} run": [t.runs[c][r] for c in labels] for r in runs}
        if t.install:
            fresh = [
                {**t.install[c], **{f"run {k}": v for k, v in t.runs[c]["first"].items()}}
                for c in labels
            ]
            parts = {
                "install": [t.install[c] for c in labels],
                "fresh clone to report": fresh,
                **parts,
            }
        for what, (a, b) in parts.items():
            cpu_now, cpu_before = sum(s.cpu for s in a.values()), sum(s.cpu for s in b.values())
            print(
                f"{what}: CPU {cpu_before:.1f} s at {before}, {cpu_now:.1f} s now "
                f"({cpu_before / cpu_now:.2f}x)"
            )


def backends_compared(t: Timings) -> None:
    """The encoder step of each backend side by side, and each first run against the goal."""
    labels = [c for c in t.runs if c in BACKENDS]
    if not labels:
        return
    load = os.getloadavg()[0]
    steps = {c: s for c in labels for n, s in t.runs[c]["first"].items() if "encoder" in n}
    for c in steps:
        print(
            f"encoder, {c} (first run, empty cache): {steps[c].wall:.1f} s wall, "
            f"{steps[c].cpu:.1f} s CPU"
        )
    if len(steps) == 2:
        a, b = (steps[c] for c in labels)
        print(
            f"encoder: {labels[1]} takes {b.cpu / a.cpu:.2f} of {labels[0]}'s CPU "
            f"({a.cpu / b.cpu:.2f}x less), {b.wall / a.wall:.2f} of its wall time"
        )
    for c in labels:
        first = t.runs[c]["first"].values()
        wall, cpu = sum(s.wall for s in first), sum(s.cpu for s in first)
        verdict = "met" if wall <= GOAL_WALL else "not met"
        print(
            f"main job, {c}: {wall:.1f} s wall, {cpu:.1f} s CPU (goal <= {GOAL_WALL:.0f} s wall "
            f"on a quiet machine: {verdict} here, load average {load:.1f} on "
            f"{os.cpu_count()} cores)"
        )


BACKENDS = ("torch", "onnx")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", help="a git revision to time the same job on, for the ratio")
    ap.add_argument("--measures", nargs="+", default=list(MEASURES), help="(smaller runs)")
    ap.add_argument("--install", action="store_true", help="time the install on a fresh clone")
    ap.add_argument("--venv", type=Path, help="with --install: this environment, not a new one")
    ap.add_argument(
        "--backends", nargs="+", choices=BACKENDS, help="run the job once per encoder backend"
    )
    ap.add_argument(
        "--first-only", action="store_true", help="skip the run again with the cache filled"
    )
    ap.add_argument("--json", type=Path, help="also write every figure to this file")
    ap.add_argument("--show", type=Path, help="print the tables of a run written by --json")
    args = ap.parse_args()
    if args.show:
        shown = Timings.load(args.show)
        show(shown)
        backends_compared(shown)
        return
    if args.backends and args.before:
        ap.error("--backends compares the backends on this revision: not with --before")
    revs = {"now": "HEAD", **({args.before: args.before} if args.before else {})}
    found = gather(revs, args)
    if args.json:
        found.dump(args.json)
    show(found)
    backends_compared(found)


if __name__ == "__main__":
    main()
