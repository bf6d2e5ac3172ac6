"""Errors as HTTP answers: a :class:`Refused` as its status (JSON under ``/api/``, else a
page); a failure of the server's own storage, database, benchmarks or scoring processes as
503 with ``Retry-After``, its reason logged and never sent (it may quote the gold of a
hidden phase)."""

from __future__ import annotations

import logging
from concurrent.futures.process import BrokenProcessPool

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from sqlalchemy.exc import OperationalError

from simeval.errors import SimevalError
from simeval.serve.service.submit import Refused
from simeval.serve.views import pages

log = logging.getLogger("simeval.serve")
RETRY_AFTER = 60  # seconds a client is asked to wait after a storage or database failure


def unavailable(why: str) -> Refused:
    """503 for a failure of the server's own storage or database: nothing was kept."""
    return Refused(
        503,
        f"{why}; nothing was kept and no run was used: send it again in a minute",
        {"Retry-After": str(RETRY_AFTER)},
    )


async def refused(request: Request, exc: Refused) -> Response:
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": exc.message}, exc.status, headers=exc.headers)
    body = pages.refused_html(exc.message)
    return HTMLResponse(pages.page("Refused", body), exc.status, headers=exc.headers)


async def storage_failed(request: Request, exc: OSError) -> Response:
    log.error("storage failed on %s %s", request.method, request.url.path, exc_info=exc)
    why = exc.strerror or type(exc).__name__
    return await refused(request, unavailable(f"the server could not store the file ({why})"))


async def simeval_failed(request: Request, exc: SimevalError) -> Response:
    # a benchmark or the data folder failed the server (not the client's file, whose problems
    # are answered as a rejection)
    log.error("%s %s failed: %s", request.method, request.url.path, exc, exc_info=exc)
    return await refused(request, unavailable("the server could not load its benchmarks"))


async def database_failed(request: Request, exc: OperationalError) -> Response:
    log.error("database failed on %s %s", request.method, request.url.path, exc_info=exc)
    return await refused(request, unavailable("the database is busy or unreachable"))


async def scorers_failed(request: Request, exc: BrokenProcessPool) -> Response:
    # a scoring process died twice under one upload (the first time it is scored again:
    # simeval.serve.service.scoring.Scorers)
    log.error("scoring failed on %s %s", request.method, request.url.path, exc_info=exc)
    return await refused(request, unavailable("the server's scoring processes stopped"))


def add_handlers(app: FastAPI) -> None:
    """Answer the errors above on every route of ``app``."""
    app.add_exception_handler(Refused, refused)  # type: ignore[arg-type]
    app.add_exception_handler(OSError, storage_failed)  # type: ignore[arg-type]
    app.add_exception_handler(SimevalError, simeval_failed)  # type: ignore[arg-type]
    app.add_exception_handler(OperationalError, database_failed)  # type: ignore[arg-type]
    app.add_exception_handler(BrokenProcessPool, scorers_failed)  # type: ignore[arg-type]
