"""Evaluate a large word2vec text file on every word benchmark: simeval vs gensim, same run.

Writes a 1,000,000 x 300 word2vec text file (vocabulary: every word of the russe, simlex999,
wordsim353, rg65 and mc30 benchmarks, then filler words; each row one of 1,000 random vectors,
so the file is written in seconds), then measures, each in its own process so peak memory is
its own (``VmHWM``, see ``_child.py``):

- floor: ``wc -l`` on the file, and one plain sequential read of it in 16 MiB chunks;
- simeval: ``simeval.evaluate("vectors:path=F,format=word2vec", "russe", "words")``
  (one streaming pass keeping only the rows the benchmarks need; their numbers read by
  pyarrow when it is installed, by numpy otherwise);
- simeval of another source tree given by ``--before`` (e.g. main's ``src``), which must print
  the same pairs and metrics;
- gensim: ``KeyedVectors.load_word2vec_format(F)`` + ``evaluate_word_pairs`` on each benchmark
  (``--skip-gensim`` leaves it out: it takes minutes);
- with ``--profile``, one more simeval process times its parts (CPU, by ``getrusage``): the
  interpreter and imports, ``evaluate`` outside the vector scan, and the scan's per-line loop,
  number parsing and numpy keys.

``wc -l``, simeval and ``--before`` take turns ``--repeat`` times; each one's best wall time and
best CPU time (user + system, of the whole process) are printed, and the ratio to ``wc -l``.
The Python processes write and reuse bytecode in a scratch folder (``PYTHONPYCACHEPREFIX``,
even where ``PYTHONDONTWRITEBYTECODE`` is set), as an installed package has it: the first
round compiles, the best of the later ones does not.

Run: SIMEVAL_DATA_DIR=../shared/data python benchmarks/vector_loading.py [--words N --dim D]
     [--before ../main/src] [--repeat 3] [--skip-gensim] [--spread]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np

from _child import run_child

WORD_BENCHMARKS = ("russe", "words")

FLOOR = """
import sys
with open(sys.argv[1], "rb") as f:
    while f.read(1 << 24):
        pass
"""

SIMEVAL = """
import sys
from simeval.api import evaluate
results = evaluate(f"vectors:path={sys.argv[1]},format=word2vec", "russe", "words")
print(sum(r.coverage["scored"] for r in results if r.benchmark != "russe"))
print(sorted((r.benchmark, sorted(r.metrics.items())) for r in results))
"""

PROFILE = """
import resource, sys
import simeval.measures.vectors as V
def cpu():
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime
spent = {}
def timed(name):
    inner = getattr(V, name)
    def run(*a, **k):
        t = cpu()
        try:
            return inner(*a, **k)
        finally:
            spent[name] = spent.get(name, 0) + cpu() - t
    setattr(V, name, run)
for name in ("_line_ends", "line_keys", "_parse_rows", "scan_text"):
    timed(name)
from simeval.api import evaluate
start = cpu()
evaluate(f"vectors:path={sys.argv[1]},format=word2vec", "russe", "words")
total = cpu()
scan, ends, keys = spent["scan_text"], spent["_line_ends"], spent["line_keys"]
parse = spent["_parse_rows"]
print(f"profile, CPU s: {total:.2f} in all = {start:.2f} interpreter and imports"
      f" + {total - start - scan:.2f} evaluate outside the vector scan")
print(f"+ {scan:.2f} the scan = {ends:.2f} per-line loop + {parse:.2f} parsing numbers"
      f" + {keys:.2f} numpy keys + {scan - ends - parse - keys:.2f} other")
"""

GENSIM = """
import sys
from gensim.models import KeyedVectors
kv = KeyedVectors.load_word2vec_format(sys.argv[1], binary=False)
for pairs in sys.argv[2:]:
    kv.evaluate_word_pairs(pairs, delimiter="\\t", case_insensitive=False)
