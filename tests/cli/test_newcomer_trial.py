"""What a new user's trial of the README and the docs met (issue 33's last item), each fixed
and held here: a missing file named as such, a bare path given as a database URL, a port
already taken, the token's "shown once" note, and the server's advice a participant can
follow."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simeval.cli import app


def run(*args: str) -> tuple[int, str]:
    done = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    return done.exit_code, done.output


def test_a_missing_file_is_not_called_an_unknown_benchmark(tmp_path: Path) -> None:
    code, text = run("evaluate", "orthographic", "-b", str(Path("nothere.tsv")))
    assert code == 2 and "nothere.tsv: no such file or folder" in text
    assert "unknown benchmark" not in text
    code, text = run("evaluate", "orthographic", "-b", "simlex99")  # a name: the suggestion
    assert code == 2 and "did you mean simlex999" in text


def test_a_bare_path_as_a_database_url_gets_the_sqlite_form(tmp_path: Path) -> None:
    pytest.importorskip("sqlalchemy")
    code, text = run("serve", "init", str(tmp_path / "srv"), "--db", "third/serve.db")
    assert code == 2 and "cannot use the database URL third/serve.db" in text
    assert f"(a file is sqlite:///{Path('third/serve.db').resolve()})" in " ".join(text.split())


def test_a_port_in_use_is_refused_in_one_line(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    from simeval.errors import SimevalError
    from simeval.serve.app import require_port

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(SimevalError, match=rf"cannot listen on 127.0.0.1:{port}: .*--port"):
            require_port("127.0.0.1", port)
    require_port("127.0.0.1", port)  # free again: no refusal


def test_the_server_does_not_advise_a_command_line_option() -> None:
    from simeval.errors import InputError
    from simeval.serve.service.scoring import remap_error

    refused = InputError(
        "/srv/files/x/upload", None,
        "39 of 65 gold pairs have no score (first: 'automobile','car'); use --missing "
        "zero|skip to score anyway",
    )  # fmt: skip
    shown = remap_error(refused, Path("/srv/files/x/upload"), "run1.csv")
    assert str(shown) == (
        "run1.csv: 39 of 65 gold pairs have no score (first: 'automobile','car'); give every "
        "gold pair a score"
    )
