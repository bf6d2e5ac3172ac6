"""Is a Dask scheduler listening at ``tcp://HOST:PORT``? Asked with a plain socket and a
timeout before ``distributed`` connects, because ``distributed`` trusts the first eight bytes it
reads as a message length: a server that is not Dask (a web server, a database, junk) makes it
wait forever or try to allocate exabytes.

A Dask comm speaks first on a new connection: the scheduler writes its handshake (an 8-byte
little-endian length, then that many bytes of frames holding a msgpack map with the keys
``compression``, ``python`` and ``pickle-protocol``) before it reads the client's. The probe
reads that message and looks for the key ``pickle-protocol``.
"""

from __future__ import annotations

import socket
import struct
import time

from simeval.errors import InputError

PROBE_TIMEOUT = 5.0  # seconds for the connection and the scheduler's handshake together
HANDSHAKE_MAX = 1 << 16  # a Dask handshake is a few hundred bytes
HANDSHAKE_KEY = b"pickle-protocol"


def _read(sock: socket.socket, n: int, deadline: float) -> bytes:
    """Exactly ``n`` bytes, or fewer if the peer closes; TimeoutError past ``deadline``."""
    data = b""
    while len(data) < n:
        sock.settimeout(max(deadline - time.monotonic(), 0.001))
        chunk = sock.recv(n - len(data))
        if not chunk:
            break
        data += chunk
    return data


def check_scheduler(address: str, timeout: float | None = None) -> None:
    """Return if a Dask scheduler answers at ``address`` (``tcp://HOST:PORT``) within
    ``timeout`` seconds; otherwise an :class:`InputError` naming the address and what answered."""
    timeout = PROBE_TIMEOUT if timeout is None else timeout
    host, _, port = address.removeprefix("tcp://").rpartition(":")
    host = host.strip("[]")
    deadline = time.monotonic() + timeout
    try:
        with socket.create_connection((host, int(port)), timeout=timeout) as sock:
            head = _read(sock, 8, deadline)
            if len(head) < 8:
                raise InputError(
                    None,
                    None,
                    f"--scheduler {address}: not a Dask scheduler (it closed the "
                    "connection without a Dask handshake)",
                )
            (size,) = struct.unpack("<Q", head)
            if not 0 < size <= HANDSHAKE_MAX:
                raise InputError(
                    None,
                    None,
                    f"--scheduler {address}: not a Dask scheduler (its first bytes "
                    f"are not a Dask handshake: {head.hex()})",
                )
            body = _read(sock, size, deadline)
    except TimeoutError:
        raise InputError(
            None,
            None,
            f"--scheduler {address}: not a Dask scheduler (no Dask handshake within {timeout:g} s)",
        ) from None
    except (OSError, UnicodeError, ValueError) as exc:  # a host name idna cannot encode
        reason = getattr(exc, "strerror", None) or exc
        raise InputError(
            None, None, f"--scheduler {address}: no Dask scheduler there ({reason})"
        ) from None
    if len(body) < size or HANDSHAKE_KEY not in body:
        raise InputError(
            None,
            None,
            f"--scheduler {address}: not a Dask scheduler (its first message is not "
            "a Dask handshake)",
        )
