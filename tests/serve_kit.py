"""What the shared-task server's tests share: a campaign file, a clock the tests move, a
server (app, database, folder) over any database URL, uploads through the API, submission
files with seeded scores, and a live uvicorn server on loopback for browsers and load."""

from __future__ import annotations

import contextlib
import csv
import io
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

OPENS = datetime(2025, 1, 1, tzinfo=UTC)
TRIAL_END = datetime(2025, 2, 1, tzinfo=UTC)
TEST_OPENS = datetime(2025, 2, 2, tzinfo=UTC)
TEST_END = datetime(2025, 2, 10, tzinfo=UTC)


def phase_toml(
    name: str,
    targets: list[str],
    opens: datetime = OPENS,
    deadline: datetime = TRIAL_END,
    runs: int = 2,
    max_bytes: int = 100_000,
    hidden: bool | None = None,
) -> str:
    """One ``[[phase]]`` table of a campaign file."""
    lines = [
        "[[phase]]",
        f'name = "{name}"',
        "targets = [" + ", ".join(f'"{t}"' for t in targets) + "]",
        f"opens = {opens.isoformat()}",
        f"deadline = {deadline.isoformat()}",
        f"runs = {runs}",
        f"max_bytes = {max_bytes:_}",
    ]
    if hidden is not None:
        lines.append(f"hidden = {str(hidden).lower()}")
    return "\n".join(lines) + "\n"


def campaign_toml(name: str, *phases: str, title: str | None = None) -> str:
    """A campaign file: its name, title and phases (:func:`phase_toml`)."""
    head = f'\nname = "{name}"\n' + (f'title = "{title}"\n' if title else "")
    return head + "".join("\n" + p for p in phases)


CAMPAIGN = campaign_toml(
    "lex25",
    phase_toml("trial", ["mc30", "rg65", "sts12-msrvid"]),
    phase_toml("test", ["yp130"], TEST_OPENS, TEST_END, runs=3, max_bytes=10_000),
    title="Word similarity 2025",
)
BAD_LINE = 4  # the line of bad_file() that holds a word instead of a score; the header is 1


class Clock:
    """The server's clock, moved by the tests."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@dataclass
class Server:
    """A server over ``url`` with its files in ``folder``, campaign :data:`CAMPAIGN` made."""

    url: str
    folder: Path
    db: Any
    app: Any
    client: Any

    @property
    def files(self) -> Path:
        return self.folder / "files"


def make_server(
    url: str,
    folder: Path,
    clock: Clock,
    campaign: str = CAMPAIGN,
    rate_limits: dict | None = None,
    **options: Any,
) -> Server:
    """``options``: more of :func:`simeval.serve.app.create_app`'s (``scorers=2``, ...)."""
    from fastapi.testclient import TestClient

    from simeval.serve.app import create_app
    from simeval.serve.db import Database
    from simeval.serve.service.campaigns import Targets, create_campaign

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "campaign.toml"
    path.write_text(campaign, encoding="utf-8")
    db = Database(url)
    create_campaign(db, path, OPENS, Targets())
    app = create_app(url, folder / "files", clock=clock, rate_limits=rate_limits or {}, **options)
    return Server(url, folder, db, app, TestClient(app))


def register(client: Any, team: str, campaign: str = "lex25") -> str:
    r = client.post(f"/api/campaigns/{campaign}/teams", json={"team": team})
    assert r.status_code == 201, r.text
    return r.json()["token"]


def upload(client: Any, token: str, data: bytes, phase: str = "trial", **params: str) -> Any:
    return client.post(
        f"/api/phases/{phase}/submissions",
        params={"filename": "run.csv", **params},
        content=data,
        headers={"authorization": f"Bearer {token}"},
    )


def mine(client: Any, token: str) -> list[dict]:
    return client.get("/api/submissions", headers={"authorization": f"Bearer {token}"}).json()


def gold(path: Path) -> list[tuple[str, str, float]]:
    """word1 TAB word2 TAB score lines (the English word sets)."""
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [(a, b, float(g)) for a, b, g in rows]


def pair_file(pairs: list[tuple[str, str, float]], seed: int) -> tuple[bytes, list[float]]:
    """A word1,word2,sim submission with seeded random scores."""
    scores = np.random.default_rng(seed).random(len(pairs)).round(6).tolist()
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(["word1", "word2", "sim"])
    writer.writerows((a, b, s) for (a, b, _), s in zip(pairs, scores, strict=True))
    return text.getvalue().encode(), scores


def perturbed(pairs: list[tuple[str, str, float]], sd: float, seed: int) -> bytes:
    """A word1,word2,sim file: the gold plus seeded normal noise of ``sd``."""
    rng = np.random.default_rng(seed)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["word1", "word2", "sim"])
    writer.writerows((a, b, round(g + rng.normal(0, sd), 6)) for a, b, g in pairs)
    return out.getvalue().encode()


BOARD = "/api/campaigns/lex25/phases/trial/leaderboard"


