"""Campaign files given to ``simeval serve campaign`` (the organiser's side of a shared task).

A server is made once per process (as ``simeval serve init`` makes it) with a first campaign,
``base25``: a visible phase on ``lab-base``, a hidden one on ``lab-hidden``. Each case copies
it, writes its campaign file beside the lab registry (:mod:`fuzzing.serve_lab`) and runs the
command in this process. An accepted file is read back from the SQLite database with
:mod:`sqlite3` and compared with what the file says; a refusal must name the campaign file.
"""

from __future__ import annotations

import contextlib
import json
import random
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from fuzzing.harness import Accept, Case, Either, Outcome, Reject, Surface, damage, run_cli
from fuzzing.serve_lab import (
    LAB,
    Raw,
    made,
    scratch,
    toml_text,
)

START = datetime(2025, 3, 1, tzinfo=UTC)
VISIBLE = ["lab-a", "lab-sts", "lab-c", "lab-suite", "lab-sts2", "mc30"]
HIDDEN = ["lab-b", "lab-sts3"]  # share no item with a visible target here or in base25


def _phase(rng: random.Random, name: str, targets: list[str], start: datetime) -> dict[str, Any]:
    days = rng.randint(1, 60)
    phase: dict[str, Any] = {
        "name": name,
        "targets": targets,
        "opens": start,
        "deadline": start + timedelta(days=days, hours=rng.randint(0, 23)),
        "runs": rng.choice([1, 3, 10, 1000]),
        "max_bytes": rng.choice([1, 1000, 100_000, 2**31 - 1]),
    }
    if rng.random() < 0.5:
        phase["hidden"] = name.lower() == "test"
    return phase


def _campaign(rng: random.Random) -> dict[str, Any]:
    """A valid campaign: a visible trial and, often, a hidden test (other lab names)."""
    name = rng.choice(["lex26", "Lab_Task", "s1", "a-b_c", "x" * 64])
    trial = _phase(
        rng,
        rng.choice(["trial", "dev", "Trial-1"]),
        rng.sample(VISIBLE, rng.randint(1, 3)),
        START,
    )
    doc: dict[str, Any] = {"name": name, "registry": ["lab.toml"], "phase": [trial]}
    if rng.random() < 0.7:
        hidden = rng.sample(HIDDEN, rng.randint(1, 2))
        # after the trial, or overlapping it, or opening first; listed after it or before
        opens = rng.choice([trial["deadline"], START + timedelta(days=1), START - timedelta(3)])
        test = _phase(rng, rng.choice(["test", "Test", "TEST"]), hidden, opens)
        doc["phase"].insert(rng.choice([0, 1]), test)
    if rng.random() < 0.5:
        doc["title"] = rng.choice(["Word similarity 2026", "Сходство слов", "a & b <c>"])
    if rng.random() < 0.3:
        doc["registration"] = rng.choice(["open", "closed"])
    if rng.random() < 0.3:
        doc["max_teams"] = rng.randint(1, 500)
    return doc


def _stored(folder: Path, name: str) -> tuple[Any, list[Any]] | None:
    """The campaign row named ``name`` and its phase rows, read with sqlite3."""
    con = sqlite3.connect(folder / "srv" / "serve.db")
    try:
        found = con.execute(
            "select id, name, title, registration, max_teams from campaign where name = ?", (name,)
        ).fetchone()
        if found is None:
            return None
        phases = con.execute(
            "select name, targets, opens, deadline, runs, max_bytes, hidden from phase "
            "where campaign_id = ? order by id",
            (found[0],),
        ).fetchall()
        return found, phases
    finally:
        con.close()


def _utc(stored: str) -> datetime:
    return datetime.fromisoformat(stored).replace(tzinfo=UTC)


