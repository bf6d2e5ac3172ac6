"""Reading forms as they stream in, never past a limit:

- an upload form (multipart): small fields into memory, the file part into an
  :class:`~simeval.serve.db.storage.Upload` (which stops at the size cap); the whole body stops at
  the cap plus :data:`FORM_SLACK`, so neither extra fields nor bytes after the last boundary
  are read without end;
- a form without a file (register, sign in, sign out: url-encoded, as the pages send them):
  at most :data:`SMALL_FORM` bytes, read into memory and parsed there;
- a JSON body (the registration API): at most :data:`SMALL_FORM` bytes, nested at most
  :data:`MAX_JSON_DEPTH` deep (:func:`read_json`: Python's parser recurses once a level, so
  ``[`` × 8,000 would end in a RecursionError, a 500).

A multipart body that ends before its closing boundary is refused (400) and its partial file
discarded; every body is read within ``seconds`` (:func:`timed`, 408 past it), so a client
that trickles or stalls cannot hold an upload open.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

import anyio
from python_multipart.exceptions import MultipartParseError
from python_multipart.multipart import MultipartParser, parse_options_header

from simeval.serve.db.storage import Upload

FIELD_LIMIT = 4096  # bytes of a plain field
FORM_SLACK = 16 * 1024  # bytes an upload form may hold besides its file: fields, part headers
SMALL_FORM = 16 * 1024  # bytes of a form without a file
TEXT_FORM = 160 * 1024  # bytes of the organiser's description-and-terms form
MAX_JSON_DEPTH = 32  # arrays and objects inside each other in a JSON body
JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
JSON_BRACKET = re.compile(rb"[\[\]{}]")


class BadForm(Exception):
    """Not a form this server reads; ``status`` is the HTTP answer (413: too large)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def _declared_length(request: Any) -> int | None:
    length = request.headers.get("content-length", "")
    return int(length) if length.isdigit() else None


async def timed(request: Any, seconds: float | None) -> AsyncIterator[bytes]:
    """The body's chunks, all of them within ``seconds`` of the first ask (None: no limit);
    past it :class:`BadForm` 408."""
    stream = request.stream()
    end = None if seconds is None else time.monotonic() + seconds
    try:
        while True:
            try:
                if end is None:
                    chunk = await stream.__anext__()
                else:
                    with anyio.fail_after(max(0.0, end - time.monotonic())):
                        chunk = await stream.__anext__()
            except StopAsyncIteration:
                return
            except TimeoutError:
                raise BadForm(f"the request body took more than {seconds:g} s", 408) from None
            yield chunk
    finally:
        await stream.aclose()


async def read_body(request: Any, limit: int, seconds: float | None = None) -> bytes:
    """The whole body if it is at most ``limit`` bytes (413 as soon as it is not)."""
    too_large = BadForm(f"the request body is larger than {limit:,} bytes", 413)
    if (_declared_length(request) or 0) > limit:
        raise too_large
    body = bytearray()
    async for chunk in timed(request, seconds):
        body += chunk
        if len(body) > limit:
            raise too_large
    return bytes(body)


async def read_json(request: Any, limit: int = SMALL_FORM, seconds: float | None = None) -> Any:
    """A JSON body of at most ``limit`` bytes, parsed (never starlette's ``request.json()``,
    which reads a body of any size into memory first)."""
    body = await read_body(request, limit, seconds)
    if json_depth(body) > MAX_JSON_DEPTH:
        raise BadForm(f"the JSON body is nested deeper than {MAX_JSON_DEPTH} levels", 400)
    try:
        return json.loads(body)
    except ValueError:  # also a body that is not UTF-8
        raise BadForm("the body is not JSON", 422) from None


def json_depth(body: bytes) -> int:
    """How deep the arrays and objects of a JSON text go (brackets inside strings not
    counted), read without parsing: checked before the parser recurses once a level."""
    depth = deepest = 0
    for bracket in JSON_BRACKET.finditer(JSON_STRING.sub(b'""', body)):
        depth += 1 if bracket[0] in b"[{" else -1
        deepest = max(deepest, depth)
    return deepest


