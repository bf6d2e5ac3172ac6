"""The public leaderboard during a burst of bad passwords and tokens: ``--clients`` clients
(default 8, each from its own loopback address, 127.0.1.1, 127.0.1.2, …) send wrong team
tokens as fast as they can, half as ``Authorization: Bearer`` on ``/api/submissions`` and half
through the sign-in form, while one more client reads the public leaderboard, one request
after another.

The server is the shared-task app (``create_app`` and uvicorn, as ``simeval serve run`` starts
them) in its own process on 127.0.0.1, over SQLite in a new folder, with a campaign of one
phase whose leaderboard holds ``--teams`` scored runs on MC-30. It runs twice: with the
default rate limits (``default``) and with none (``off``, so every attempt costs a scrypt:
how much the event loop suffers when only the hashing threads stand between it and the
burst); ``--limits`` picks one.

Prints, for each: the leaderboard's p50 and p95 latency alone (``--seconds``, before the
burst) and during the burst (``--seconds``), their ratio, and the attempts: checked (401: a
scrypt was paid), refused by the rate limit (429), anything else (a failure). A request that
meets a transport error (the connection reset, a read timed out: a slow machine) is sent again,
up to :data:`TRIES` times; those errors are counted by kind and printed, never a crash. Exits 1
when an attempt got another answer, a leaderboard request failed every try, or no
leaderboard read succeeded; the times are printed, not judged.

Run: SIMEVAL_DATA_DIR=../shared/data python benchmarks/serve_burst.py [--clients 8]
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import secrets
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from _server import free_port, limits, serving

CAMPAIGN = "burst"
PHASE = "trial"
BOARD = f"/api/campaigns/{CAMPAIGN}/phases/{PHASE}/leaderboard"
REQUEST_SECONDS = 30
TRIES = 5  # a request is sent at most this often while it meets transport errors


class Retries:
    """Transport errors met and retried, by kind (ReadError, ReadTimeout, …); shared by the
    clients' threads."""

    def __init__(self) -> None:
        self.seen: Counter = Counter()
        self._lock = threading.Lock()

    def send(self, call: Callable[[], Any]) -> Any:
        """``call()``'s answer, sent again after a transport error (at most :data:`TRIES`
        times in all, a little later each time); the last error is raised."""
        import httpx

        for attempt in range(TRIES):
            try:
                return call()
            except httpx.TransportError as exc:
                with self._lock:
                    self.seen[type(exc).__name__] += 1
                if attempt + 1 == TRIES:
                    raise
                time.sleep(0.2 * (attempt + 1))
        raise AssertionError("unreachable")

    def text(self) -> str:
        kinds = ", ".join(f"{n} {k}" for k, n in self.seen.most_common())
        return f"{sum(self.seen.values())} ({kinds})" if self.seen else "0"


def campaign_text(now: datetime) -> str:
    return f"""name = "{CAMPAIGN}"
title = "Burst"
[[phase]]
name = "{PHASE}"
targets = ["mc30"]
opens = {(now - timedelta(hours=1)).isoformat()}
deadline = {(now + timedelta(days=1)).isoformat()}
runs = 3
max_bytes = 100_000
"""


def serve(folder: Path, port: int, limits: str) -> None:
    """The server process: ``create_app`` over ``folder`` and uvicorn as ``simeval serve run``
    starts it (one process, X-Forwarded-For not trusted)."""
    import uvicorn

    from simeval.serve.app import create_app
    from simeval.serve.db import default_url
    from simeval.serve.routers.web import RATE_LIMITS
    from simeval.serve.service.security import RateLimit

    # the board's reader is not limited (it measures the board, not the read budget)
    unread = {**RATE_LIMITS, "read": RateLimit(RATE_LIMITS["read"].burst, 0)}
    app = create_app(
        default_url(folder), folder / "files", rate_limits=unread if limits == "default" else {}
    )
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", proxy_headers=False)


@contextmanager
def server(folder: Path, limits: str) -> Iterator[str]:
    port = free_port()
    argv = [sys.executable, __file__, "--serve", str(folder), str(port), limits]
    with serving(argv, folder, port, BOARD) as url:
        yield url


