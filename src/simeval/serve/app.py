"""The server's app: the start (the folder's and the database's locks, the pair's stamps,
quarantine, targets loaded), the security middleware, and the routers of
:mod:`simeval.serve.routers` (HTTP only) over the service of :mod:`simeval.serve.service`
(the rules) and the templates of :mod:`simeval.serve.views`.

Every response, a 500 included (:class:`SecurityHeaders` wraps the whole app), carries a
Content-Security-Policy (the page's one script and one style by hash, no framing),
``X-Content-Type-Options: nosniff`` and ``X-Frame-Options``; no redirect is built
from the Host header (no trailing-slash redirects). ``/openapi.json`` and the docs pages are
not served: the API is :mod:`simeval.serve.routers.api`'s docstring, and ``simeval submit``
its client.
"""

from __future__ import annotations

import base64
import hashlib
import logging
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from sqlalchemy import select

from simeval.data.atomic import private_dir
from simeval.errors import InputError, SimevalError
from simeval.serve.db.models import Submission
from simeval.serve.db.pairing import DatabaseLock, FolderLock
from simeval.serve.routers import api, console, errors, organiser_admin
from simeval.serve.routers import pages as page_routes
from simeval.serve.routers.web import (
    KEEP_REJECTED,
    KEEP_REJECTED_DAYS,
    RATE_LIMITS,
    REJECTED_PER_DAY,
    SESSION_COOKIE,
    UPLOAD_SECONDS,
    Web,
)
from simeval.serve.service.client_wheel import FOLDER as CLIENT_FOLDER
from simeval.serve.service.client_wheel import ClientWheel
from simeval.serve.service.results import open_server
from simeval.serve.service.security import Csrf, RateLimit, RateLimiter, TrustedProxies
from simeval.serve.service.submit import Clock, Service
from simeval.serve.views import pages

__all__ = ["SESSION_COOKIE", "create_app", "load_targets", "run"]

log = logging.getLogger("simeval.serve")
ROUTERS = (api.router, page_routes.router, console.router, organiser_admin.router)


