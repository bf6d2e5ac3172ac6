"""Train PPMI+SVD and gensim skip-gram (3 epochs) on the English corpus, in the same run.

Both read the same tokenized corpus (prepared once, before timing, in a temporary cache), with
the same vocabulary threshold and window; each runs in its own process, so wall time and peak
memory (``VmHWM``, see ``_child.py``) are its own. Goal: PPMI+SVD faster than skip-gram, at most
4 GB peak.

Run: python benchmarks/train_speed.py [--corpus PATH --lang en --min-count 20 --dim 300]
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from _child import run_child

TRAIN = """
import sys
from simeval.train.models import TrainConfig, train
from simeval.train.prepared import prepare_corpus
from pathlib import Path
kind, corpus, lang, cache, out, min_count, dim = sys.argv[1:8]
prepared = prepare_corpus(Path(corpus), lang, False, Path(cache))
config = TrainConfig(kind, lang, min_count=int(min_count), dim=int(dim), window=5, epochs=3,
                     workers=2)
folder = train(config, prepared, out)
print(prepared.tokens)
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = Path(__file__).resolve().parents[2] / "shared/data/corpora/gutenberg_5authors.tar.xz"
    ap.add_argument("--corpus", type=Path, default=default)
    ap.add_argument("--lang", default="en")
    ap.add_argument("--min-count", type=int, default=20)
    ap.add_argument("--dim", type=int, default=300)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        cache = os.environ.get("SIMEVAL_CACHE_DIR", d) + "/corpora"
        common = [str(args.corpus), args.lang, cache]
        prep = run_child(
            "import sys; from pathlib import Path; "
            "from simeval.train.prepared import prepare_corpus; "
            "p = prepare_corpus(Path(sys.argv[1]), sys.argv[2], False, Path(sys.argv[3])); "
            "print(p.tokens)",
            *common,
        )
        print(f"corpus {args.corpus.name}: {int(prep[2]):,} tokens (tokenized in {prep[0]:.0f} s)")
        rows = {}
        for kind in ("svd", "word2vec"):
            out = str(Path(d) / kind)
            rows[kind] = run_child(TRAIN, kind, *common, out, str(args.min_count), str(args.dim))
    for kind, label in (("svd", "PPMI+SVD"), ("word2vec", "skip-gram, 3 epochs")):
        t, peak, _ = rows[kind]
        print(f"  {label:<20} {t:7.1f} s  {peak:7.0f} MiB peak")
    ratio = rows["word2vec"][0] / rows["svd"][0]
    print(f"PPMI+SVD is {ratio:.1f}x the speed of skip-gram; peak {rows['svd'][1] / 1024:.2f} GiB")


if __name__ == "__main__":
    main()