def _same_campaign(doc: dict[str, Any]) -> Callable[[Outcome], str | None]:
    """The check of an accepted campaign file: the database holds what the file says."""

    def check(outcome: Outcome) -> str | None:
        found = _stored(outcome.folder, doc["name"])
        if found is None:
            return f"no campaign {doc['name']} in the database"
        (_, _, title, registration, max_teams), phases = found
        want = (
            doc.get("title", doc["name"]),
            doc.get("registration", "open"),
            doc.get("max_teams"),
        )
        if (title, registration, max_teams) != want:
            return f"stored {(title, registration, max_teams)} != {want}"
        if len(phases) != len(doc["phase"]):
            return f"{len(phases)} phases stored, {len(doc['phase'])} in the file"
        # stored as they open, then as the file declares them (the campaign page's order)
        declared = sorted(enumerate(doc["phase"]), key=lambda ip: (ip[1]["opens"], ip[0]))
        for row, (_, p) in zip(phases, declared, strict=True):
            hidden = p.get("hidden", p["name"].lower() == "test")
            want_row = (
                p["name"],
                p["targets"],
                p["opens"],
                p["deadline"],
                p["runs"],
                p["max_bytes"],
                hidden,
            )
            got = (
                row[0],
                json.loads(row[1]),
                _utc(row[2]),
                _utc(row[3]),
                row[4],
                row[5],
                bool(row[6]),
            )
            if got != want_row:
                return f"phase stored as {got}, the file says {want_row}"
        return None

    return check


FILE = "campaign.toml"
ARGV = ["serve", "campaign", "{dir}/srv", FILE]


def _case(label: str, doc: dict[str, Any], expect: Any, data: bytes | None = None) -> Case:
    return Case(label, {FILE: toml_text(doc) if data is None else data}, ARGV, expect)


def _refuse(label: str, doc: dict[str, Any], *names: str) -> Case:
    return _case(label, doc, Reject((FILE, *names), warning_ok=False))


