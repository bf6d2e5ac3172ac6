"""Time simeval's TREC scoring against pytrec_eval (and C trec_eval when given) on a BUCC-scale
run, in the same run.

Generates 150,000 queries x 5 candidates (scores from 20 values, so ties are common) and one
relevant document per query, writes them as TREC files, then times:

- whole processes, best of ``--repeat``: ``simeval score trec`` vs a Python script that parses
  the files into dicts and runs pytrec_eval (``RelevanceEvaluator`` + averaging), and vs the
  ``trec_eval`` binary given by ``--trec-eval`` (none is installed on this machine);
- end to end from files in this process: simeval (read_qrels + read_run + evaluate) vs the
  same parse + pytrec_eval;
- scoring only, data already in memory: simeval's kernel on arrays vs pytrec_eval on dicts.

All must give identical success@1, success@5 and MRR. Run: python benchmarks/trec_scoring.py
(pytrec-eval-terrier must be installed: pip install -e .[test]).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def generate(folder: Path, n_queries: int, depth: int, seed: int) -> tuple[Path, Path]:
    rng = np.random.default_rng(seed)
    docs = rng.integers(0, n_queries, size=(n_queries, depth))
    scores = rng.integers(0, 20, size=(n_queries, depth)) / 20
    run_lines = []
    qrel_lines = []
    for q in range(n_queries):
        seen = set()
        for r in range(depth):
            d = int(docs[q, r])
            if d in seen:
                d = n_queries + q * depth + r  # keep (query, doc) unique
            seen.add(d)
            run_lines.append(f"de{q} X en{d} Y {scores[q, r]} run\n")
        qrel_lines.append(f"de{q} 0 en{q if rng.random() < 0.5 else int(docs[q, 0])} 1\n")
    run, qrels = folder / "run.txt", folder / "qrels.txt"
    run.write_text("".join(run_lines))
    qrels.write_text("".join(qrel_lines))
    return run, qrels


PYTREC = """
import sys, numpy as np, pytrec_eval
run, qrels = {}, {}
for line in open(sys.argv[1]):
    qid, _, doc, _, score, _ = line.split()
    run.setdefault(qid, {})[doc] = float(score)
for line in open(sys.argv[2]):
    qid, _, doc, rel = line.split()
    qrels.setdefault(qid, {})[doc] = int(rel)
res = pytrec_eval.RelevanceEvaluator(qrels, {"success", "recip_rank"}).evaluate(run)
for m in ("success_1", "success_5", "recip_rank"):
    print(m, float(np.mean([v[m] for v in res.values()])))
"""


def process(command: list[str], repeat: int) -> tuple[float, str]:
    """Best wall time of ``repeat`` runs of a whole process, and its output."""
    times, out = [], ""
    for _ in range(repeat):
        t = time.perf_counter()
        out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        times.append(time.perf_counter() - t)
    return min(times), out


def best_of(fn, repeat: int):
    times, value = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t)
    return min(times), value


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--queries", type=int, default=150_000)
    ap.add_argument("--depth", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--trec-eval", help="a trec_eval binary to time as well (-m success.1,5 -m recip_rank)"
    )
    args = ap.parse_args()

    import pytrec_eval

    from simeval.data.trec import read_qrels, read_run
    from simeval.metrics import evaluate_trec

    measures = ("success_1", "success_5", "recip_rank")
    with tempfile.TemporaryDirectory() as d:
        run_f, qrels_f = generate(Path(d), args.queries, args.depth, seed=0)

        def ours_files():
            q, r = read_qrels(qrels_f), read_run(run_f)
            ev = evaluate_trec(r.qids, r.docnos, r.scores, q.qids, q.docnos, q.relevance)
            return {m: ev.aggregates[m] for m in measures}

        def parse_dicts():
            run: dict = {}
            qrels: dict = {}
            with open(run_f) as f:
                for line in f:
                    qid, _, doc, _, score, _ = line.split()
                    run.setdefault(qid, {})[doc] = float(score)
            with open(qrels_f) as f:
                for line in f:
                    qid, _, doc, rel = line.split()
                    qrels.setdefault(qid, {})[doc] = int(rel)
            return run, qrels

        def theirs_eval(run, qrels):
            res = pytrec_eval.RelevanceEvaluator(qrels, {"success", "recip_rank"}).evaluate(run)
            return {m: float(np.mean([v[m] for v in res.values()])) for m in measures}

        def theirs_files():
            return theirs_eval(*parse_dicts())

        simeval = str(Path(sys.executable).with_name("simeval"))
        whole, out = process(
            [simeval, "score", "trec", "--qrels", str(qrels_f), "--run", str(run_f), "--json"],
            args.repeat,
        )
        whole_pytrec, out_pytrec = process(
            [sys.executable, "-c", PYTREC, str(run_f), str(qrels_f)], args.repeat
        )
        whole_c = None
        if args.trec_eval:
            whole_c, _ = process(
                [args.trec_eval, "-m", "success.1,5", "-m", "recip_rank", str(qrels_f), str(run_f)],
                args.repeat,
            )

        t_ours, v_ours = best_of(ours_files, args.repeat)
        t_theirs, v_theirs = best_of(theirs_files, args.repeat)

        r, q = read_run(run_f), read_qrels(qrels_f)
        run_d, qrels_d = parse_dicts()
        t_kernel, v_kernel = best_of(
            lambda: (
                evaluate_trec(r.qids, r.docnos, r.scores, q.qids, q.docnos, q.relevance).aggregates
            ),
            args.repeat,
        )
        t_pytrec, _ = best_of(lambda: theirs_eval(run_d, qrels_d), args.repeat)

    print(
        f"run: {args.queries:,} queries x {args.depth} candidates "
        f"({args.queries * args.depth:,} lines), best of {args.repeat}"
    )
    for m in measures:
        same = abs(v_ours[m] - v_theirs[m]) <= 1e-12 and abs(v_kernel[m] - v_theirs[m]) <= 1e-12
        print(
            f"  {m:<11} simeval {v_ours[m]:.10f}  pytrec_eval {v_theirs[m]:.10f}  "
            f"{'identical' if same else 'DIFFERENT'}"
        )
    import json

    printed = json.loads(out.splitlines()[0])["metrics"]
    pytrec_printed = dict(line.split() for line in out_pytrec.splitlines())
    same = all(
        abs(printed[m] - v_theirs[m]) <= 1e-12
        and abs(float(pytrec_printed[m]) - v_theirs[m]) <= 1e-12
        for m in measures
    )
    print(
        f"whole process: simeval score trec {whole:.2f} s, "
        f"pytrec_eval script {whole_pytrec:.2f} s, "
        f"ratio {whole_pytrec / whole:.1f}x ({'identical' if same else 'DIFFERENT'} numbers)"
    )
    if whole_c is not None:
        print(f"whole process: trec_eval {whole_c:.2f} s, ratio {whole_c / whole:.1f}x")
    print(
        f"from files : simeval {t_ours:.2f} s, pytrec_eval {t_theirs:.2f} s, "
        f"ratio {t_theirs / t_ours:.1f}x"
    )
    print(
        f"in memory  : simeval {t_kernel:.2f} s, pytrec_eval {t_pytrec:.2f} s, "
        f"ratio {t_pytrec / t_kernel:.1f}x"
    )


if __name__ == "__main__":
    main()