def client(url: str, address: str) -> object:
    import httpx

    transport = httpx.HTTPTransport(local_address=address, limits=limits())
    return httpx.Client(base_url=url, transport=transport, timeout=REQUEST_SECONDS, trust_env=False)


def mc30_file(pairs: list[tuple[str, str]], seed: int) -> bytes:
    scores = np.random.default_rng(seed).random(len(pairs)).round(6)
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(["word1", "word2", "sim"])
    writer.writerows((a, b, s) for (a, b), s in zip(pairs, scores.tolist(), strict=True))
    return text.getvalue().encode()


def fill(url: str, teams: int, retries: Retries) -> str:
    """``teams`` teams, one scored run each (each from its own address); a real token key
    (with which the attackers send wrong secrets). A registration whose answer was lost to a
    transport error is made again under another name (the first may have been taken)."""
    from simeval.data.store import DataStore

    gold = DataStore.from_env().path("mc30/EN-MC-30.txt").read_text(encoding="utf-8")
    pairs = [tuple(line.split("\t")[:2]) for line in gold.splitlines() if line.strip()]
    key = ""
    for i in range(teams):
        with client(url, f"127.0.2.{i + 1}") as http:
            for name in (f"team{i}", f"team{i}-again", f"team{i}-third"):
                r = retries.send(
                    lambda name=name: http.post(
                        f"/api/campaigns/{CAMPAIGN}/teams", json={"team": name}
                    )
                )
                if r.status_code != 409:
                    break
            r.raise_for_status()
            token = r.json()["token"]
            key = token.split("_")[1]
            data, auth = mc30_file(pairs, i), {"authorization": f"Bearer {token}"}
            r = retries.send(
                lambda data=data, auth=auth: http.post(
                    f"/api/phases/{PHASE}/submissions",
                    params={"target": "mc30", "filename": "run.csv"},
                    content=data,
                    headers=auth,
                )
            )
            if r.status_code != 201:
                raise RuntimeError(f"upload: HTTP {r.status_code} {r.text[:200]}")
    return key


@dataclass
class Reads:
    seconds: list[float] = field(default_factory=list)
    failed: int = 0

    def percentiles(self) -> tuple[float, float]:
        if not self.seconds:
            return float("nan"), float("nan")
        p50, p95 = np.percentile(self.seconds, [50, 95])
        return float(p50), float(p95)


def read_board(url: str, stop: threading.Event, reads: Reads, retries: Retries) -> None:
    """Read the leaderboard, one request after another, until ``stop``: each read's time
    (its retries included), or a failure (not 200, or a transport error every try)."""
    import httpx

    with client(url, "127.0.3.1") as http:
        while not stop.is_set():
            began = time.perf_counter()
            try:
                ok = retries.send(lambda: http.get(BOARD)).status_code == 200
            except httpx.TransportError:
                ok = False
            if ok:
                reads.seconds.append(time.perf_counter() - began)
            else:
                reads.failed += 1


def attack(
    url: str, n: int, key: str, stop: threading.Event, answers: Counter, retries: Retries
) -> None:
    """Client ``n``: wrong tokens as fast as it can, as Bearer and through the sign-in form
    (an attempt that meets a transport error every try counts as ``error``)."""
    import httpx

    mine: Counter = Counter()
    with client(url, f"127.0.1.{n + 1}") as http:
        page = retries.send(lambda: http.get(f"/campaigns/{CAMPAIGN}")).text
        csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
        i = 0
        while not stop.is_set():
            i += 1
            wrong = f"st_{key if i % 4 else secrets.token_hex(6)}_{secrets.token_urlsafe(32)}"
            try:
                if n % 2:
                    data = {"token": wrong, "csrf": csrf}
                    r = retries.send(lambda data=data: http.post("/login", data=data))
                else:
                    bearer = {"authorization": f"Bearer {wrong}"}
                    r = retries.send(lambda h=bearer: http.get("/api/submissions", headers=h))
                mine[r.status_code] += 1
            except httpx.TransportError:
                mine["error"] += 1
    answers.update(mine)