async def read_fields(
    request: Any, limit: int = SMALL_FORM, seconds: float | None = None
) -> dict[str, str]:
    """The fields of a url-encoded form of at most ``limit`` bytes (read no further)."""
    ctype, _ = parse_options_header(request.headers.get("content-type", ""))
    if not ctype:  # no form at all: no fields (the body is not read)
        return {}
    if ctype != b"application/x-www-form-urlencoded":
        raise BadForm("expected application/x-www-form-urlencoded")
    try:
        body = await read_body(request, limit, seconds)
    except BadForm as exc:
        if exc.status == 413:
            raise BadForm(f"the form is larger than {limit:,} bytes", 413) from None
        raise
    return dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))


@dataclass
class Form:
    fields: dict[str, str] = field(default_factory=dict)
    filename: str | None = None
    upload: Upload | None = None


async def read_form(
    request: Any,
    new_upload: Callable[[], Upload],
    file_field: str,
    max_bytes: int,
    seconds: float | None = None,
    field_limit: int = FIELD_LIMIT,
) -> Form:
    """Parse ``request``'s multipart body; the part named ``file_field`` goes to a new upload
    (capped at ``max_bytes`` by ``new_upload``). :class:`~simeval.serve.db.storage.TooLarge`
    stops reading, and so does a body past ``max_bytes`` + :data:`FORM_SLACK` (413), one
    that ends before its closing boundary (400) or takes more than ``seconds`` (408); on any
    error the upload is discarded. ``field_limit``: bytes of each other field (a text area
    may hold more than :data:`FIELD_LIMIT`; the whole form stays within the cap above)."""
    ctype, params = parse_options_header(request.headers.get("content-type", ""))
    boundary = params.get(b"boundary")
    if ctype != b"multipart/form-data" or not boundary:
        raise BadForm("expected multipart/form-data")
    limit = max_bytes + FORM_SLACK
    too_large = BadForm(f"the form is larger than a file of {max_bytes:,} bytes needs", 413)
    if (_declared_length(request) or 0) > limit:
        raise too_large
    form = Form()
    state: dict[str, Any] = {"headers": {}, "name": None, "value": bytearray(), "end": False}

    def on_end() -> None:
        state["end"] = True

    def on_part_begin() -> None:
        state.update(headers={}, name=None, value=bytearray())

    def on_header_begin() -> None:
        state.update(key=b"", header=b"")

    def on_header_field(data: bytes, start: int, end: int) -> None:
        state["key"] += data[start:end]

    def on_header_value(data: bytes, start: int, end: int) -> None:
        state["header"] += data[start:end]
        if len(state["header"]) > FIELD_LIMIT:
            raise BadForm("a part's header is too long")

    def on_header_end() -> None:
        state["headers"][state["key"].lower()] = state["header"]

    def on_headers_finished() -> None:
        _, disposition = parse_options_header(state["headers"].get(b"content-disposition", b""))
        name = disposition.get(b"name", b"").decode("utf-8", "replace")
        state["name"] = name
        if name == file_field:
            if form.upload is not None:
                raise BadForm("one file per upload")
            raw = disposition.get(b"filename", b"")
            form.filename = raw.decode("utf-8", "replace") if raw else None
            form.upload = new_upload()

    def on_part_data(data: bytes, start: int, end: int) -> None:
        if state["name"] == file_field:
            assert form.upload is not None
            form.upload.write(data[start:end])
            return
        state["value"] += data[start:end]
        if len(state["value"]) > field_limit:
            raise BadForm(f"the field {state['name']!r} is too long")

    def on_part_end() -> None:
        if state["name"] != file_field and state["name"]:
            form.fields[state["name"]] = state["value"].decode("utf-8", "replace")

    parser = MultipartParser(
        boundary,
        {
            "on_part_begin": on_part_begin,
            "on_header_begin": on_header_begin,
            "on_header_field": on_header_field,
            "on_header_value": on_header_value,
            "on_header_end": on_header_end,
            "on_headers_finished": on_headers_finished,
            "on_part_data": on_part_data,
            "on_part_end": on_part_end,
            "on_end": on_end,
        },
    )
    received = 0
    try:
        async for chunk in timed(request, seconds):
            received += len(chunk)
            if received > limit:
                raise too_large
            parser.write(chunk)
        parser.finalize()
        if not state["end"]:
            raise BadForm("the form ended before its closing boundary: send it again")
    except MultipartParseError as exc:  # not multipart as its header says: the client's error
        if form.upload is not None:
            form.upload.discard()
        raise BadForm(f"not a multipart form: {exc}") from None
    except BaseException:
        if form.upload is not None:
            form.upload.discard()
        raise
    return form
