"""The participant's side over HTTP: register a team, send a file, pick final runs
(``simeval register``, ``simeval submit`` and ``simeval final`` print what these return).
Needs httpx (the ``serve`` extra).

Every answer that is not the server's JSON (a proxy's error page, a timeout page) is a
:class:`SimevalError` saying what did answer, and so is a 503 (with the server's wait); a
file the task refuses is the :class:`InputError` the server found, naming the local file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from simeval.errors import InputError, SimevalError

TIMEOUT = 120  # seconds: an upload is scored before the answer comes


def register_team(server: str, campaign: str, team: str, accept_terms: bool = False) -> str:
    """Register ``team`` in ``campaign`` on ``server`` (``http://host:port``), accepting the
    campaign's terms when ``accept_terms``: its token (:func:`registration` for its status)."""
    return str(registration(server, campaign, team, accept_terms)["token"])


def registration(
    server: str, campaign: str, team: str, accept_terms: bool = False
) -> dict[str, Any]:
    """The server's answer to a registration: ``team``, ``token`` and ``status``."""
    url = f"{server.rstrip('/')}/api/campaigns/{campaign}/teams"
    body: dict[str, Any] = {"team": team}
    if accept_terms:
        body["accept_terms"] = True
    r = _http("POST", url, json=body)
    answer = _answer(r, url)
    if r.status_code != 201:
        raise SimevalError(answer.get("error", r.text))
    return answer


def submit_file(
    server: str, file: Path, token: str, phase: str, target: str | None = None
) -> dict[str, Any]:
    """Upload ``file`` to ``phase`` on ``server``: the server's view of the new submission
    (run, results or hidden, warnings); a refused file raises (:func:`accepted`)."""
    return accepted(*send_file(server, file, token, phase, target), file)


def send_file(
    server: str, file: Path, token: str, phase: str, target: str | None = None
) -> tuple[int, dict[str, Any]]:
    """Upload ``file`` to ``phase``: the HTTP status and the server's JSON answer, whatever
    it says of the file (``simeval submit --json`` prints it as it is)."""
    if not file.is_file():
        raise InputError(file, None, "file not found")
    params = {"filename": file.name, **({"target": target} if target else {})}
    url = f"{server.rstrip('/')}/api/phases/{phase}/submissions"
    headers = {"authorization": f"Bearer {token}"}
    with open(file, "rb") as f:
        r = _http("POST", url, params=params, content=f, headers=headers)
    return r.status_code, _answer(r, url)


def final_runs(
    server: str, token: str, phase: str, runs: list[int] | None = None
) -> dict[str, Any]:
    """The team's final runs of a split ``phase`` (picking ``runs`` first when given; ``[]``
    goes back to its last runs): ``final``, ``runs`` (its scored ones), ``picked``, ``limit``."""
    url = f"{server.rstrip('/')}/api/phases/{phase}/final"
    headers = {"authorization": f"Bearer {token}"}
    if runs is None:
        r = _http("GET", url, headers=headers)
    else:
        r = _http("PUT", url, json={"runs": runs}, headers=headers)
    answer = _answer(r, url)
    if r.status_code != 200:
        raise SimevalError(answer.get("error", r.text))
    return answer


def accepted(status: int, answer: dict[str, Any], file: Path) -> dict[str, Any]:
    """``answer`` if the upload was accepted (201); else the :class:`InputError` the task
    found in the file (the server's name for it mapped back to ``file``), or the server's
    refusal as a :class:`SimevalError`."""
    if status == 422 and "line" in answer:
        where = answer.get("file")
        path = (
            str(file) + where[len(file.name) :] if where and where.startswith(file.name) else where
        )
        raise InputError(path, answer.get("line"), answer["message"])
    if status != 201:
        raise SimevalError(answer.get("error", str(answer)))
    return answer


def _http(method: str, url: str, **kwargs: Any) -> Any:
    try:
        import httpx
    except ImportError:
        raise SimevalError(
            "simeval register and submit need an HTTP client: pip install 'simeval[client]'"
        ) from None

    try:
        return httpx.request(method, url, timeout=TIMEOUT, **kwargs)
    except httpx.HTTPError as exc:
        raise SimevalError(f"{url}: {exc}") from None


def _answer(r: Any, url: str) -> dict[str, Any]:
    """The server's JSON answer (module docstring)."""
    try:
        answer = r.json()
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        kind = r.headers.get("content-type", "no content type")
        text = " ".join(r.text.split())[:200]
        raise SimevalError(
            f"{url}: the server answered {r.status_code} {r.reason_phrase} with {kind}, not "
            f"simeval's JSON{f': {text}' if text else ''}{_retry(r)}"
        )
    if r.status_code == 503:
        raise SimevalError(f"{answer.get('error', 'the server is unavailable')}{_retry(r)}")
    return answer


def _retry(r: Any) -> str:
    after = r.headers.get("retry-after", "")
    return f" (the server asks to retry after {after} s)" if after.isdigit() else ""
