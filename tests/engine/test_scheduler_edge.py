"""The global --scheduler at the edge: an address where no Dask scheduler answers gives a
one-line error within seconds (never a traceback, a hang or an exabyte allocation), and commands
that compute nothing never look at it."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

from simeval import engine
from simeval.engine import probe
from simeval.errors import InputError


def _server(reply: bytes | None) -> Iterator[str]:
    """A plain TCP server on loopback that answers every connection with ``reply`` (None:
    says nothing), then holds the connection open; yields its tcp:// address."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()
    held: list[socket.socket] = []

    def serve() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            held.append(conn)
            if reply is not None:
                conn.sendall(reply)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        listener.close()


@pytest.fixture
def junk() -> Iterator[str]:
    # 8 bytes of 0xff: read by distributed as a message of 2**64 - 1 bytes
    yield from _server(b"\xff" * 64)


@pytest.fixture
def silent() -> Iterator[str]:
    yield from _server(None)


def _start(spec: str) -> None:
    """Ask for the engine the way a computing command's job does."""
    pytest.importorskip("distributed")
    with engine.scheduler(spec):
        engine.active()


def test_a_server_that_sends_junk_is_not_a_dask_scheduler(junk: str) -> None:
    started = time.monotonic()
    with pytest.raises(InputError) as info:
        _start(junk)
    assert time.monotonic() - started < 5
    message = str(info.value)
    assert junk in message and "not a Dask scheduler" in message
    assert "\n" not in message


def test_a_server_that_says_nothing_is_refused_after_the_timeout(
    silent: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(probe, "PROBE_TIMEOUT", 1.0)
    started = time.monotonic()
    with pytest.raises(InputError, match=r"not a Dask scheduler \(no Dask handshake within 1 s\)"):
        _start(silent)
    assert time.monotonic() - started < 4


def test_a_closed_port_is_named() -> None:
    with socket.create_server(("127.0.0.1", 0)) as s:
        address = f"tcp://127.0.0.1:{s.getsockname()[1]}"
    with pytest.raises(InputError, match=f"--scheduler {address}: no Dask scheduler there"):
        probe.check_scheduler(address, timeout=2)


def test_a_real_dask_scheduler_passes_the_probe() -> None:
    distributed = pytest.importorskip("distributed")

    async def main() -> str:
        async with distributed.Scheduler(
            host="127.0.0.1", port=0, dashboard_address=None
        ) as scheduler:
            await asyncio.to_thread(probe.check_scheduler, scheduler.address, 5)
            return scheduler.address

    assert asyncio.run(main()).startswith("tcp://127.0.0.1:")


@pytest.fixture
def results_folder(tmp_path, data_dir):
    from simeval.api import evaluate

    folder = tmp_path / "res"
    evaluate("random:seed=1", "mc30", results_dir=folder)
    return folder


@pytest.mark.parametrize("spec", ["bogus", "tcp://127.0.0.1:1"])
def test_a_stale_scheduler_setting_does_not_stop_commands_that_compute_nothing(
    results_folder, spec: str
) -> None:
    from simeval.cli import app

    made = CliRunner().invoke(
        app, ["results", str(results_folder)], env={"SIMEVAL_SCHEDULER": spec}
    )
    assert made.exit_code == 0, made.output
    assert "mc30" in made.output and "scheduler" not in made.output


def test_a_computing_command_still_refuses_a_bad_scheduler_spec(results_folder, tmp_path) -> None:
    from simeval.cli import app

    made = CliRunner().invoke(
        app,
        ["report", str(results_folder), "--html", str(tmp_path / "r.html")],
        env={"SIMEVAL_SCHEDULER": "bogus"},
    )
    assert made.exit_code == 2
    assert "--scheduler 'bogus': expected sync, processes or tcp://HOST:PORT" in made.output


@pytest.mark.parametrize("host", ["a" * 300, "a..b"])
def test_a_host_name_that_cannot_be_encoded_is_an_input_error(host: str) -> None:
    """A host name the idna codec refuses (a label over 63 characters, an empty label) gave a
    UnicodeError traceback (fuzz: cli-options)."""
    with pytest.raises(InputError, match="no Dask scheduler there"):
        probe.check_scheduler(f"tcp://{host}:1", timeout=2)
