"""Peak memory of scoring a huge pair submission against a small gold: simeval streams the file
against the gold's pairs; the named alternative, pandas (read_csv of the whole file, then a
merge with the gold), holds it all. Each runs in a fresh process (peak = VmHWM).

The submission has ``--lines`` rows (default 2,000,000): the 30 MC-30 pairs scattered among
random word pairs. Both must give the same Spearman on MC-30 (scipy for pandas).
Run: SIMEVAL_DATA_DIR=../shared/data python benchmarks/submission_memory.py
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _child import run_child

SIMEVAL = """
import sys
from simeval.api import score
(r,) = score("mc30", sys.argv[1], missing="error")
print(repr(r.metrics["spearman"]), r.coverage["extra"])
"""

PANDAS = """
import sys
import pandas as pd
from scipy.stats import spearmanr
sub = pd.read_csv(sys.argv[1])
gold = pd.read_csv(sys.argv[2], sep="\\t", names=["word1", "word2", "gold"])
both = gold.merge(sub, on=["word1", "word2"], how="left")
print(repr(float(spearmanr(both["sim"], both["gold"])[0])), len(sub) - len(both))
"""


def write_submission(path: Path, gold: Path, lines: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    pairs = [line.split("\t")[:2] for line in gold.read_text().splitlines()]
    where = set(rng.choice(lines, size=len(pairs), replace=False).tolist())
    gold_rows = iter(pairs)
    with path.open("w") as f:
        f.write("word1,word2,sim\n")
        for i in range(lines):
            if i in where:
                a, b = next(gold_rows)
            else:
                a, b = f"w{rng.integers(1 << 30)}", f"v{i}"
            f.write(f"{a},{b},{rng.random()!r}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=2_000_000)
    args = parser.parse_args()
    from simeval.data.store import DataStore

    gold = DataStore.from_env().path("mc30/EN-MC-30.txt")
    with tempfile.TemporaryDirectory() as tmp:
        sub = Path(tmp) / "submission.csv"
        write_submission(sub, gold, args.lines)
        size = sub.stat().st_size / 2**20
        s_time, s_peak, s_out = run_child(SIMEVAL, str(sub))
        p_time, p_peak, p_out = run_child(PANDAS, str(sub), str(gold))
    print(f"submission: {args.lines:,} lines ({size:.0f} MiB) against MC-30's 30 gold pairs")
    print(f"simeval (streamed): {s_time:.1f} s, peak {s_peak:.0f} MiB; spearman, extra = {s_out}")
    print(f"pandas read_csv + merge: {p_time:.1f} s, peak {p_peak:.0f} MiB; same = {p_out}")
    print(f"simeval peak / pandas peak = {s_peak / p_peak:.2f}")
    same = float(s_out.split()[0]) == float(p_out.split()[0])
    print(f"identical spearman: {same}")


if __name__ == "__main__":
    main()
