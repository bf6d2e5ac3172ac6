"""Time simeval's TREC scoring against pytrec_eval on a BUCC-scale run, in the same process.

Generates 150,000 queries x 5 candidates (scores from 20 values, so ties are common) and one
relevant document per query, writes them as TREC files, then times:

- end to end from files: simeval (read_qrels + read_run + evaluate) vs pytrec_eval (the usual
  Python parse into dicts + RelevanceEvaluator + evaluate + averaging);
- scoring only, data already in memory: simeval's kernel on arrays vs pytrec_eval on dicts.

Both must give identical success@1, success@5 and MRR. Run: python benchmarks/trec_scoring.py
(pytrec-eval-terrier must be installed: pip install -e .[test]).
"""

from __future__ import annotations

import argparse
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
