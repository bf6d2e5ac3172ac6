"""The one exception the service raises for a request it will not take (the routers answer
it with its status: :mod:`simeval.serve.routers.errors`)."""

from __future__ import annotations


class Refused(Exception):
    """A request the server will not take: an HTTP status and a message for the client."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers
