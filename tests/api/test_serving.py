"""simeval.api.serving (issue 45): one function per `simeval serve` action, over the server's
service layer. Expected values are written here from the campaign file and the calls made."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from simeval.api import serving
from simeval.errors import InputError


def test_importing_the_api_loads_nothing_of_the_server() -> None:
    """`simeval --help` and a Python user who never serves need neither FastAPI nor
    SQLAlchemy: the functions import the server when called."""
    code = (
        "import sys; import simeval.api.serving, simeval.api.environment, simeval.api.records; "
        "print(sorted(m for m in ('fastapi', 'sqlalchemy', 'alembic', 'simeval.serve', "
        "'simeval.engine', 'simeval.data.store') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


pytest.importorskip("fastapi")

from serve_kit import TRIAL_END, campaign_toml, phase_toml  # noqa: E402

READERS = {
    "backup_server": lambda f, out: serving.backup_server(f, out),
    "export_campaign": lambda f, out: serving.export_campaign(f, "lex25", out),
    "set_published": lambda f, out: serving.set_published(f, "lex25", "test", True),
    "audit_log": lambda f, out: serving.audit_log(f),
    "list_organisers": lambda f, out: serving.list_organisers(f),
    "audit_inputs": lambda f, out: serving.audit_inputs(f, "lex25"),
    "rotate_token": lambda f, out: serving.rotate_token(f, "lex25", "alpha"),
    "rescore": lambda f, out: serving.rescore(f, "lex25"),
    "edit_phase": lambda f, out: serving.edit_phase(f, "lex25", "trial", close=True),
}


@pytest.mark.parametrize("call", READERS.values(), ids=list(READERS))
def test_a_function_that_reads_a_server_refuses_a_missing_folder(tmp_path: Path, call) -> None:
    folder, out = tmp_path / "no-such-server", tmp_path / "out"
    with pytest.raises(InputError, match="no server folder at"):
        call(folder, out)
    assert not folder.exists() and not out.exists()  # nothing made


def test_a_campaign_made_and_changed_through_the_api(tmp_path: Path) -> None:
    """create_campaign makes the server and says each phase's visibility; the changes made
    after are in the audit log, newest first, as the command line's."""
    folder = tmp_path / "srv"
    file = tmp_path / "campaign.toml"
    file.write_text(
        campaign_toml("lex25", phase_toml("trial", ["mc30"]), phase_toml("test", ["yp130"])),
        encoding="utf-8",
    )
    made = serving.create_campaign(folder, file)
    assert made.name == "lex25"
    default = "(hidden not set in the file: the default for "
    assert made.phases == [
        f"  phase trial: mc30; scores visible {default}any phase not named test)",
        f"  phase test: yp130; scores hidden {default}a phase named test)",
    ]
    assert serving.set_registration(folder, "lex25", "closed", 5) == ("closed", 5)
    later = TRIAL_END.replace(day=3).isoformat()
    changed = serving.edit_phase(folder, "lex25", "trial", deadline=later)
    assert list(changed) == ["deadline"]
    token = serving.add_organiser(folder, "ada")
    assert isinstance(token, str) and len(token) > 20
    serving.revoke_organiser(folder, "ada")
    (row,) = serving.list_organisers(folder)
    assert row.name == "ada" and row.revoked is not None
    actions = [line.action for line in serving.audit_log(folder)]
    assert actions[:2] == ["revoke organiser", "add organiser"]
    mine = serving.audit_log(folder, "lex25")  # the campaign's changes, not the accounts'
    assert [line.action for line in mine][:2] == ["edit phase", "registration"]
    assert "deadline" in mine[0].detail and mine[0].actor == "command line"
    assert mine[0].at <= datetime.now(UTC).replace(tzinfo=None)


def test_export_key_goes_with_anonymise(tmp_path: Path) -> None:
    folder = tmp_path / "srv"
    serving.init_server(folder)
    with pytest.raises(InputError, match="goes with anonymise"):
        serving.export_campaign(folder, "lex25", tmp_path / "out", key=tmp_path / "key.csv")
    assert not (tmp_path / "out").exists() and not (tmp_path / "key.csv").exists()
