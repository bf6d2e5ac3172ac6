"""Load on the shared-task server: ``--teams`` teams (default 50) each send ``--uploads`` RUSSE-size
files (default 5: test.csv's 14,835 lines with seeded random scores) all at once, to a phase
that takes ``--runs`` scored runs (default 3, so 2 of each team's 5 are refused with 409).

The server is a real ``simeval serve run --scorers N`` in its own process on 127.0.0.1
(SQLite in its folder, or ``--db URL``), as an organiser runs it, default rate limits
included: each team connects from its own loopback address (127.0.0.2, 127.0.0.3, …). A
server in the client's process would share the client's interpreter lock, so the client's
requests would slow the scoring they measure. ``--scorers`` (default 2, this machine's
cores) is the server's pool of scoring processes; 0 scores in the server's own process,
which one interpreter lock bounds to about one ``simeval score`` at a time.

Prints uploads scored per minute, the latency of a scored upload (p50, p95: from sending it
to its answer; every upload is sent at once, so p95 is about the time to clear the burst),
and the ratio to the named alternative measured in the same run: offline
:func:`simeval.api.score` on the same files, one after another in this process. Then checks,
and exits 1 when one fails: every answer is 201 or 409, each team got exactly ``--runs``
201s; every 201 has exactly one row, every row one stored file with the sha256 of the file
sent; nothing else is stored; runs 1…R per team; every leaderboard cell equals offline
``simeval.api.score`` (abs 1e-12).

Run: SIMEVAL_DATA_DIR=../shared/data python benchmarks/serve_load.py [--db postgresql://…]
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import csv
import hashlib
import io
import json
import math
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from _server import free_port, limits, serving

CAMPAIGN = "load"
PHASE = "trial"
TARGET = "russe"
REQUEST_SECONDS = 600  # one request, at most
TOLERANCE = 1e-12
NO_ANSWER = 0  # the status of an upload that met a transport error (Answer.error) instead


@dataclass
class Answer:
    """What the client got for one upload."""

    team: str
    file: str  # the sent file's name in the files folder
    sha256: str
    status: int
    seconds: float
    id: str | None = None
    run: int | None = None
    error: str | None = None  # the transport error met instead of an answer (NO_ANSWER)


class PairFiles:
    """Files of a pair benchmark's size: every pair of its file (word1,word2,sim) with seeded
    random scores; a pair that the file gives twice (55 of RUSSE's test.csv do) gets the same
    score both times."""

    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        first = {p: i for i, p in enumerate(dict.fromkeys(pairs))}
        self.unique = len(first)
        self.lines = len(pairs)
        self.index = [first[p] for p in pairs]
        text = io.StringIO()
        csv.writer(text, lineterminator="\n").writerows((a, b, "") for a, b in pairs)
        self.prefixes = text.getvalue().splitlines()  # "word1,word2," as csv writes them

    @classmethod
    def of(cls, path: Path) -> PairFiles:
        """The pairs of a gold file with a header line: comma-separated (RUSSE's test.csv) or
        tab-separated (the English word sets)."""
        with path.open(encoding="utf-8", newline="") as f:
            delimiter = "\t" if "\t" in f.readline() else ","
            f.seek(0)
            return cls([(a, b) for a, b, *_ in list(csv.reader(f, delimiter=delimiter))[1:]])

    def file(self, seed: int) -> bytes:
        rng = np.random.default_rng(seed)
        scores = [repr(x) for x in rng.random(self.unique).round(6).tolist()]
        body = "\n".join(p + scores[i] for p, i in zip(self.prefixes, self.index, strict=True))
        return f"word1,word2,sim\n{body}\n".encode()

    def write(self, folder: Path, teams: int, uploads: int) -> None:
        """``team<i>-<k>.csv`` for every team and upload, each with its own seed."""
        folder.mkdir(parents=True, exist_ok=True)
        for i in range(teams):
            for k in range(uploads):
                (folder / f"team{i}-{k}.csv").write_bytes(self.file(i * uploads + k))


def campaign_text(runs: int, now: datetime, target: str = TARGET) -> str:
    return f"""name = "{CAMPAIGN}"
title = "Load test"
[[phase]]
name = "{PHASE}"
targets = ["{target}"]
opens = {(now - timedelta(hours=1)).isoformat()}
deadline = {(now + timedelta(days=1)).isoformat()}
runs = {runs}
max_bytes = 2_000_000
"""


@contextmanager
def server(folder: Path, db: str, scorers: int) -> Iterator[str]:
    """``simeval serve run --scorers N`` over ``db`` on 127.0.0.1 in its own process; yields
    its URL."""
    port = free_port()
    command = "from simeval.cli import main; main()"
    args = ["serve", "run", str(folder), "--host", "127.0.0.1", "--port", str(port)]
    args += ["--scorers", str(scorers), "--db", db]
    board = f"/api/campaigns/{CAMPAIGN}/phases/{PHASE}/leaderboard"
    with serving([sys.executable, "-c", command, *args], folder, port, board) as url:
        yield url


def client_address(team: int) -> str:
    """Team ``team``'s own loopback address: 127.0.0.2, 127.0.0.3, … (never 127.0.0.1)."""
    n = team + 2
    return f"127.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}"


class Teams:
    """The teams' clients, each from its own loopback address, registered on entering: an
    async context manager whose :meth:`send` uploads a file and times the answer."""

    def __init__(self, url: str, files: dict[str, list[Path]], target: str = TARGET) -> None:
        self.url, self.files, self.target = url, files, target
        self.sent = {path: path.read_bytes() for paths in files.values() for path in paths}
        self.tokens: dict[str, str] = {}
        self.clients: dict[str, Any] = {}
        self._stack = contextlib.AsyncExitStack()

    async def __aenter__(self) -> Teams:
        import httpx

        for i, team in enumerate(self.files):
            transport = httpx.AsyncHTTPTransport(local_address=client_address(i), limits=limits())
            client = httpx.AsyncClient(
                base_url=self.url, transport=transport, timeout=REQUEST_SECONDS
            )
            self.clients[team] = await self._stack.enter_async_context(client)
        tokens = await asyncio.gather(*map(self._register, self.files))
        self.tokens = dict(zip(self.files, tokens, strict=True))
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stack.aclose()

    async def _register(self, team: str) -> str:
        r = await self.clients[team].post(f"/api/campaigns/{CAMPAIGN}/teams", json={"team": team})
        r.raise_for_status()
        return r.json()["token"]

    async def send(self, team: str, path: Path) -> Answer:
        """Upload ``path`` as ``team``: the answer, timed from sending to its end."""
        import httpx

        began = time.perf_counter()
        sha = hashlib.sha256(self.sent[path]).hexdigest()
        try:
            r = await self.clients[team].post(
                f"/api/phases/{PHASE}/submissions",
                params={"target": self.target, "filename": path.name},
                content=self.sent[path],
                headers={"authorization": f"Bearer {self.tokens[team]}"},
            )
        except httpx.TransportError as exc:  # not sent again: it may have been stored
            seconds = time.perf_counter() - began
            return Answer(team, path.name, sha, NO_ANSWER, seconds, error=type(exc).__name__)
        seconds = time.perf_counter() - began
        answer = Answer(team, path.name, sha, r.status_code, seconds)
        if r.status_code == 201:
            answer.id, answer.run = r.json()["id"], r.json()["run"]
        return answer


async def load(url: str, files: dict[str, list[Path]]) -> tuple[list[Answer], float]:
    """Every team registers (from its own address); then every upload is sent at once. The
    answers, and the seconds from the first upload sent to the last answer."""
    async with Teams(url, files) as teams:
        began = time.perf_counter()
        sent = (teams.send(t, p) for t, paths in files.items() for p in paths)
        answers = await asyncio.gather(*sent)
        return list(answers), time.perf_counter() - began


def offline(paths: list[Path], name: str = TARGET) -> tuple[float, dict[str, dict[str, float]]]:
    """Seconds to score ``paths`` with :func:`simeval.api.score` one after another in this
    process (the target loaded once, as the server does), and each file's main scores by
    benchmark."""
    from simeval.api import load_target, score

    began = time.perf_counter()
    target = load_target(name)
    scores = {p.name: {r.benchmark: r.score for r in score(target, p)} for p in paths}
    return time.perf_counter() - began, scores


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check_answers(answers: list[Answer], runs: int, uploads: int) -> list[str]:
    """Every answer 201 or 409; each team exactly min(runs, uploads) 201s."""
    problems = [
        f"{a.file}: " + (f"no answer ({a.error})" if a.status == NO_ANSWER else f"HTTP {a.status}")
        for a in answers
        if a.status not in (201, 409)
    ]
    accepted = Counter(a.team for a in answers if a.status == 201)
    expected = min(runs, uploads)
    for team in sorted({a.team for a in answers}):
        if accepted[team] != expected:
            problems.append(f"{team}: {accepted[team]} uploads scored, expected {expected}")
    return problems


def check_stored(
    answers: list[Answer], db: str, files: Path, runs: int, ignore: str | None = None
) -> list[str]:
    """Every 201 has exactly one row, with the sent file's sha256, its team and run; every row
    one stored file with that sha256; nothing else stored; runs 1…R per team. ``ignore``: the
    rows of teams whose names start with it (written without an upload) are left out."""
    from sqlalchemy import select

    from simeval.serve.db import Database
    from simeval.serve.db.models import Phase, Submission, Team

    database = Database(db)
    try:
        with database.session() as s:
            rows = s.execute(
                select(
                    Submission.id, Team.name, Submission.run, Submission.status, Submission.sha256
                )
                .join(Team, Submission.team_id == Team.id)
                .join(Phase, Submission.phase_id == Phase.id)
                .where(Phase.name == PHASE)
            ).all()
    finally:
        database.dispose()
    left_out = {r.id for r in rows if ignore is not None and r.name.startswith(ignore)}
    rows = [r for r in rows if r.id not in left_out]
    problems = []
    by_id = {r.id: r for r in rows}
    accepted = [a for a in answers if a.status == 201]
    if len(by_id) != len(rows) or len({a.id for a in accepted}) != len(accepted):
        problems.append("a submission id appears twice")
    for a in accepted:
        row = by_id.get(a.id or "")
        if row is None:
            problems.append(f"{a.file}: answered 201 ({a.id}) but no row: lost")
        elif (row.name, row.run, row.status, row.sha256) != (a.team, a.run, "scored", a.sha256):
            problems.append(f"{a.file}: its row {tuple(row)} is not what was answered")
    extra = set(by_id) - {a.id for a in accepted}
    problems += [f"row {x} was never answered 201" for x in sorted(extra)]
    for team in sorted({a.team for a in answers}):
        got = sorted(r.run for r in rows if r.name == team)
        if got != list(range(1, len(got) + 1)) or len(got) > runs:
            problems.append(f"{team}: runs {got}")
    stored = {p.name for p in (files / "submissions").iterdir()} - left_out
    if stored != set(by_id):
        problems.append(f"{len(stored)} stored folders for {len(by_id)} rows")
    for row in rows:
        path = files / "submissions" / row.id / "upload"
        if not path.is_file() or sha256_of(path) != row.sha256:
            problems.append(f"{row.id}: the stored file is missing or its sha256 differs")
    if any((files / "tmp").iterdir()):
        problems.append("unfinished uploads left in tmp/")
    return problems


def check_board(
    board: dict[str, Any],
    answers: list[Answer],
    scores: dict[str, dict[str, float]],
    target: str = TARGET,
) -> tuple[list[str], int]:
    """Every cell of the leaderboard equals offline scoring of the file of that team's run;
    the ranks are competition ranks of the offline sums. The problems and the cells checked."""
    columns = board["columns"]
    file_of = {f"{a.team} run {a.run}": a.file for a in answers if a.status == 201}
    problems, cells = [], 0
    if len(board["rows"]) != len(file_of):
        problems.append(f"{len(board['rows'])} leaderboard rows for {len(file_of)} scored runs")
    sums = sorted(scores[f][target] for f in file_of.values())
    for row in board["rows"]:
        system = row[columns.index("system")]
        if system not in file_of:
            problems.append(f"leaderboard row {system!r}: no such scored run")
            continue
        offline_scores = scores[file_of[system]]
        expected = {c: offline_scores[c] for c in columns if c in offline_scores}
        expected["sum"] = offline_scores[target]
        for column, value in expected.items():
            cell = row[columns.index(column)]
            cells += 1
            if cell is None or not math.isclose(cell, value, rel_tol=0, abs_tol=TOLERANCE):
                problems.append(f"{system} {column}: server {cell}, offline {value}")
        cells += 1
        ahead = len(sums) - bisect.bisect_right(sums, expected["sum"] + TOLERANCE)
        if row[columns.index("rank")] != 1 + ahead:
            problems.append(f"{system}: rank {row[0]}, by the offline sums {1 + ahead}")
    # a suite's members (russe-hj, russe-rt, …), or the benchmark itself
    members = ({b for s in scores.values() for b in s} - {target}) or {target}
    if sorted(columns) != sorted(["rank", "system", "sum", *members]):
        problems.append(f"leaderboard columns {columns}")
    return problems, cells


@dataclass
class Report:
    """One load run: what was sent, what came back, the timings and the failed checks."""

    dialect: str
    scorers: int
    teams: int
    uploads: int
    runs: int
    answers: list[Answer]
    seconds: float  # first upload sent to last answer
    offline_seconds: float
    problems: list[str]
    cells: int

    @property
    def scored(self) -> list[Answer]:
        return [a for a in self.answers if a.status == 201]

    def lines(self, file_bytes: int) -> list[str]:
        scored, refused = len(self.scored), sum(a.status == 409 for a in self.answers)
        per_minute = scored / self.seconds * 60
        offline_per_minute = scored / self.offline_seconds * 60
        p50, p95 = np.percentile([a.seconds for a in self.scored], [50, 95])
        return [
            f"server: simeval serve run --scorers {self.scorers} on 127.0.0.1, {self.dialect}",
            f"load: {self.teams} teams x {self.uploads} uploads at once, RUSSE size "
            f"({file_bytes:,} bytes), {self.runs} runs allowed: {scored} scored (201), "
            f"{refused} refused (409) in {self.seconds:.1f} s",
            f"throughput: {per_minute:.1f} uploads scored per minute",
            f"latency of a scored upload: p50 {p50:.2f} s, p95 {p95:.2f} s",
            f"offline simeval.api.score, one process, the same {scored} files: "
            f"{self.offline_seconds:.1f} s, {offline_per_minute:.1f} per minute",
            f"ratio, server throughput / offline score throughput: "
            f"{per_minute / offline_per_minute:.2f}",
            f"checks: {scored} rows for {scored} answers of 201, none lost or duplicated, stored "
            f"sha256 equal; {min(self.runs, self.uploads)} runs per team; {self.cells} "
            "leaderboard cells equal "
            f"offline score (abs {TOLERANCE:g}): "
            + ("ok" if not self.problems else f"{len(self.problems)} FAILED"),
        ]


def dialect(db: str) -> str:
    return db.split(":", 1)[0].split("+", 1)[0]


def run(
    folder: Path, teams: int, uploads: int, runs: int, db: str | None = None, scorers: int = 0
) -> Report:
    """The load run in ``folder``: ``sent/`` (the files), ``server/`` (the server's folder,
    with its SQLite database unless ``db``), ``answers.jsonl`` (one line per upload)."""
    from simeval.data.store import DataStore
    from simeval.serve.db import Database, default_url
    from simeval.serve.service.campaigns import Targets, create_campaign

    home = folder / "server"
    home.mkdir(parents=True)
    db = db or default_url(home)
    sent = folder / "sent"
    PairFiles.of(DataStore.from_env().path("russe/test.csv")).write(sent, teams, uploads)
    (home / "campaign.toml").write_text(campaign_text(runs, datetime.now(UTC)), "utf-8")
    database = Database(db)
    create_campaign(database, home / "campaign.toml", datetime.now(UTC), Targets())
    database.dispose()
    files = {f"team{i}": [sent / f"team{i}-{k}.csv" for k in range(uploads)] for i in range(teams)}
    with server(home, db, scorers) as url:
        answers, seconds = asyncio.run(load(url, files))
        board = httpx_get(f"{url}/api/campaigns/{CAMPAIGN}/phases/{PHASE}/leaderboard")
    with (folder / "answers.jsonl").open("w", encoding="utf-8") as f:
        f.writelines(json.dumps(asdict(a)) + "\n" for a in answers)
    problems = check_answers(answers, runs, uploads)
    problems += check_stored(answers, db, home / "files", runs)
    scored = sorted({sent / a.file for a in answers if a.status == 201})
    offline_seconds, scores = offline(scored)
    board_problems, cells = check_board(board, answers, scores)
    problems += board_problems
    timing = (seconds, offline_seconds)
    return Report(dialect(db), scorers, teams, uploads, runs, answers, *timing, problems, cells)


def httpx_get(url: str) -> Any:
    import httpx

    r = httpx.get(url, timeout=REQUEST_SECONDS)
    r.raise_for_status()
    return r.json()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--teams", type=int, default=50)
    parser.add_argument("--uploads", type=int, default=5, help="files each team sends at once")
    parser.add_argument("--runs", type=int, default=3, help="scored runs a team may have")
    parser.add_argument(
        "--db", help="an empty database's URL (default: SQLite in the server's folder)"
    )
    parser.add_argument("--keep", type=Path, help="a new folder to keep the run in")
    parser.add_argument(
        "--scorers", type=int, default=2, help="scoring processes of the server (0: its own)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp) / "run"
        report = run(folder, args.teams, args.uploads, args.runs, args.db, args.scorers)
        size = (folder / "sent" / "team0-0.csv").stat().st_size
    finish(report.lines(size), report.problems)


def finish(lines: list[str], problems: list[str]) -> None:
    """Print the figures and the first 50 failed checks; exit 1 when a check failed."""
    for line in lines:
        print(line)
    for problem in problems[:50]:
        print(f"FAILED: {problem}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
