"""The JSON API, for ``simeval submit`` and scripts (a team's token in
``Authorization: Bearer …``):

- ``POST /api/campaigns/{campaign}/teams`` ``{"team": NAME}`` (and ``"accept_terms": true``
  where the campaign has terms) → ``{"team", "token", "status"}`` (the token once; status
  ``pending`` where registration waits for the organiser's approval);
- ``POST /api/phases/{phase}/submissions?target=T&filename=F``, the file as the raw body →
  201 with the submission, 422 with ``error``/``file``/``line``/``message`` for a file the
  task refuses (recorded, no run taken), 413 past the cap, 403 outside the phase's window,
  409 with no runs left, 429 when the client sends too fast. In a hidden phase a file is
  refused only for what the input file shows, and ``warnings`` lists what the file and the
  input alone say about it (:mod:`simeval.serve.service.hidden`);
- ``GET``/``PUT /api/phases/{phase}/final`` (``{"runs": [1, 3]}``): the team's final runs of
  a split phase, up to the phase's ``final_runs`` (none picked: its last ones;
  :mod:`simeval.serve.service.picks`); ``{"final", "runs", "picked", "limit"}``;
- ``GET /api/submissions`` and ``/api/submissions/{id}``: the team's own only (another
  team's id is 404);
- ``GET /api/campaigns/{campaign}/phases/{phase}/leaderboard`` (``tiers``: null while the
  rank tiers are computed, then each benchmark's: :func:`simeval.serve.service.tiers.as_json`;
  ``?board=public`` or ``private`` for a split phase: :mod:`simeval.serve.service.split_rule`)
  and ``…/inputs/{target}`` (403 before the phase opens; the same file at
  ``/campaigns/…/inputs/{target}``).
"""

from __future__ import annotations

import time
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool

from simeval.serve.routers.forms import TEXT_FORM, BadForm, read_json
from simeval.serve.routers.web import Web, web
from simeval.serve.service.split_rule import board_part
from simeval.serve.service.submit import Refused
from simeval.serve.service.tiers import as_json as tiers_view

router = APIRouter()
W = Annotated[Web, Depends(web)]


@router.post("/api/campaigns/{campaign}/teams", status_code=201)
async def api_register(campaign: str, request: Request, w: W) -> dict[str, str]:
    w.limit(request, "register")
    try:
        body = await read_json(request, seconds=w.upload_seconds)
    except BadForm as exc:
        if exc.status != 422:
            raise Refused(exc.status, str(exc)) from None
        raise Refused(422, 'send {"team": NAME}') from None
    name = body.get("team") if isinstance(body, dict) else None
    accept = isinstance(body, dict) and body.get("accept_terms") is True
    return await w.register(campaign, str(name or ""), accept)


@router.post("/api/phases/{phase}/submissions")
async def api_submit(
    phase: str, request: Request, w: W, target: str | None = None, filename: str | None = None
) -> Response:
    w.limit(request, "upload")
    team = await w.bearer(request)
    ticket = await w.upload_work(w.service.admit, team, phase, target, w.rejected_per_day)
    return await w.receive(ticket, request, filename)


@router.get("/api/submissions")
async def api_mine(request: Request, w: W) -> list[dict[str, Any]]:
    team = await w.bearer(request)
    return w.views(team.id)


@router.get("/api/phases/{phase}/factsheet")
async def api_fact_sheet(phase: str, request: Request, w: W) -> dict[str, str]:
    team = await w.bearer(request)
    return {"phase": phase, "text": await run_in_threadpool(w.service.fact_sheet, team, phase)}


@router.put("/api/phases/{phase}/factsheet")
async def api_save_fact_sheet(phase: str, request: Request, w: W) -> dict[str, str]:
    team = await w.bearer(request)
    try:
        body = await read_json(request, limit=TEXT_FORM, seconds=w.upload_seconds)
    except BadForm as exc:
        raise Refused(exc.status, 'send {"text": MARKDOWN}') from None
    text = body.get("text") if isinstance(body, dict) else None
    if not isinstance(text, str):
        raise Refused(422, 'send {"text": MARKDOWN}')
    saved = await run_in_threadpool(w.service.fact_sheet, team, phase, text)
    return {"phase": phase, "text": saved}


@router.get("/api/phases/{phase}/final")
async def api_finals(phase: str, request: Request, w: W) -> dict[str, Any]:
    team = await w.bearer(request)
    return _finals(*await run_in_threadpool(w.service.final_runs, team, phase))


