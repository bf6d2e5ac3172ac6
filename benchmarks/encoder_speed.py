"""The encoder's first run on sts12, whole processes: sentence-transformers alone, simeval on
torch, simeval on ONNX Runtime, in the same run.

Each measured step is a fresh process (``_child.py``: wall time and peak memory) starting with
an empty cache:

- bare: a plain sentence-transformers script: import it, load the offline all-MiniLM-L6-v2,
  ``encode`` sts12's 4,964 distinct sentences (its defaults: batches of 32 sorted by length);
- torch: ``simeval evaluate encoder:backend=torch -s sts12`` (encoding, scoring, printing,
  saving the records);
- onnx: ``simeval evaluate encoder:backend=onnx -s sts12``, its cache holding only the ONNX
  export, made before in a process of its own and timed apart (a one-time cost).

It prints the times, the ratios against the bare script, and the largest |difference| between
the backends' STS-2012 figures (ALL and the five sets' Pearson). With ``--repeat N`` the three
steps run N times, interleaved, and the medians are shown: the machine's other load then
weighs on each alike.

Run: SIMEVAL_DATA_DIR=../shared/data HF_HUB_OFFLINE=1 python benchmarks/encoder_speed.py
(smaller: --benchmark mc30, which encodes MC-30's words)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import tempfile
from pathlib import Path

from _child import run_child

BARE = """
import json, sys
from sentence_transformers import SentenceTransformer
texts = json.load(open(sys.argv[1], encoding="utf-8"))
model = SentenceTransformer(sys.argv[2], device="cpu")
print(len(model.encode(texts)))
"""

CLI = """
import sys
from simeval.cli import main
sys.argv = ["simeval", *sys.argv[1:]]
main()
"""

EXPORT = """
from simeval.measures import create_measure
create_measure("encoder:backend=onnx").model()
"""


def distinct_texts(benchmark: str, path: Path) -> int:
    """Write the benchmark's distinct texts to ``path`` (JSON); their number."""
    from simeval.api import load_targets

    (target,) = load_targets([benchmark])
    texts = {t: None for r in target.requests() for pair in r.pairs for t in pair}
    path.write_text(json.dumps(list(texts)), encoding="utf-8")
    return len(texts)


def figures(results: Path) -> dict[str, float]:
    """Each record's main figure (for sts12: Pearson per set, ALL for the suite)."""
    out = {}
    for line in (results / "results.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        out[record["benchmark"]] = record["metrics"][record["main_metric"]]
    return out


def timed_child(code: str, *args: str) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system, every thread: torch's and ONNX Runtime's
    threads spin while they wait, so other load on the machine inflates it too) and peak MiB
    of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds, peak, _ = run_child(code, *args)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return seconds, cpu, peak


def simeval_run(
    spec: str, benchmark: str, cache: Path, work: Path
) -> tuple[tuple[float, float, float], dict[str, float]]:
    """Time ``simeval evaluate SPEC -s BENCHMARK`` with cache folder ``cache``."""
    results = Path(tempfile.mkdtemp(dir=work))
    os.environ["SIMEVAL_CACHE_DIR"] = str(cache)
    measured = timed_child(CLI, "evaluate", spec, "-s", benchmark, "--results", str(results))
    return measured, figures(results)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--benchmark", default="sts12", help="benchmark or suite (default sts12)")
    ap.add_argument("--repeat", type=int, default=1, help="rounds of the three steps (medians)")
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from simeval.measures.encoder import default_model_path

    with tempfile.TemporaryDirectory(prefix="simeval-encoder-speed-") as tmp:
        work = Path(tmp)
        sentences = work / "texts.json"
        n = distinct_texts(args.benchmark, sentences)
        exported = work / "exported"
        os.environ["SIMEVAL_CACHE_DIR"] = str(exported)
        export_seconds, _, _ = timed_child(EXPORT)
        steps: dict[str, list[tuple[float, float, float]]] = {"bare": [], "torch": [], "onnx": []}
        for round_ in range(args.repeat):
            os.environ["SIMEVAL_CACHE_DIR"] = str(work / f"unused-{round_}")
            steps["bare"].append(timed_child(BARE, str(sentences), str(default_model_path())))
            measured, by_torch = simeval_run(
                "encoder:backend=torch", args.benchmark, work / f"torch-{round_}", work
            )
            steps["torch"].append(measured)
            cache = work / f"onnx-{round_}"
            (cache / "onnx").mkdir(parents=True)
            for folder in (exported / "onnx").iterdir():
                (cache / "onnx" / folder.name).symlink_to(folder)
            measured, by_onnx = simeval_run("encoder:backend=onnx", args.benchmark, cache, work)
            steps["onnx"].append(measured)
    t, c, m = ({k: statistics.median(x[i] for x in v) for k, v in steps.items()} for i in range(3))
    label = f"median of {args.repeat}" if args.repeat > 1 else "one round"
    print(f"{args.benchmark}: {n:,} distinct texts; each process with an empty cache ({label})")
    print(
        f"bare sentence-transformers script: {t['bare']:6.1f} s  (CPU {c['bare']:6.1f} s)  "
        f"{m['bare']:5.0f} MiB"
    )
    print(
        f"simeval, torch backend          : {t['torch']:6.1f} s  (CPU {c['torch']:6.1f} s)  "
        f"{m['torch']:5.0f} MiB  {t['torch'] / t['bare']:.2f}x the bare script's time "
        f"(goal: at most 1.10x)"
    )
    print(
        f"simeval, onnx backend           : {t['onnx']:6.1f} s  (CPU {c['onnx']:6.1f} s)  "
        f"{m['onnx']:5.0f} MiB  {t['bare'] / t['onnx']:.2f}x faster than the bare script "
        f"(goal: 1.5x), {t['torch'] / t['onnx']:.2f}x faster than torch"
    )
    print(f"ONNX export, once (not included) : {export_seconds:6.1f} s")
    worst = max(by_torch, key=lambda b: abs(by_torch[b] - by_onnx[b]))
    main = args.benchmark if args.benchmark in by_torch else worst
    compared = f"{len(by_torch)} figure" + ("s" if len(by_torch) > 1 else "")
    print(
        f"{args.benchmark} main figure: torch {by_torch[main]:.6f}, onnx {by_onnx[main]:.6f}; "
        f"largest |difference| of the {compared}: {abs(by_torch[worst] - by_onnx[worst]):.1e} "
        f"({worst})"
    )


if __name__ == "__main__":
    main()
