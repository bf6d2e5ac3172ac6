"""A shared-task server in a process of its own, for the server benchmarks: started with a
command line, awaited until a URL answers, stopped (terminate, then kill) at the end."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

START_SECONDS = 60  # the server must answer within this long after starting


def limits() -> object:
    """The benchmarks' clients' connection limits: an idle connection is dropped by the
    client well before the server closes it (``KEEP_ALIVE_SECONDS``, 5 s). httpx's own
    default waits exactly as long as the server, so a request sent on a connection idle for
    5 s (a team whose registration ended first, while the others' scrypt ran) could meet the
    server closing it: ``httpx.ReadError``, with no answer to count (issue 46)."""
    import httpx

    from simeval.serve.app import KEEP_ALIVE_SECONDS

    return httpx.Limits(keepalive_expiry=KEEP_ALIVE_SECONDS / 5)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serving(
    argv: list[str],
    folder: Path,
    port: int,
    ready: str,
    started: Callable[[int], None] | None = None,
) -> Iterator[str]:
    """Run ``argv`` (its output to ``folder/server.log``) until the path ``ready`` answers on
    127.0.0.1:``port``; yields the base URL and stops the process afterwards. ``started`` is
    told the process id."""
    import httpx

    log = (folder / "server.log").open("wb")
    proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
    if started is not None:
        started(proc.pid)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_SECONDS
        while True:  # the first answer also loads the report code: before any clock starts
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start; see {folder / 'server.log'}")
            try:
                if httpx.get(url + ready, trust_env=False).is_success:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)
        log.close()