@router.put("/api/phases/{phase}/final")
async def api_pick_finals(phase: str, request: Request, w: W) -> dict[str, Any]:
    team = await w.bearer(request)
    try:
        body = await read_json(request, seconds=w.upload_seconds)
    except BadForm as exc:
        raise Refused(exc.status, 'send {"runs": [RUN, ...]}') from None
    runs = body.get("runs") if isinstance(body, dict) else None
    if not isinstance(runs, list) or not all(type(r) is int for r in runs):
        raise Refused(422, 'send {"runs": [RUN, ...]}')
    return _finals(*await run_in_threadpool(w.service.final_runs, team, phase, runs))


def _finals(p: Any, finals: list[int], runs: list[int], picked: bool) -> dict[str, Any]:
    return {"phase": p.name, "final": finals, "runs": runs, "picked": picked,
            "limit": p.final_runs}  # fmt: skip


@router.get("/api/submissions/{submission_id}")
async def api_one(submission_id: str, request: Request, w: W) -> dict[str, Any]:
    team = await w.bearer(request)
    for v in w.views(team.id):
        if v["id"] == submission_id:
            return v
    raise Refused(404, "no such submission of your team")


@router.get("/api/campaigns/{campaign}/phases/{phase}/leaderboard")
async def api_board(
    campaign: str, phase: str, request: Request, w: W, board: str | None = None
) -> Response:
    w.limit(request, "read")
    # a large board's answer, kept a moment, is sent from here, on the event loop: no
    # database read and no worker thread, whose turn waits behind uploads under load
    where = (campaign, phase, board)
    kept = w.board_answers.get(where)
    if kept is not None and time.monotonic() < kept[0]:
        return Response(kept[1], media_type="application/json")
    # built in a worker thread (a board of thousands of runs takes a second to build, once),
    # and its JSON too, then kept with it: FastAPI's encoder would walk every cell on every
    # request, and 10,000 rows encoded on the event loop would hold every other request
    body, large = await run_in_threadpool(_board_answer, w, campaign, phase, board)
    if large:
        w.keep_board_answer(where, body)
    return Response(body, media_type="application/json")


def _board_answer(w: Any, campaign: str, phase: str, board: str | None) -> tuple[bytes, bool]:
    """The JSON answer of a phase's leaderboard (``board``: a split phase's part), and whether
    its board is one answered from its last build while rebuilt (a board of
    :data:`~simeval.serve.service.board_cache.LAG_FROM` runs or more), whose answer may be kept
    as long as a build lags (:meth:`~simeval.serve.routers.web.Web.keep_board_answer`)."""
    p, table = w.service.leaderboard(campaign, phase, board)
    if table is None:
        hidden = {"phase": p.name, "hidden": True, "columns": [], "rows": []}
        return JSONResponse(hidden).body, False
    body = board_answer(w.service, p, table, board_part(p, w.clock(), board))
    return body, len(table.rows) >= w.service.boards.lag_from


def board_answer(service: Any, p: Any, table: Any, part: str | None) -> bytes:
    """The JSON answer of a phase's board (``part``: which of a split phase's) with its tiers
    as far as they are known, kept with the table it shows (made when the board is built:
    :attr:`simeval.serve.service.board_cache.Boards.on_built`)."""
    tiers = service.tiers(p, table)  # None while computing: asked again on a later request
    known = _answers.get(id(table))
    if known is not None and known[0] is table and known[2] is tiers:
        return known[1]
    rows = [[None if _nan(v) else v for v in row] for row in table.rows]
    excluded = [
        {"system": system, "target": target, "kind": kind, "reason": reason}
        for (system, target), (kind, reason) in service.excluded(p.id).items()
    ]
    body = JSONResponse({"phase": p.name, "hidden": False, "columns": table.columns,
                         "rows": rows, "excluded": excluded,
                         "tiers": tiers_view(tiers), "board": part}).body  # fmt: skip
    if len(_answers) >= 64:
        _answers.clear()
    _answers[id(table)] = (table, body, tiers)  # the table kept alive: its id is not reused
    return body


# id(board table) -> (table, its JSON answer, the tiers it showed)
_answers: dict[int, tuple[Any, bytes, Any]] = {}


@router.get("/api/campaigns/{campaign}/phases/{phase}/inputs/{target}")
@router.get("/campaigns/{campaign}/phases/{phase}/inputs/{target}")
async def inputs(campaign: str, phase: str, target: str, w: W) -> Response:
    name, data = await run_in_threadpool(w.service.input_file, campaign, phase, target)
    return Response(
        data,
        media_type="text/plain; charset=utf-8",
        headers={"content-disposition": f'attachment; filename="{name}"'},
    )


def _nan(value: Any) -> bool:
    return isinstance(value, float) and value != value