def _sha256_source(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


CSP = (
    f"default-src 'none'; script-src {_sha256_source(pages.SCRIPT)}; "
    f"style-src {_sha256_source(pages.STYLE)}; img-src 'self'; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
]


class Guard:
    """ASGI middleware: the client address (``scope["client"]``, and the scheme from
    ``X-Forwarded-Proto``) from a trusted proxy's headers (:class:`.security.TrustedProxies`;
    nobody else's)."""

    def __init__(self, app: Any, proxies: TrustedProxies) -> None:
        self.app = app
        self.proxies = proxies

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        peer = scope.get("client")
        if scope["type"] == "http" and self.proxies and peer and self.proxies.trusted(peer[0]):
            forwarded = [
                v.decode("latin-1") for k, v in scope["headers"] if k == b"x-forwarded-for"
            ]
            proto = [v.decode("latin-1") for k, v in scope["headers"] if k == b"x-forwarded-proto"]
            scope = dict(scope, client=(self.proxies.client(peer[0], forwarded), 0))
            if proto and proto[-1].strip() in ("http", "https"):
                scope["scheme"] = proto[-1].strip()
        await self.app(scope, receive, send)


class SecurityHeaders:
    """ASGI middleware: :data:`SECURITY_HEADERS` on every response that lacks them. It wraps
    the whole app (:class:`Site`), outside Starlette's own error middleware, so the 500 of a
    bug carries them as every other answer does."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def secured(message: Any) -> None:
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in SECURITY_HEADERS if k not in names]
                message = dict(message, headers=[*message.get("headers", []), *extra])
            await send(message)

        await self.app(scope, receive, secured)


class Site(FastAPI):
    """The server's FastAPI app, its middleware stack inside :class:`SecurityHeaders`."""

    def build_middleware_stack(self) -> Any:
        return SecurityHeaders(super().build_middleware_stack())


def utc_now() -> datetime:
    return datetime.now(UTC)


def create_app(
    db_url: str,
    storage_dir: str | Path,
    clock: Clock = utc_now,
    rate_limits: dict[str, RateLimit] | None = None,
    scorers: int = 0,
    busy_timeout: float = 30,
    trust_proxy: Iterable[str] = (),
    rejected_per_day: int = REJECTED_PER_DAY,
    keep_rejected: tuple[int, float] = (KEEP_REJECTED, KEEP_REJECTED_DAYS),
    upload_seconds: float | None = UPLOAD_SECONDS,
    csrf_secret: bytes | None = None,
) -> FastAPI:
    """The server over the database at ``db_url`` (migrated to the newest schema) and the
    storage folder; ``clock`` gives the server's time (tests inject one); ``scorers``
    processes score the uploads (0: this process; :mod:`.service.scoring`). ``trust_proxy``: the
    proxies (addresses, networks) whose ``X-Forwarded-For`` names the client;
    ``rejected_per_day``: rejected uploads a team may send in 24 hours (0: no limit);
    ``keep_rejected``: (count, days) of a team's latest rejected uploads whose bytes are kept;
    ``upload_seconds``: the time to send a body; ``busy_timeout``: how long SQLite waits for
    a lock before the request answers 503.

    Starting takes the folder's lock and checks that the database and the folder are a pair
    (:mod:`.db.pairing`: refused with :class:`~simeval.serve.db.pairing.Busy` or
    :class:`~simeval.serve.db.pairing.Mismatch`); unfinished uploads and files without a row are
    then moved to quarantine, never deleted. It also takes the database's lock
    (:class:`~simeval.serve.db.pairing.DatabaseLock`: a second live server on the same database is
    refused, whatever its folder). Both locks are held until the app shuts down.
    Storage and database failures while serving answer 503 with ``Retry-After``."""
    lock, db_lock, service = start(db_url, storage_dir, clock, scorers, busy_timeout)
    db = service.db
    limiter = RateLimiter(rate_limits if rate_limits is not None else RATE_LIMITS)

    def shutdown() -> None:
        service.close()
        db.dispose()
        db_lock.release()
        lock.release()

    app = Site(
        title="simeval shared task",
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        on_shutdown=[shutdown],
    )
    app.state.lock = lock
    app.state.db_lock = db_lock
    app.state.service = service
    service.boards.on_built = lambda p, table, part: api.board_answer(service, p, table, part)
    app.state.db = db
    app.state.csrf = Csrf(csrf_secret)
    app.state.web = Web(
        service, clock, limiter, app.state.csrf, rejected_per_day, keep_rejected, upload_seconds,
        ClientWheel(service.storage.root / CLIENT_FOLDER),
    )  # fmt: skip
    app.router.redirect_slashes = False  # its redirects are built from the Host header
    app.add_middleware(Guard, proxies=TrustedProxies(trust_proxy))
    errors.add_handlers(app)
    for router in ROUTERS:
        app.include_router(router)
    return app


def start(
    db_url: str, storage_dir: str | Path, clock: Clock, scorers: int, busy_timeout: float
) -> tuple[FolderLock, DatabaseLock, Service]:
    """The folder's lock and the database's, taken, and the service over the checked pair
    (:func:`create_app`'s start); on any failure nothing stays held."""
    lock = FolderLock(storage_dir).acquire()  # one server per folder: before anything moves
    db_lock = DatabaseLock(db_url)
    try:
        db_lock.acquire()  # and one per database, whatever its folder
        db, storage = open_server(db_url, storage_dir, busy_timeout)
        with db.reading() as s:
            moved = storage.quarantine(s.scalars(select(Submission.id)).all())
    except BaseException:
        db_lock.release(forget=True)
        lock.release()
        raise
    if moved:
        log.warning(
            "quarantined %d upload(s) that no row names (an earlier run stopped mid-upload): "
            "moved under %s/quarantine, nothing deleted: %s",
            len(moved),
            storage.root,
            ", ".join(moved),
        )
    service = Service(db, storage, clock, scorers)
    try:
        load_targets(service)
    except BaseException:
        service.close()
        db.dispose()
        db_lock.release()
        lock.release()
        raise
    return lock, db_lock, service


def load_targets(service: Service) -> None:
    """Load every campaign's targets once, before serving: one that does not load (the data
    folder missing, a registry file moved) refuses the start, naming the campaign, the
    target and why, instead of failing each request that needs it. A server without any
    campaign yet (``serve init`` alone) starts, saying how to add one."""
    from simeval.serve.db.models import Campaign

    with service.db.reading() as s:
        found = [
            (c.name, list(c.registry_files or []), [t for p in c.phases for t in p.targets])
            for c in s.scalars(select(Campaign).order_by(Campaign.id))
        ]
    if not found:
        log.warning(
            "no campaign on this server yet: its pages are empty until `simeval serve "
            "campaign FOLDER FILE` adds one (it may run while the server does)"
        )
    for campaign, registry, names in found:
        for name in dict.fromkeys(names):
            try:
                service.targets.get(registry, name)
            except Exception as exc:
                raise SimevalError(
                    f"campaign {campaign}: target {name} does not load ({exc}); the server "
                    "does not start until every campaign's targets load"
                ) from exc


KEEP_ALIVE_SECONDS = 5  # an idle keep-alive connection is closed after this


def require_server(folder: Path, db_url: str | None) -> None:
    """Refuse to serve a folder that holds no server: no database URL given, no ``serve.db``
    in it and no stamp naming its database (a typo in the folder's name would serve an empty
    site). A server is made by ``simeval serve campaign FOLDER FILE`` (or ``serve init``); a
    stamped folder started without its database gets the stamp's message, which names it."""
    from simeval.serve.db import DB_FILE
    from simeval.serve.db.pairing import STAMP_FILE

    made = (folder / DB_FILE).is_file() or (folder / "files" / STAMP_FILE).is_file()
    if db_url is None and not made:
        raise InputError(
            folder,
            None,
            f"no campaign to serve (no {DB_FILE} here, and no --db or SIMEVAL_SERVE_DB); "
            f"create one with `simeval serve campaign {folder} campaign.toml`, then start it",
        )


def require_port(host: str, port: int) -> None:
    """Refuse, in one line, an address that cannot be listened on (another server has the
    port), before anything starts: uvicorn would log a traceback-like error and exit 3."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise SimevalError(f"cannot listen on {host}: {exc.strerror or exc}") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind(address)
        except OSError as exc:
            raise SimevalError(
                f"cannot listen on {host}:{port}: {exc.strerror or exc} (another server? "
                "choose another with --port)"
            ) from None


def run(
    folder: Path,
    db_url: str | None = None,
    host: str = "127.0.0.1",
    port: int = 8000,
    scorers: int = 0,
    trust_proxy: Iterable[str] = (),
    rejected_per_day: int = REJECTED_PER_DAY,
    max_connections: int = 500,
    uploads_per_minute: float = RATE_LIMITS["upload"].per_minute,
    reads_per_minute: float = RATE_LIMITS["read"].per_minute,
) -> None:
    """Serve the server of ``folder`` (its SQLite database, or ``db_url``; uploads in
    ``folder/files``) with uvicorn until stopped: :func:`create_app`'s start, at most
    ``max_connections`` connections at once (more are answered 503), idle keep-alive
    connections closed after :data:`KEEP_ALIVE_SECONDS`; uvicorn's log and the server's own
    lines go to stderr. ``X-Forwarded-For`` is read only from ``trust_proxy``.
    ``uploads_per_minute``: the uploads one client address may send a minute after its
    burst (0: no limit); ``reads_per_minute``: the leaderboard reads (HTML and JSON) it may
    make a minute after its burst (0: no limit)."""
    import copy
    import logging.config

    import uvicorn
    from uvicorn.config import LOGGING_CONFIG

    from simeval.serve.db import default_url

    require_server(folder, db_url)
    require_port(host, port)
    logs = copy.deepcopy(LOGGING_CONFIG)
    logs["loggers"]["simeval"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    logging.config.dictConfig(logs)
    private_dir(folder)
    web = create_app(
        db_url or default_url(folder),
        folder / "files",
        scorers=scorers,
        trust_proxy=trust_proxy,
        rejected_per_day=rejected_per_day,
        rate_limits={
            **RATE_LIMITS,
            "upload": RateLimit(RATE_LIMITS["upload"].burst, uploads_per_minute),
            "read": RateLimit(RATE_LIMITS["read"].burst, reads_per_minute),
        },
    )
    uvicorn.run(  # proxy_headers=False: the app reads X-Forwarded-For from trust_proxy only
        web,
        host=host,
        port=port,
        log_level="info",
        log_config=logs,
        proxy_headers=False,
        limit_concurrency=max_connections,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
    )
