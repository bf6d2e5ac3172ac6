"""Throughput of the shared-task server, issue 32's scenario: ``--teams`` teams (default 20)
each upload continuously (send a file, wait for the answer, send the next) for ``--seconds``
(default 30), while two more clients read the phase's public leaderboard as fast as it
answers, one its JSON and one its page (HTML), over ``--stored`` runs already in the database
(default 10,000).

``--size russe`` sends RUSSE-size files (test.csv's 14,835 lines), ``--size simlex`` files
the size of a typical word-similarity set (SimLex-999's 999 lines); each with seeded random
scores, ``--files`` different files per team, sent in turn. The server is a real
``simeval serve run --scorers N`` (default 2, this machine's cores) in its own process on
127.0.0.1, SQLite in its folder or ``--db URL``, each team on its own loopback address. The
per-address upload limit is off (``--uploads-per-minute 0``): its default, 20 a minute, would
hold 20 teams to 6.7 uploads a second whatever the server can do; so is the read limit
(``--reads-per-minute 0``), which would hold the reader to 2 a second.

The stored runs are written straight into the database before the server starts (copies of
one file's records as the server scores them, on teams ``stored…``), as
``benchmarks/leaderboard_speed.py`` does: the board reads records, never files.

Prints uploads scored per second, the latency of an upload (p50, p95: from sending it to its
answer), the leaderboard's latency under load (p50, p95; and alone, before the load), its
JSON's and its page's, each beside its goal where it has one, and the
ratio to the named alternative measured in the same run: offline :func:`simeval.api.score`
of the same files one after another in this process (the target loaded once), per file. Then
checks, and exits 1 when one fails: every upload answered 201; every 201 has one row with the
sent file's sha256 and its stored file, runs 1…n per team; the leaderboard has every stored
and every new run, and each of its cells equals offline scoring (abs 1e-12), each rank the
rank of the offline sums.

Run: SIMEVAL_DATA_DIR=../shared/data python benchmarks/serve_throughput.py --size russe
     SIMEVAL_DATA_DIR=../shared/data python benchmarks/serve_throughput.py --size simlex
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import math
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from _server import free_port, limits, serving
from serve_load import (
    CAMPAIGN,
    PHASE,
    REQUEST_SECONDS,
    Answer,
    PairFiles,
    Teams,
    campaign_text,
    check_board,
    check_stored,
    dialect,
    finish,
    httpx_get,
    offline,
)

SIZES = {  # --size: the target and the file whose pairs the uploads score
    "russe": ("russe", "russe/test.csv"),
    "simlex": ("simlex999", "simlex999/SimLex-999.txt"),
}
STORED = "stored"  # the name of the teams that hold the runs written before the server starts
RUNS = 1_000_000  # the phase's run limit: never reached
FRESH_SECONDS = 60  # the board shows every run within this long after the last upload
BOARD = f"/api/campaigns/{CAMPAIGN}/phases/{PHASE}/leaderboard"
PAGE = f"/campaigns/{CAMPAIGN}/phases/{PHASE}"  # the same board as a web page


@dataclass
class Load:
    """What the clients saw: every upload's answer, the leaderboard's latencies during the
    load and alone before it, and the seconds from the first upload sent to the last answer."""

    answers: list[Answer]
    board_seconds: list[float]
    quiet_board_seconds: list[float]
    seconds: float
    cpu: tuple[float, float] = (math.nan, math.nan)  # CPU seconds: server process, scorers
    page_seconds: list[float] = field(default_factory=list)  # the page (HTML), under load
    quiet_page_seconds: list[float] = field(default_factory=list)  # ... and alone


def cpu_seconds(pid: int) -> tuple[float, float]:
    """CPU seconds used so far by the process ``pid`` and by its child processes (the scoring
    processes); NaN without psutil."""
    try:
        import psutil
    except ImportError:  # pragma: no cover
        return math.nan, math.nan
    server = psutil.Process(pid)
    times = server.cpu_times()
    children = 0.0
    for child in server.children(recursive=True):
        with contextlib.suppress(psutil.Error):
            t = child.cpu_times()
            children += t.user + t.system
    return times.user + times.system, children


def seed_runs(db: str, home: Path, target: str, template: Path, stored: int) -> None:
    """``stored`` scored runs of ``template`` in the phase of the campaign in ``db``, 5 runs a
    team, written straight into the database: the first is stored and scored as the server
    does it (in ``home/files``), the others name its records."""
    from simeval.serve.db import Database
    from simeval.serve.db.models import SCORED, Submission, Team, naive
    from simeval.serve.db.storage import UPLOAD, Storage
    from simeval.serve.service.results import results_file
    from simeval.serve.service.scoring import Job, score_upload

    storage = Storage(home / "files")
    first = f"{0:032x}"
    work = storage.folder(first)
    work.mkdir()
    data = template.read_bytes()
    (work / UPLOAD).write_bytes(data)
    sha = hashlib.sha256(data).hexdigest()
    answer = score_upload(Job((), target, str(work), sha, template.name, len(data)))
    assert answer.results, answer.error
    stored_file = results_file(storage, first)
    now = naive(datetime.now(UTC))
    database = Database(db)
    try:
        with database.session() as s:
            teams = []
            for t in range((stored + 4) // 5):
                name = f"{STORED}{t:05d}"
                team = Team(campaign_id=1, name=name, name_key=name, token_key=f"k{t:011d}",
                            token_salt="00", token_hash="00", created=now)  # fmt: skip
                s.add(team)
                teams.append(team)
            s.flush()
            for i in range(stored):
                s.add(Submission(id=f"{i:032x}", team_id=teams[i // 5].id, phase_id=1,
                                 target=target, run=i % 5 + 1, status=SCORED,
                                 client_name=template.name, sha256=sha, size=len(data),
                                 received=now, results=answer.results,
                                 results_file=stored_file))  # fmt: skip
    finally:
        database.dispose()


def fresh_board(url: str, rows: int) -> Any:
    """The leaderboard once it shows ``rows`` runs: a board of thousands of runs is answered
    from its last build while the next is built (:mod:`simeval.serve.service.board_cache`)."""
    deadline = time.monotonic() + FRESH_SECONDS
    while True:
        board = httpx_get(url + BOARD)
        if len(board["rows"]) >= rows or time.monotonic() > deadline:
            return board
        time.sleep(0.2)


def server_argv(folder: Path, db: str, scorers: int, port: int) -> list[str]:
    args = ["serve", "run", str(folder), "--host", "127.0.0.1", "--port", str(port)]
    args += ["--scorers", str(scorers), "--db", db, "--uploads-per-minute", "0"]
    args += ["--reads-per-minute", "0"]  # the board readers read as fast as it answers
    return [sys.executable, "-c", "from simeval.cli import main; main()", *args]


async def load(
    url: str, files: dict[str, list[Path]], target: str, seconds: float, warm: int, pid: int
) -> tuple[Load, int]:
    """Every team registers (from its own address) and ``warm`` of them send one upload (the
    scoring processes load the target: not timed); the leaderboard is read alone for a few
    seconds; then every team uploads continuously for ``seconds`` while the leaderboard is
    read. The load, and how many uploads were the warm-up's (the first ones)."""
    import httpx

    async with (
        Teams(url, files, target) as teams,
        httpx.AsyncClient(base_url=url, timeout=REQUEST_SECONDS, limits=limits()) as reader,
    ):
        send = teams.send

        async def read_board(until: float, path: str = BOARD) -> list[float]:
            out = []
            while time.perf_counter() < until:
                began = time.perf_counter()
                r = await reader.get(path)
                r.raise_for_status()
                out.append(time.perf_counter() - began)
            return out

        warmed = list(await asyncio.gather(*(send(t, files[t][0]) for t in list(files)[:warm])))
        quiet = await read_board(time.perf_counter() + 3)
        quiet_page = await read_board(time.perf_counter() + 3, PAGE)
        end = time.perf_counter() + seconds

        async def team_loop(team: str) -> list[Answer]:
            out, k = [], 1 if team in list(files)[:warm] else 0
            while time.perf_counter() < end:
                out.append(await send(team, files[team][k % len(files[team])]))
                k += 1
            return out

        began, cpu = time.perf_counter(), cpu_seconds(pid)
        board_task = asyncio.create_task(read_board(end))
        page_task = asyncio.create_task(read_board(end, PAGE))
        loops = await asyncio.gather(*map(team_loop, files))
        took = time.perf_counter() - began
        used = tuple(b - a for a, b in zip(cpu, cpu_seconds(pid), strict=True))
        board_seconds, page_seconds = await board_task, await page_task
    timed = [a for answers in loops for a in answers]
    load = Load(warmed + timed, board_seconds, quiet, took, used, page_seconds, quiet_page)
    return load, len(warmed)


