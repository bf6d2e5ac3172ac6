"""Reading a multipart form as it streams in: small fields into memory, the file part into an
:class:`~simeval.serve.storage.Upload` (which stops at the size cap), so no upload is ever
held whole in memory or written past its cap."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from python_multipart.multipart import MultipartParser, parse_options_header

from simeval.serve.storage import Upload

FIELD_LIMIT = 4096  # bytes of a plain field


class BadForm(Exception):
    """Not a form this server reads."""


@dataclass
class Form:
    fields: dict[str, str] = field(default_factory=dict)
    filename: str | None = None
    upload: Upload | None = None


async def read_form(request: Any, new_upload: Callable[[], Upload], file_field: str) -> Form:
    """Parse ``request``'s multipart body; the part named ``file_field`` goes to a new upload.
    :class:`~simeval.serve.storage.TooLarge` stops reading; on any error the upload is discarded."""
    ctype, params = parse_options_header(request.headers.get("content-type", ""))
    boundary = params.get(b"boundary")
    if ctype != b"multipart/form-data" or not boundary:
        raise BadForm("expected multipart/form-data")
    form = Form()
    state: dict[str, Any] = {"headers": {}, "name": None, "value": bytearray()}

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
        if len(state["value"]) > FIELD_LIMIT:
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
        },
    )
    try:
        async for chunk in request.stream():
            parser.write(chunk)
        parser.finalize()
    except BaseException:
        if form.upload is not None:
            form.upload.discard()
        raise
    return form
