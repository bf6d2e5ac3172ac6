"""The server's layers: a new page is one route and one template. This module adds a page
of its own (a campaign's deadlines) to a running app — one route on an APIRouter, one
template (in the server's Jinja2 environment, autoescaping) — and it gets, without more
code, what every page has: the signed-in team, the service, errors as status codes and the
security headers."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse
from markupsafe import Markup

from serve_kit import TEST_END, TRIAL_END, Clock, make_server, register, stop
from simeval.report.templating import environment
from simeval.serve.routers.web import Web, web

router = APIRouter()


TEMPLATE = """<ul class="deadlines">{% for p in phases %}
<li>{{ p.name }}: {{ p.deadline.strftime("%Y-%m-%d") }}</li>{% endfor %}</ul>"""


def deadlines_html(phases: list[Any]) -> Markup:  # the template
    return Markup(environment("simeval.serve").from_string(TEMPLATE).render(phases=phases))


@router.get("/campaigns/{campaign}/deadlines", response_class=HTMLResponse)  # the route
async def deadlines(campaign: str, request: Request, w: Annotated[Web, Depends(web)]) -> Any:
    _, phases = w.service.campaign(campaign)
    return w.html(f"{campaign}: deadlines", deadlines_html(phases), await w.signed_in(request))


def test_a_new_page_is_one_route_and_one_template(serve_db, tmp_path):
    srv = make_server(serve_db, tmp_path / "srv", Clock(TRIAL_END))
    srv.app.include_router(router)
    try:
        r = srv.client.get("/campaigns/lex25/deadlines")
        assert r.status_code == 200
        listed = f"<li>trial: {TRIAL_END:%Y-%m-%d}</li><li>test: {TEST_END:%Y-%m-%d}</li>"
        assert f'<ul class="deadlines">{listed}</ul>' in r.text
        assert "default-src 'none'" in r.headers["content-security-policy"]  # the middleware's
        token = register(srv.client, "alpha")
        srv.client.cookies.set("simeval_team", token)
        assert "alpha" in srv.client.get("/campaigns/lex25/deadlines").text  # signed in
        missing = srv.client.get("/campaigns/nope/deadlines")
        assert missing.status_code == 404 and "no campaign &#x27;nope&#x27;" in missing.text
    finally:
        stop(srv.app)