def wait_for_tiers(client: Any, timeout: float = 120, path: str = BOARD) -> dict[str, Any]:
    """A leaderboard's JSON once its rank tiers are computed (in the server's background)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        board = client.get(path).json()
        if board["tiers"] is not None:
            return board
        time.sleep(0.2)
    raise AssertionError("the tiers were not computed in time")


def bad_file(pairs: list[tuple[str, str, float]]) -> bytes:
    """A pair file whose line :data:`BAD_LINE` has ``high`` for a score."""
    data, _ = pair_file(pairs, 0)
    lines = data.decode().splitlines()
    a, b, _ = lines[BAD_LINE - 1].split(",")
    lines[BAD_LINE - 1] = f"{a},{b},high"
    return ("\n".join(lines) + "\n").encode()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def live(app: Any, **config: Any) -> Iterator[str]:
    """``app`` served by uvicorn on 127.0.0.1 in a thread; yields its base URL."""
    import uvicorn

    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", **config)
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def stop(app: Any) -> None:
    """What the end of a server's process does to it (killed or not): its folder's lock and
    its database's are released, so another server may start on the folder or the database."""
    app.state.lock.release()
    app.state.db_lock.release()


def quarantined(files: Path) -> dict[str, list[str]]:
    """Each quarantine folder's LIST.txt, by the folder's name."""
    root = files / "quarantine"
    if not root.exists():
        return {}
    return {q.name: (q / "LIST.txt").read_text().split() for q in sorted(root.iterdir())}


def yp130_pairs(data_dir: Path) -> list[tuple[str, str, float]]:
    """YP-130's pairs and gold: the target of :data:`CAMPAIGN`'s hidden test phase (no
    benchmark may be in both a visible and a hidden phase, and mc30 is the trial's)."""
    return gold(data_dir / "wordsets_en" / "EN-YP-130.txt")


def page_csrf(client: Any, path: str = "/campaigns/lex25") -> str:
    """The CSRF value of the forms of a page, as a browser gets it (the page sets the
    browser's cookie; the value is bound to that cookie and the session)."""
    import re

    found = re.search(r'name="csrf" value="([^"]+)"', client.get(path).text)
    assert found, path
    return found.group(1)


def csrf_value(app: Any, browser: str, session: str | None = None) -> str:
    """The CSRF value the server ``app`` expects with the browser cookie ``browser`` and the
    session cookie ``session``."""
    return app.state.csrf.value(browser, session)


def through(monkeypatch: Any, client: Any) -> None:
    """Send ``simeval register``/``submit``'s requests (:mod:`simeval.serve.client`) for
    ``http://server`` to a test client instead of the network."""
    import simeval.serve.client as client_module

    def via_test_client(method: str, url: str, **kwargs: Any) -> Any:
        return client.request(method, url.removeprefix("http://server"), **kwargs)

    monkeypatch.setattr(client_module, "_http", via_test_client)


def post_scope(
    path: str, query: str, headers: dict[str, str], address: str = "127.0.0.1"
) -> dict[str, Any]:
    """The ASGI scope of a POST from ``address`` (tests that drive the app's receive and send
    themselves: half-sent and stalled uploads)."""
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [(k.lower().encode(), v.encode("latin-1")) for k, v in headers.items()],
        "client": (address, 50000),
        "server": ("127.0.0.1", 80),
    }


def text_score(pair: tuple[str, ...], scale: float = 5.0) -> float:
    """A made-up score of a sentence pair that depends on its text alone (six decimals): an
    STS file built from a handed-out input in any order scores each pair as a file built
    from the published input does, with no need to know the order."""
    import hashlib

    digest = hashlib.sha256("\t".join(pair).encode("utf-8")).digest()
    return round(int.from_bytes(digest[:6], "big") / 2**48 * scale, 6)


def sts_lines(text: str) -> list[tuple[str, str]]:
    """The sentence pairs of an STS input file, line by line (as a participant reads it)."""
    return [tuple(line.split("\t")[:2]) for line in text.splitlines()]  # type: ignore[misc]


def sts_run(input_text: str) -> bytes:
    """An STS output for a handed-out input: :func:`text_score` of each line's pair."""
    return "".join(f"{text_score(p):.6f}\n" for p in sts_lines(input_text)).encode()


def sts_handout(client: Any, campaign: str, phase: str, target: str, published: Path) -> Any:
    """A phase's STS input as handed out beside the published input file ``published``:
    ``(handed pairs, published pairs, place)``, ``place[k]`` the published line (from 0) of
    handed line ``k`` when its sentence pair is on one published line only (else None),
    matched by the sentences alone."""
    from collections import Counter

    handed = sts_lines(client.get(f"/campaigns/{campaign}/phases/{phase}/inputs/{target}").text)
    shown = sts_lines(published.read_text(encoding="utf-8"))
    once = {p for p, c in Counter(shown).items() if c == 1}
    where = {p: i for i, p in enumerate(shown)}
    return handed, shown, [where[p] if p in once else None for p in handed]
