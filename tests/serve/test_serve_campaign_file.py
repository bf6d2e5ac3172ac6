"""A campaign file is refused up front, naming the file and the key, for what the fuzzer of
``tests/fuzzing/surfaces/serve.py`` found accepted or crashing:

- ``phase`` that is not an array of tables, ``registry`` that is not a list of paths (a
  traceback, or a letter of the string taken for a file), a registry path too long for the file
  system (an error that named only that path);
- a title that is not text, holds a control character or a bidirectional override, or passes
  the column's 200 characters; a time with no UTC equivalent (a traceback);
- a campaign name taken in another case, two phases one name in two cases, a target twice;
- runs, max_bytes, max_teams past what an Integer column holds on every dialect (2**31 - 1);
- a target whose registry entry has a view over a column its gold lacks (the report used to
  leave it out without a word, long after the campaign was made).

And a file saved as UTF-8 with a byte-order mark, which was refused, is read."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("fastapi")

from serve_kit import OPENS, campaign_toml, phase_toml
from simeval.errors import InputError
from simeval.serve.db import Database
from simeval.serve.service.campaigns import Targets, create_campaign

PHASE = phase_toml("trial", ["mc30"])
GOOD = campaign_toml("lex25", PHASE)


def made(folder: Path, text: str, db: Database | None = None) -> Database:
    """The campaign of ``text`` made on a new SQLite database in ``folder`` (or ``db``)."""
    db = db or Database(f"sqlite:///{folder / 'serve.db'}")
    path = folder / "campaign.toml"
    path.write_text(text, encoding="utf-8")
    create_campaign(db, path, OPENS, Targets())
    return db


BAD = {
    "phase-not-tables": ('name = "lex25"\nphase = [1, 2]\n', "[[phase]]"),
    "registry-a-string": (
        GOOD.replace('name = "lex25"', 'name = "lex25"\nregistry = "a.toml"'),
        "registry",
    ),
    "registry-name-too-long": (
        GOOD.replace('name = "lex25"', 'name = "lex25"\nregistry = ["' + "x" * 5000 + '.toml"]'),
        "File name too long",
    ),
    "registry-a-number": (
        GOOD.replace('name = "lex25"', 'name = "lex25"\nregistry = [3]'),
        "registry",
    ),
    "title-not-text": (
        campaign_toml("lex25", PHASE).replace('"lex25"\n', '"lex25"\ntitle = 42\n'),
        "title",
    ),
    "title-escape": (campaign_toml("lex25", PHASE, title="a\\u001b]0;x\\u0007b"), "U+001B"),
    "title-too-long": (campaign_toml("lex25", PHASE, title="x" * 201), "at most 200"),
    "phase-names-in-two-cases": (
        campaign_toml("lex25", PHASE, phase_toml("TRIAL", ["rg65"])),
        "same name",
    ),
    "target-twice": (
        campaign_toml("lex25", phase_toml("trial", ["mc30", "mc30"])),
        "mc30 named twice",
    ),
    "target-not-text": (campaign_toml("lex25", PHASE.replace('["mc30"]', "[1]")), "targets"),
    "runs-past-int": (campaign_toml("lex25", phase_toml("trial", ["mc30"], runs=2**31)), "runs"),
    "max-bytes-past-int": (
        campaign_toml("lex25", phase_toml("trial", ["mc30"], max_bytes=2**40)),
        "max_bytes",
    ),
    "opens-before-utc-begins": (
        GOOD.replace("opens = 2025-01-01T00:00:00+00:00", "opens = 0001-01-01T00:00:00+01:00"),
        "out of range",
    ),
    "title-bidi-override": (campaign_toml("lex25", PHASE, title="abc\\u202edcba"), "U+202E"),
    "max-teams-past-int": (
        GOOD.replace('name = "lex25"', 'name = "lex25"\nmax_teams = 2147483648'),
        "max_teams",
    ),
}


@pytest.mark.parametrize("label", sorted(BAD))
def test_a_wrong_campaign_file_is_refused_naming_file_and_key(label: str, tmp_path: Path) -> None:
    text, named = BAD[label]
    with pytest.raises(InputError) as refused:
        made(tmp_path, text)
    assert refused.value.path is not None and refused.value.path.endswith("campaign.toml")
    assert named in refused.value.message


def test_a_campaign_name_taken_in_another_case_is_refused(tmp_path: Path) -> None:
    db = made(tmp_path, GOOD)
    with pytest.raises(InputError, match="a campaign named lex25 exists already"):
        made(tmp_path, campaign_toml("LEX25", phase_toml("trial", ["rg65"])), db)


def test_a_view_over_a_column_the_gold_lacks_is_refused_when_the_campaign_is_made(
    tmp_path: Path,
) -> None:
    (tmp_path / "lab.tsv").write_text("cat\tdog\t7\ncar\tauto\t9\nsun\tmoon\t4\n", "utf-8")
    (tmp_path / "lab.toml").write_text(
        '[benchmark.lab-a]\ngold = "lab.tsv"\n'
        'views = [{ name = "pos", how = "column", columns = ["POS"] }]\n',
        encoding="utf-8",
    )
    text = campaign_toml("lex25", phase_toml("trial", ["lab-a"]))
    text = text.replace('name = "lex25"', 'name = "lex25"\nregistry = ["lab.toml"]')
    with pytest.raises(InputError) as refused:
        made(tmp_path, text)
    assert refused.value.path.endswith("campaign.toml")
    assert "'pos'" in refused.value.message and "POS" in refused.value.message


def test_the_largest_limits_an_integer_column_holds_are_taken(tmp_path: Path) -> None:
    """The bound is Integer's, not lower: 2**31 - 1 runs and bytes make a campaign."""
    top = 2**31 - 1
    db = made(
        tmp_path, campaign_toml("lex25", phase_toml("trial", ["mc30"], runs=top, max_bytes=top))
    )
    import sqlite3

    con = sqlite3.connect(tmp_path / "serve.db")
    assert con.execute("select runs, max_bytes from phase").fetchone() == (top, top)
    con.close()
    db.dispose()


def test_a_campaign_file_saved_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    """Windows editors save UTF-8 with a BOM; it is not part of the TOML."""
    path = tmp_path / "campaign.toml"
    path.write_bytes(b"\xef\xbb\xbf" + GOOD.encode())
    db = Database(f"sqlite:///{tmp_path / 'serve.db'}")
    assert create_campaign(db, path, OPENS, Targets()).name == "lex25"
    db.dispose()


def test_a_refused_campaign_file_leaves_no_server_behind(tmp_path: Path) -> None:
    """`serve campaign` reads the file before it opens (or makes) the server's folder: a typo
    in the folder's name and a wrong file make no database."""
    from typer.testing import CliRunner

    from simeval.cli import app

    zero = campaign_toml("lex25", phase_toml("trial", ["mc30"], runs=0))
    (tmp_path / "campaign.toml").write_text(zero, encoding="utf-8")
    folder = tmp_path / "typo"
    file = str(tmp_path / "campaign.toml")
    done = CliRunner().invoke(app, ["serve", "campaign", str(folder), file])
    assert done.exit_code == 2 and "runs" in done.output
    assert not folder.exists()
