"""Run a piece of Python in a fresh process and report its wall time and peak memory.

Peak memory is ``VmHWM`` read by the child from /proc/self/status at exit: the high-water mark
of its own address space (``ru_maxrss`` of a forked child would also count the parent's pages).
"""

from __future__ import annotations

import subprocess
import sys
import time

PEAK = """
import atexit
def _peak():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            print("PEAK", int(line.split()[1]) / 1024)
atexit.register(_peak)
"""


def run_child(code: str, *args: str) -> tuple[float, float, str]:
    """Wall seconds, peak resident memory (MiB) and printed output of ``python -c code args``."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", PEAK + code, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    out, _ = proc.communicate()
    seconds = time.perf_counter() - start
    if proc.returncode:
        raise RuntimeError(f"benchmark step failed ({proc.returncode})")
    lines = out.decode().split("\n")
    peak = float(next(x for x in lines if x.startswith("PEAK")).split()[1])
    output = " ".join(x for x in lines if x and not x.startswith("PEAK"))
    return seconds, peak, output
