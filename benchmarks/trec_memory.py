"""Peak memory of reading a TREC run against the file's size: simeval's ``read_run`` streams
the file in blocks, so its peak follows the rows it keeps, not the bytes it reads; the named
alternative is Python's ``f.read()`` of the same file, which holds every byte. Each step runs
in a fresh process (peak = VmHWM, :mod:`_child`).

Files: runs of valid rows of ``--sizes`` MB (1,000 queries, ids of 8 bytes, a run name of
``--name-bytes`` bytes, so the rows kept are a fraction of the bytes read), and a file of one
endless line of the largest size (refused at the line cap). Both steps must agree on the rows.
Run: python benchmarks/trec_memory.py [--sizes 20 100 200]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _child import run_child

SIMEVAL = """
import sys
from simeval.data.trec import read_run
from simeval.errors import InputError
try:
    print(len(read_run(sys.argv[1]).scores))
except InputError as error:
    print("refused:", str(error)[:60])
"""

READ = """
import sys
with open(sys.argv[1], "rb") as f:
    data = f.read()
print(data.count(b"\\n"))
"""


def generate(path: Path, megabytes: int, name_bytes: int) -> None:
    """Rows ``q<i> Q0 d<j> rank score name`` up to ``megabytes`` MB, written in slices."""
    name = "r" * name_bytes
    size = megabytes * 1_000_000
    written = 0
    row = 0
    with open(path, "w", encoding="ascii") as f:
        while written < size:
            rows = range(row, row + 10_000)
            text = "".join(f"q{i % 1000:07d} Q0 d{i:07d} 1 {(i % 97) / 97} {name}\n" for i in rows)
            f.write(text)
            written += len(text)
            row += 10_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 100, 200], help="MB")
    parser.add_argument("--name-bytes", type=int, default=60)
    args = parser.parse_args()
    print(f"{'file':>22}  {'MB':>6}  {'read_run MiB':>12}  {'f.read() MiB':>12}  ratio  rows")
    with tempfile.TemporaryDirectory() as tmp:
        for megabytes in args.sizes:
            path = Path(tmp) / f"run{megabytes}.txt"
            generate(path, megabytes, args.name_bytes)
            _report("valid rows", path)
            path.unlink()
        endless = Path(tmp) / "endless.txt"
        with open(endless, "wb") as f:
            for _ in range(max(args.sizes)):
                f.write(b"x" * 1_000_000)
        _report("one endless line", endless)


def _report(what: str, path: Path) -> None:
    megabytes = path.stat().st_size / 1e6
    _, s_peak, s_out = run_child(SIMEVAL, str(path))
    _, r_peak, _ = run_child(READ, str(path))
    print(f"{what:>22}  {megabytes:>6.0f}  {s_peak:>12.0f}  {r_peak:>12.0f}  "
          f"{s_peak / r_peak:>5.2f}  {s_out}")  # fmt: skip


if __name__ == "__main__":
    main()