def draw_campaign(rng: random.Random) -> Case:
    doc = _campaign(rng)
    phase = doc["phase"][rng.randrange(len(doc["phase"]))]
    kind = rng.randrange(22)
    if kind <= 1:  # a valid file
        return _case("valid", doc, Accept(_same_campaign(doc)))
    if kind == 2:  # valid, written otherwise: zones, "T" as a space, comments, CRLF, a BOM
        for p in doc["phase"]:
            zone = timezone(timedelta(hours=rng.choice([-11, 1, 5, 14])))
            p["opens"], p["deadline"] = p["opens"].astimezone(zone), p["deadline"].astimezone(zone)
        data = toml_text(doc)
        for p in doc["phase"] if rng.random() < 0.5 else []:
            for key in ("opens", "deadline"):
                data = data.replace(p[key].isoformat().encode(), p[key].isoformat(" ").encode())
        data = data.replace(b"\n", rng.choice([b"\n# note\n", b"\r\n", b"\n"]))
        if rng.random() < 0.3:
            data = b"\xef\xbb\xbf" + data
        return _case("written-otherwise", doc, Accept(_same_campaign(doc)), data)
    if kind == 3:  # a campaign name that is no name
        doc["name"] = rng.choice(
            [
                "",
                "../escape",
                "a/b",
                "name with space",
                "-lead",
                "_lead",
                "x" * 65,
                "lаb",
                "lab\x1b[31m",
                "lab\n",
                "tab\there",
                "é",
                "lab\u200b",
                7,
                True,
                ["lab"],
            ]
        )
        return _refuse("bad-name", doc, "campaign name")
    if kind == 4:  # the name of base25, exactly or in another case
        doc["name"] = rng.choice(["base25", "BASE25", "Base25"])
        return _refuse("name-taken", doc, "base25", "BASE25", "Base25")
    if kind == 5:  # a phase name that is no name, or two phases one name (or one in two cases)
        if len(doc["phase"]) > 1 and rng.random() < 0.5:
            doc["phase"][1]["name"] = rng.choice(
                [doc["phase"][0]["name"], doc["phase"][0]["name"].upper()]
            )
            if doc["phase"][1]["name"] == doc["phase"][0]["name"].upper() == "TRIAL-1":
                doc["phase"][1]["name"] = "trial-1"
            return _refuse("phase-name-twice", doc, "same name")
        phase["name"] = rng.choice(["", "../p", "p q", "p\x07", "π", 3, "-p"])
        return _refuse("bad-phase-name", doc, "name")
    if kind == 6:  # a window that closes before it opens, or opens and closes at once
        phase["deadline"] = phase["opens"] - rng.choice([timedelta(0), timedelta(days=3)])
        return _refuse("reversed-window", doc, "deadline")
    if kind == 7:  # a time without a zone, a date, a string that is no time, a number, a time
        key = rng.choice(["opens", "deadline"])  # that is no time in UTC
        if rng.random() < 0.3:
            phase["opens"] = Raw("0001-01-01T00:00:00+01:00")
            phase["deadline"] = Raw(rng.choice(["9999-12-31T23:30:00-01:00", "2025-03-01T00:00Z"]))
            return _refuse("time-out-of-range", doc, "opens", "deadline")
        phase[key] = rng.choice(
            [
                Raw("2025-03-01T00:00:00"),
                Raw("2025-03-01"),
                "tomorrow",
                "2025-13-01T00:00:00Z",
                20250301,
                Raw("00:00:00"),
            ]
        )
        return _refuse("bad-time", doc, key)
    if kind == 8:  # runs and max_bytes out of range or of the wrong type
        key = rng.choice(["runs", "max_bytes"])
        phase[key] = rng.choice([0, -1, 2**31, 2**63 - 1, 1.5, "3", True, Raw("nan"), [1]])
        return _refuse("bad-limit", doc, key)
    if kind == 9:  # targets: unknown, twice, empty, not a list, a group, a path
        phase["targets"] = rng.choice(
            [
                ["nosuch"],
                ["lab-a", "lab-a"],
                [],
                "lab-a",
                [1],
                ["LAB-A"],
                ["../lab.toml"],
                ["lab.toml"],
                ["sts12-msrvid "],
                [["lab-a"]],
                ["lab-a", ""],
            ]
        )
        return _refuse("bad-targets", doc, "target", "lab-a", "nosuch", "LAB-A", "russe", "lab")
    if kind == 10:  # hidden given as text or a number
        phase["hidden"] = rng.choice(["true", "false", 1, 0, "yes", Raw("{}")])
        return _refuse("hidden-not-bool", doc, "hidden")
    if kind == 11:  # one benchmark (or item) in a visible and a hidden phase, or in base25's
        shown, hidden = rng.choice(
            [
                (["lab-a"], ["lab-a"]),
                (["lab-a"], ["lab-c"]),
                (["lab-sts"], ["lab-suite"]),
                (["lab-suite"], ["lab-sts2"]),
                (["lab-hidden"], ["lab-b"]),
                (["lab-a"], ["lab-base"]),
            ]
        )
        doc["phase"] = [_phase(rng, "trial", shown, START), _phase(rng, "test", hidden, START)]
        doc["phase"][0]["hidden"], doc["phase"][1]["hidden"] = False, True
        return _refuse("visible-and-hidden", doc, "hidden")
    if kind == 12:  # a key nobody reads: a typo, or a key of another table
        where = rng.choice([doc, phase])
        where[rng.choice(["deadlines", "Name", "max_team", "hidden ", "targetz", "opens_at"])] = 1
        return _refuse("unknown-key", doc, "unknown key")
    if kind == 13:  # a required key left out
        if rng.random() < 0.3:
            del doc[rng.choice(["name", "phase"])]
            return _refuse("missing-key", doc, "name", "phase")
        key = rng.choice(["name", "targets", "opens", "deadline", "runs", "max_bytes"])
        del phase[key]
        return _refuse("missing-phase-key", doc, key)
    if kind == 14:  # phases that are not tables
        doc["phase"] = rng.choice([Raw('"trial"'), Raw("[1, 2]"), Raw("[]"), Raw("{}")])
        return _refuse("phase-not-tables", doc, "phase")
    if kind == 15:  # registration and max_teams of the wrong kind
        if rng.random() < 0.5:
            doc["registration"] = rng.choice(["Open", "closed ", "", 1, True])
            return _refuse("bad-registration", doc, "registration")
        doc["max_teams"] = rng.choice([0, -5, "10", 2.5, True, 2**40])
        return _refuse("bad-max-teams", doc, "max_teams")
    if kind == 16:  # a title that is no title: not text, control characters, far too long
        doc["title"] = rng.choice(
            [
                42,
                ["a"],
                True,
                "a\x1b]0;pwned\x07b",
                "a\x00b",
                "t\rx",
                "x" * 201,
                "x" * 10**6,
                "abc\u202edcba",
                "a\nb",
            ]
        )
        return _refuse("bad-title", doc, "title")
    if kind == 17:  # registry files: missing, not a list, not text
        doc["registry"] = rng.choice(
            [["nothere.toml"], "lab.toml", [3], Raw("{}"), ["x" * 5000 + ".toml"], ["."]]
        )
        return _refuse("bad-registry", doc, "registry", "nothere.toml")
    if kind == 18:  # the registry's own faults, found when the campaign is made
        return _lab_fault(rng, doc)
    if kind == 19:  # other encodings
        encoding = rng.choice(["utf-16", "cp1251", "latin-1"])
        doc["title"] = "Сходство слов é"
        data = toml_text(doc).decode().encode(encoding, errors="replace")
        return _case(f"encoding-{encoding}", doc, Reject((FILE,), warning_ok=False), data)
    if kind == 20:  # not TOML at all, a file that is not there, a folder
        choice = rng.randrange(3)
        if choice == 0:
            data = rng.choice([b"name = ", b"[[phase]\n", b"name = 'a'\nname = 'b'\n", b"\x00"])
            return _case("toml-syntax", doc, Reject((FILE,), warning_ok=False), data)
        argv = ["serve", "campaign", "{dir}/srv", rng.choice(["nothere.toml", "."])]
        return Case("no-file", {}, argv, Reject(("nothere.toml", "."), warning_ok=False))
    label, data = damage(rng, toml_text(doc))
    return _case(f"damage-{label}", doc, Either((FILE,)), data)