@dataclass
class Result:
    limits: str
    clients: int
    seconds: float
    alone: Reads
    during: Reads
    answers: Counter
    retries: Retries = field(default_factory=Retries)

    def lines(self) -> list[str]:
        a50, a95 = self.alone.percentiles()
        d50, d95 = self.during.percentiles()
        checked, refused = self.answers[401], self.answers[429]
        other = sum(self.answers.values()) - checked - refused
        return [
            f"rate limits {self.limits}: {self.clients} clients x {self.seconds:g} s of wrong "
            f"tokens: {sum(self.answers.values())} attempts, {checked} checked (401), "
            f"{refused} refused (429), {other} other",
            f"  leaderboard alone     : {len(self.alone.seconds)} requests, "
            f"p50 {a50 * 1000:.1f} ms, p95 {a95 * 1000:.1f} ms",
            f"  leaderboard in burst  : {len(self.during.seconds)} requests, "
            f"p50 {d50 * 1000:.1f} ms, p95 {d95 * 1000:.1f} ms",
            f"  ratio burst / alone   : p50 {d50 / a50:.2f}x, p95 {d95 / a95:.2f}x; "
            f"p95 under 1 s: {'yes' if d95 < 1 else 'NO'}",
            f"  transport errors retried: {self.retries.text()}; leaderboard reads failed "
            f"every try: {self.alone.failed + self.during.failed}",
        ]

    @property
    def failed(self) -> list[str]:
        problems = []
        other = {k: v for k, v in self.answers.items() if k not in (401, 429)}
        if other:
            problems.append(f"rate limits {self.limits}: attempts answered {other}")
        if self.alone.failed or self.during.failed or not self.during.seconds:
            problems.append(f"rate limits {self.limits}: leaderboard requests failed")
        if not self.alone.seconds:
            problems.append(f"rate limits {self.limits}: no leaderboard read succeeded alone")
        return problems


def run(folder: Path, limits: str, clients: int, seconds: float, teams: int) -> Result:
    from simeval.serve.db import Database, default_url
    from simeval.serve.service.campaigns import Targets, create_campaign

    folder.mkdir(parents=True)
    (folder / "campaign.toml").write_text(campaign_text(datetime.now(UTC)), "utf-8")
    db = Database(default_url(folder))
    create_campaign(db, folder / "campaign.toml", datetime.now(UTC), Targets())
    db.dispose()
    retries = Retries()
    with server(folder, limits) as url:
        key = fill(url, teams, retries)
        alone, during, answers = Reads(), Reads(), Counter()
        stop = threading.Event()
        reader = threading.Thread(target=read_board, args=(url, stop, alone, retries))
        reader.start()
        time.sleep(seconds)
        stop.set()
        reader.join()
        stop = threading.Event()
        burst = [
            threading.Thread(target=attack, args=(url, n, key, stop, answers, retries))
            for n in range(clients)
        ]
        for t in burst:
            t.start()
        time.sleep(min(1.0, seconds / 4))  # the burst under way before measuring
        reader = threading.Thread(target=read_board, args=(url, stop, during, retries))
        reader.start()
        time.sleep(seconds)
        stop.set()
        for t in [reader, *burst]:
            t.join()
    return Result(limits, clients, seconds, alone, during, answers, retries)


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--serve":
        serve(Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=8, help="clients sending wrong tokens")
    parser.add_argument("--seconds", type=float, default=10, help="of each measurement")
    parser.add_argument("--teams", type=int, default=5, help="scored runs on the leaderboard")
    parser.add_argument("--limits", choices=["default", "off", "both"], default="both")
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    args = parser.parse_args()
    modes = ["default", "off"] if args.limits == "both" else [args.limits]
    print(
        f"server: create_app + uvicorn on 127.0.0.1 in its own process, SQLite; leaderboard of "
        f"{args.teams} runs; scrypt n=2**14 in hashing threads"
    )
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for mode in modes:
            result = run(Path(tmp) / mode, mode, args.clients, args.seconds, args.teams)
            results.append(result)
            for line in result.lines():
                print(line, flush=True)
    if args.json:
        args.json.write_text(
            json.dumps(
                [
                    {
                        "limits": r.limits,
                        "alone": r.alone.percentiles(),
                        "during": r.during.percentiles(),
                        "answers": {str(k): v for k, v in r.answers.items()},
                        "retried": dict(r.retries.seen),
                    }
                    for r in results
                ]
            )
        )
    problems = [p for r in results for p in r.failed]
    for problem in problems:
        print(f"FAILED: {problem}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