@dataclass
class Report:
    """One run: the load, the offline alternative and the failed checks."""

    size: str
    lines_per_file: int
    dialect: str
    scorers: int
    teams: int
    stored: int
    load: Load
    warm: int
    offline_seconds: float  # per file
    problems: list[str]
    cells: int

    def lines(self) -> list[str]:
        timed = self.load.answers[self.warm :]
        scored = [a for a in timed if a.status == 201]
        rate = len(scored) / self.load.seconds
        p50, p95 = np.percentile([a.seconds for a in scored], [50, 95]) if scored else (0, 0)
        b50, b95 = np.percentile(self.load.board_seconds, [50, 95]) * 1000
        q50, q95 = np.percentile(self.load.quiet_board_seconds, [50, 95]) * 1000
        h50, h95 = np.percentile(self.load.page_seconds, [50, 95]) * 1000
        k50, k95 = np.percentile(self.load.quiet_page_seconds, [50, 95]) * 1000
        offline_rate = 1 / self.offline_seconds
        n = max(len(scored), 1)
        return [
            f"server: simeval serve run --scorers {self.scorers}, 127.0.0.1, {self.dialect}",
            f"stored before: {self.stored:,} runs; {self.size} size, "
            f"{self.lines_per_file:,} lines a file",
            f"load: {self.teams} teams uploading continuously for {self.load.seconds:.1f} s",
            f"uploads scored: {len(scored)}, {rate:.1f} per second (goal >= 20)",
            f"upload latency: p50 {p50:.2f} s, p95 {p95:.2f} s (goal p95 <= 2 s)",
            f"leaderboard under load: p50 {b50:.1f} ms, p95 {b95:.1f} ms "
            f"({len(self.load.board_seconds)} reads; goal <= 50 ms)",
            f"leaderboard alone: p50 {q50:.1f} ms, p95 {q95:.1f} ms",
            f"leaderboard page (HTML) under load: p50 {h50:.1f} ms, p95 {h95:.1f} ms "
            f"({len(self.load.page_seconds)} reads)",
            f"leaderboard page (HTML) alone: p50 {k50:.1f} ms, p95 {k95:.1f} ms",
            f"CPU a scored upload: server process {self.load.cpu[0] / n * 1000:.0f} ms, "
            f"scorers {self.load.cpu[1] / n * 1000:.0f} ms",
            f"offline simeval.api.score, one process: {self.offline_seconds * 1000:.0f} ms "
            f"a file, {offline_rate:.1f}/s",
            f"ratio, server uploads/s / offline files/s: {rate / offline_rate:.2f}",
            "checks: every upload 201, one row each with its sha256 and stored file;",
            f"{self.cells:,} leaderboard cells of {self.stored + len(scored) + self.warm:,} "
            f"runs equal offline score (abs 1e-12): "
            + ("ok" if not self.problems else f"{len(self.problems)} FAILED"),
        ]