def _lab_fault(rng: random.Random, doc: dict[str, Any]) -> Case:
    """A registry the campaign names whose entry for a target cannot be used: a view over a
    column the gold lacks, a one-file suite's missing template."""
    faults = {
        "view": '[benchmark.lab-extra]\ngold = "lab-a.tsv"\n'
        'views = [{ name = "v", how = "column", columns = ["nope"] }]\n',
        "template": '[suite.lab-extra]\nmembers = ["lab-a"]\nlayout = "one-file"\n'
        'template = "notthere.csv"\naggregate = "mean"\n',
        "builtin-name": '[benchmark.mc30]\ngold = "lab-a.tsv"\n',
        "climbing-gold": '[benchmark.lab-extra]\ngold = "../../../../etc/passwd"\n',
        "not-a-registry": 'name = "x"\n',
    }
    fault = rng.choice(sorted(faults))
    doc["phase"][0]["targets"] = ["lab-extra"]
    doc["registry"] = ["lab.toml", "extra.toml"]
    files = {FILE: toml_text(doc), "extra.toml": faults[fault].encode()}
    expect = Reject(("extra.toml", "notthere.csv", "nope", "passwd"), warning_ok=False)
    return Case(f"registry-{fault}", files, ARGV, expect)


def _server_template() -> Path:
    """A server folder made once (as ``serve init`` makes it) with the campaign base25: a
    visible phase on lab-base, a hidden one on lab-hidden."""
    folder = scratch("campaign")
    if not (folder / "srv").exists():
        from simeval.serve.db import default_url
        from simeval.serve.service.campaigns import Targets, create_campaign
        from simeval.serve.service.results import open_server

        base = {
            "name": "base25",
            "registry": ["lab.toml"],
            "phase": [
                {
                    "name": "trial",
                    "targets": ["lab-base"],
                    "opens": START,
                    "deadline": START + timedelta(days=9),
                    "runs": 2,
                    "max_bytes": 1000,
                },
                {
                    "name": "test",
                    "targets": ["lab-hidden"],
                    "opens": START,
                    "deadline": START + timedelta(days=9),
                    "runs": 2,
                    "max_bytes": 1000,
                },
            ],
        }
        (folder / "base.toml").write_bytes(toml_text(base))
        (folder / "srv").mkdir(mode=0o700)
        db, _ = open_server(default_url(folder / "srv"), folder / "srv" / "files")
        create_campaign(db, folder / "base.toml", START, Targets())
        db.dispose()
    return folder / "srv"


@contextlib.contextmanager
def _command_once() -> Iterator[None]:
    """Typer builds its click command from the app on every run (a tenth of a second here):
    build it once for the whole surface."""
    import typer.testing

    if "command" not in made:
        from simeval.cli import app

        made["command"] = typer.testing._get_command(app)  # type: ignore[assignment]
    built = typer.testing._get_command
    typer.testing._get_command = lambda app: made["command"]  # type: ignore[assignment]
    try:
        yield
    finally:
        typer.testing._get_command = built


def run_campaign(case: Case, folder: Path) -> Outcome:
    """The case's campaign file given to ``simeval serve campaign`` on a copy of the server
    made once, beside the lab registry (the case's own files written over it)."""
    shutil.copytree(_server_template(), folder / "srv")
    for name, data in LAB.items():
        if name not in case.files:
            (folder / name).write_bytes(data)
    with _command_once():
        return run_cli(case, folder)


SURFACES = [Surface("campaign", draw_campaign, run_campaign)]