print(len(kv))
"""


def benchmark_words() -> tuple[list[str], list[Path]]:
    """Every benchmark word, and gensim-readable pair files (word1<TAB>word2<TAB>score)."""
    from simeval.api import load_targets

    words: dict[str, None] = {}
    files = []
    folder = Path(tempfile.mkdtemp(prefix="simeval-pairs-"))
    for target in load_targets(WORD_BENCHMARKS):
        benches = target.members or [target]
        for b in benches:
            lines = []
            for (a, c), s in zip(b.gold.pairs, b.gold.scores, strict=True):
                words[a] = words[c] = None
                if "\t" not in a + c and " " not in a + c:
                    lines.append(f"{a}\t{c}\t{s}\n")
            f = folder / f"{b.name}.tsv"
            f.write_text("".join(lines), encoding="utf-8")
            files.append(f)
    return [w for w in words if w and " " not in w], files


def write_vectors(path: Path, words: list[str], n: int, dim: int, spread: bool = False) -> None:
    """The file: the benchmark words first, then filler words; with ``spread``, the benchmark
    words at random lines instead, as in a real file, where they are far apart."""
    rng = np.random.default_rng(0)
    pool = [" ".join(f"{x:.5f}" for x in v) for v in rng.normal(size=(1000, dim))]
    choice = rng.integers(0, len(pool), size=n)
    vocab = words + [f"filler{i}" for i in range(n - len(words))]
    if spread:
        vocab = [vocab[i] for i in rng.permutation(n)]
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"{n} {dim}\n")
        for start in range(0, n, 10_000):
            f.write(
                "".join(
                    f"{vocab[i]} {pool[choice[i]]}\n" for i in range(start, min(n, start + 10_000))
                )
            )


def cpu_of_children() -> float:
    """User + system seconds of the finished child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def wc_lines(path: Path) -> tuple[float, float, str]:
    """Wall seconds, peak memory (not read: 0) and output of ``wc -l`` on the file."""
    start = time.perf_counter()
    subprocess.run(["wc", "-l", str(path)], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start, 0.0, ""


def take_turns(
    steps: dict[str, tuple[str, ...]], path: Path, repeat: int
) -> dict[str, tuple[float, float, float, str]]:
    """Each step's best wall time, best CPU time, peak memory and output; the steps run one
    after another, ``repeat`` rounds, so that a burst of load hits them alike."""
    best: dict[str, tuple[float, float, float, str]] = {}
    for _ in range(repeat):
        for name, code in steps.items():
            cpu = cpu_of_children()
            wall, peak, out = wc_lines(path) if not code else run_child(*code, str(path))
            cpu = cpu_of_children() - cpu
            old = best.get(name, (wall, cpu, peak, out))
            best[name] = (min(wall, old[0]), min(cpu, old[1]), max(peak, old[2]), out)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--words", type=int, default=1_000_000)
    ap.add_argument("--dim", type=int, default=300)
    ap.add_argument("--keep", type=Path, help="write the vector file here and keep it")
    ap.add_argument("--before", type=Path, help="also time simeval from this source tree")
    ap.add_argument("--repeat", type=int, default=1, help="rounds of wc -l / simeval / before")
    ap.add_argument("--skip-gensim", action="store_true", help="leave gensim out (minutes)")
    ap.add_argument("--profile", action="store_true", help="where simeval's CPU time goes")
    ap.add_argument(
        "--spread", action="store_true", help="benchmark words at random lines, not first"
    )
    args = ap.parse_args()

    words, pair_files = benchmark_words()
    with tempfile.TemporaryDirectory() as d:
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["PYTHONPYCACHEPREFIX"] = str(Path(d) / "bytecode")
        path = args.keep or Path(d) / "vectors.txt"
        t = time.perf_counter()
        write_vectors(path, words, args.words, args.dim, args.spread)
        size = path.stat().st_size / 2**30
        print(
            f"file: {args.words:,} x {args.dim} word2vec text, {size:.2f} GiB, "
            f"{len(words):,} benchmark words{' at random lines' if args.spread else ''} "
            f"(written in {time.perf_counter() - t:.0f} s)"
        )
        steps: dict[str, tuple[str, ...]] = {"wc -l": (), "simeval": (SIMEVAL,)}
        if args.before:
            before = f"import sys; sys.path.insert(0, {str(args.before.resolve())!r})\n"
            steps["--before"] = (before + SIMEVAL,)
        best = take_turns(steps, path, args.repeat)
        floor = run_child(FLOOR, str(path))
        profile = run_child(PROFILE, str(path))[2] if args.profile else ""
        theirs = None
        if not args.skip_gensim:
            theirs = run_child(GENSIM, str(path), *map(str, pair_files))
    wc, ours = best["wc -l"], best["simeval"]
    print(f"  wc -l      : {wc[0]:7.1f} s  (CPU {wc[1]:.2f} s)")
    print(f"  plain read : {floor[0]:7.1f} s  {floor[1]:7.0f} MiB")
    pairs = ours[3].split(" ", 1)[0]
    for name in [n for n in steps if n != "wc -l"]:
        wall, cpu, peak, out = best[name]
        print(f"  {name:<10} : {wall:7.1f} s  {peak:7.0f} MiB  CPU {cpu:.2f} s")
        print(
            f"  {'':<10}   {wall / wc[0]:.1f}x wc -l wall (goal 3x), {cpu / wc[1]:.1f}x its CPU "
            f"(pairs scored: {pairs})"
        )
        if out != ours[3]:
            raise SystemExit(f"{name} printed other pairs or metrics than simeval: {out}")
    if theirs:
        print(f"  gensim     : {theirs[0]:7.1f} s  {theirs[1]:7.0f} MiB")
        print(
            f"simeval vs gensim: {theirs[0] / ours[0]:.1f}x faster, "
            f"{ours[2] / theirs[1]:.2f} of its peak memory; "
            f"simeval / wc -l: {ours[0] / wc[0]:.1f}x; "
            f"simeval / plain read: {ours[0] / floor[0]:.1f}x"
        )
    if profile:
        print(textwrap.fill(profile, width=80, subsequent_indent="  "))
    goal = "met" if ours[0] <= 3 * wc[0] else "not met"
    print(f"goal (simeval <= 3x wc -l, wall, same run): {goal}")


if __name__ == "__main__":
    main()