def run(
    folder: Path,
    size: str,
    teams: int,
    seconds: float,
    stored: int,
    per_team: int,
    db: str | None = None,
    scorers: int = 2,
) -> Report:
    """The run in ``folder``: ``sent/`` (the files), ``server/`` (the server's folder, with
    its SQLite database unless ``db``), ``answers.jsonl`` (one line per upload)."""
    from simeval.data.store import DataStore
    from simeval.serve.db import Database, default_url
    from simeval.serve.service.campaigns import Targets, create_campaign

    target, source = SIZES[size]
    home = folder / "server"
    home.mkdir(parents=True)
    db = db or default_url(home)
    sent = folder / "sent"
    pairs = PairFiles.of(DataStore.from_env().path(source))
    pairs.write(sent, teams, per_team)
    template = folder / "template.csv"
    template.write_bytes(pairs.file(teams * per_team))
    (home / "campaign.toml").write_text(campaign_text(RUNS, datetime.now(UTC), target), "utf-8")
    database = Database(db)
    create_campaign(database, home / "campaign.toml", datetime.now(UTC), Targets())
    database.dispose()
    seed_runs(db, home, target, template, stored)
    files = {f"team{i}": [sent / f"team{i}-{k}.csv" for k in range(per_team)] for i in range(teams)}
    port, pids = free_port(), []
    with serving(server_argv(home, db, scorers, port), home, port, BOARD, pids.append) as url:
        warm = min(scorers, teams) or 1
        result, warm = asyncio.run(load(url, files, target, seconds, warm, pids[0]))
        answers = result.answers
        board = fresh_board(url, stored + sum(a.status == 201 for a in answers))
    with (folder / "answers.jsonl").open("w", encoding="utf-8") as f:
        f.writelines(json.dumps(asdict(a)) + "\n" for a in answers)
    problems = [f"{a.file}: HTTP {a.status}" for a in answers if a.status != 201]
    problems += check_stored(answers, db, home / "files", RUNS, ignore=STORED)
    used = sorted({sent / a.file for a in answers if a.status == 201})
    offline_seconds, scores = offline([*used, template], target)
    stored_answers = [
        Answer(f"{STORED}{i // 5:05d}", template.name, "", 201, 0, run=i % 5 + 1)
        for i in range(stored)
    ]
    more, cells = check_board(board, answers + stored_answers, scores, target)
    return Report(
        size,
        pairs.lines,
        dialect(db),
        scorers,
        teams,
        stored,
        result,
        warm,
        offline_seconds / (len(used) + 1),
        problems + more,
        cells,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", choices=sorted(SIZES), default="russe")
    parser.add_argument("--teams", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=30, help="how long the teams upload")
    parser.add_argument("--stored", type=int, default=10_000, help="runs stored before")
    parser.add_argument("--files", type=int, default=3, help="different files per team")
    parser.add_argument("--scorers", type=int, default=2, help="scoring processes (0: its own)")
    parser.add_argument("--db", help="an empty database's URL (default: SQLite in its folder)")
    parser.add_argument("--keep", type=Path, help="a new folder to keep the run in")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp) / "run"
        report = run(folder, args.size, args.teams, args.seconds, args.stored, args.files,
                     args.db, args.scorers)  # fmt: skip
    finish(report.lines(), report.problems)


if __name__ == "__main__":
    main()
