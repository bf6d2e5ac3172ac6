"""A campaign: reading and checking its TOML file, creating it, and finding a campaign, a phase
or its excluded runs in the database. Its export is :mod:`.export`.

A campaign file::

    name = "lex25"                       # letters, digits, - and _
    title = "Word similarity 2025"
    registry = ["lab.toml"]              # optional: the organiser's own benchmarks
    registration = "open"                # "approval": each team waits for the organiser; "closed"
    max_teams = 40                       # optional: registration closes at 40 teams

    [[phase]]
    name = "trial"
    targets = ["mc30", "rg65"]           # benchmarks, one-file suites, registry entries
    opens = 2025-01-01T00:00:00Z         # TOML times with a zone (Z or +01:00)
    deadline = 2025-02-01T00:00:00Z
    runs = 3                             # scored runs per team and target
    max_bytes = 1_000_000                # upload size cap
    hidden = false                       # scores hidden until published (see below)
    per_day = 3                          # optional: scored runs per team and target in any 24 h
    combine = "sum"                      # optional: how targets combine: "mean", "mean-rank"
    public_share = 0.3                   # optional: the live board scores 30% of the items
    final_runs = 2                       # optional: final runs a team picks (default 2)

The whole file is checked before anything is written, each error naming the file and the key:
names are taken once whatever their case (a campaign ``Lex25`` beside ``lex25``, phases
``dev`` and ``DEV``); a title is text of at most 200 characters without control characters or
bidirectional overrides; ``runs``, ``max_bytes`` and ``max_teams`` are whole numbers from 1 to
2,147,483,647 (an Integer column on every dialect); times have a zone; a target is listed once
per phase. A byte-order mark before the TOML is allowed.

Targets are checked when the campaign is created: each must load, and a ``views`` subset of its
registry entry must name columns its gold has (:func:`check_views`). A suite of one file per
member (``sts12``) takes a zip archive of those files per run (:mod:`.archive`); its members
can also be targets of their own (``sts12-msrvid``).

Hidden phases (the test):

- ``hidden`` is a TOML boolean, ``true`` or ``false`` unquoted (a string is refused, naming
  the file and the phase). Left out, it is true for a phase named ``test`` (in any case:
  ``Test``, ``TEST``) and false for any other name;
- a hidden phase's scores are shown to nobody until ``simeval serve publish``, after its
  deadline; its uploads follow :mod:`.hidden`'s rule (a file is refused only for what the
  input file shows; warnings come from the file and the input alone);
- no benchmark may be in both a visible and a hidden phase, counting a suite's members
  (``sts12`` in a visible phase and ``sts12-msrvid`` in a hidden one are refused): scores
  shown in the one would reveal the gold of the other. This holds across every campaign of
  the server (a new campaign is checked against every phase already in the database, both
  ways), and by items as well as by name: a visible and a hidden benchmark may not share a
  word pair or a sentence pair (either order, compared case-folded; ``men`` and ``men-test``,
  ``rg65`` and ``mc30`` are refused). Document-linking targets are compared by name only;
- a phase's input files are served only once it opens (403 before).

Public and private boards (:mod:`.split_rule`): ``public_share``, a number between 0 and 1
(exclusive), makes the live board score that share of the items; the rest rank each team's
final runs (``final_runs``, a whole number, 2 when left out) after the deadline. The split's
secret seed is drawn when the campaign is created. Its private items are kept as a hidden
phase's gold is: a split phase is checked against every phase that shows scores (visible,
split or not) as a hidden phase is, by name and by items (``simverb3500-test`` split beside
a visible ``simverb3500`` is refused), and so is a phase split later (``simeval serve split``).
"""

from __future__ import annotations

import math
import re
import threading
import tomllib
import unicodedata
from collections.abc import Callable, Collection, Mapping
from dataclasses import MISSING, dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import func, select

from simeval.data.textio import sha256_file
from simeval.errors import InputError
from simeval.serve.db import Database
from simeval.serve.db.models import (
    Campaign,
    Exclusion,
    Phase,
    Team,
    naive,
    utc,
)
from simeval.serve.service.items import Item, item_key
from simeval.serve.service.organisers import COMMAND_LINE, audit
from simeval.serve.service.split_rule import (
    new_seed,
    share_text,
)

Check = Callable[[dict[str, Any], str, "Path | None", dict[str, Any]], Any]
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")  # the whole value (fullmatch)
CAMPAIGN_KEYS = {"name", "title", "registry", "registration", "max_teams", "inputs", "phase"}
INPUTS = ("drawn", "published")  # how inputs are handed out (:mod:`simeval.kinds.handout`)
REGISTRATION = ("open", "approval", "closed")  # approval: a team waits for the organiser
MAX_NUMBER = 2**31 - 1  # runs, max_bytes, max_teams: an Integer column (PostgreSQL's: 32 bits)
MAX_TITLE = 200  # the title column's length
BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")  # reorder what follows


def check_name(value: Any, what: str, path: Path | None = None) -> str:
    if not isinstance(value, str) or not NAME.fullmatch(value):
        raise InputError(
            path, None, f"{what} {value!r}: use 1-64 letters, digits, '-' or '_' (first a letter)"
        )
    return value


Gold = tuple[tuple[str, str, str], ...]  # (benchmark, stored gold file, its sha256), sorted


class Targets:
    """Loaded benchmarks and suites by (campaign registry files, name), loaded once, and the
    registries they come from."""

    def __init__(self) -> None:
        self._loaded: dict[tuple[tuple[str, ...], str], Any] = {}
        self._registries: dict[tuple[str, ...], Any] = {}
        self._lock = threading.Lock()  # uploads arriving together load a target once

    def get(self, registry: list[str], name: str, gold: Gold = ()) -> Any:
        """Target ``name``; ``gold``: the benchmarks whose gold an organiser replaced, each
        with the file read instead (:mod:`.gold`), part of what a loaded target is kept by."""
        key = (tuple(registry), name, *gold)
        with self._lock:
            if key not in self._loaded:
                reg = self._registry(registry)
                if gold:
                    reg = reg.with_gold({b: (Path(path), sha) for b, path, sha in gold})
                self._loaded[key] = self._load(reg, name)
            return self._loaded[key]

    def registry(self, registry: list[str]) -> Any:
        """The registry of the built-in catalog and the files ``registry``."""
        with self._lock:
            return self._registry(registry)

    def _registry(self, registry: list[str]) -> Any:
        from simeval.registry import Registry

        key = tuple(registry)
        if key not in self._registries:
            self._registries[key] = Registry.default([Path(p) for p in registry])
        return self._registries[key]

    @staticmethod
    def _load(reg: Any, name: str) -> Any:
        from simeval.datasets.loading import load

        reg.check(name)
        if name not in reg.names:  # a path is not a target: files stay the organiser's
            raise InputError(None, None, f"{name!r} is not a benchmark or suite name")
        members = reg.expand(name)
        if members != [name]:
            parts = ", ".join(members)
            raise InputError(None, None, f"{name} is a group; name its parts as targets: {parts}")
        return load(reg, name)


def check_target(target: Any) -> None:
    """Refuse what an upload cannot answer: a group of suites (no file of its own)."""
    from simeval.serve.service.archive import is_multi_file

    need = ["requests", "read_submission"]
    parts = [target]
    if is_multi_file(target):  # a zip of the members' files: each member names its file
        need.append("submission_file")
        parts = target.members
    if not all(hasattr(p, n) for p in parts for n in need):
        raise InputError(None, None, f"{target.name} cannot be a target: no file answers it")


def check_time(value: Any, where: str, path: Path | None) -> datetime:
    """``value`` (a TOML time or ISO text) as an aware UTC time; refused without a zone."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise InputError(path, None, f"{where}: not a time: {value!r}") from None
    if not isinstance(value, datetime) or value.tzinfo is None:
        raise InputError(path, None, f"{where}: give a time with its zone (…T00:00:00Z)")
    try:
        return value.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00:00+01:00 is before the first UTC time
        raise InputError(path, None, f"{where}: {value.isoformat()} is out of range") from None


def check_whole(value: Any, where: str, path: Path | None) -> int:
    """``value`` as a whole number from 1 to :data:`MAX_NUMBER` (an Integer column)."""
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_NUMBER:
        raise InputError(
            path,
            None,
            f"{where}: expected a whole number ≥ 1 (at most {MAX_NUMBER:,}), got {value!r}",
        )
    return value


def check_share(value: Any, where: str, path: Path | None) -> float | None:
    """``value`` as a phase's public share: None (no split) or a number strictly between 0
    and 1."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1:
        raise InputError(
            path, None, f"{where}: expected a number between 0 and 1 (0.3: 30%), got {value!r}"
        )
    return float(value)


def _title(value: Any, name: str, path: Path) -> str:
    """The campaign's title (its name when left out): text of at most :data:`MAX_TITLE`
    characters, none of them a control character or a bidirectional override (it reaches
    pages, terminals, exports)."""
    if value is None:
        return name
    if not isinstance(value, str):
        raise InputError(path, None, f"title: expected text, got {value!r}")
    if len(value) > MAX_TITLE:
        raise InputError(path, None, f"title: at most {MAX_TITLE} characters, not {len(value):,}")
    control = next((c for c in value if unicodedata.category(c) == "Cc" or c in BIDI), None)
    if control is not None:
        raise InputError(path, None, f"title: holds the control character U+{ord(control):04X}")
    return value


def _list_of_text(value: Any, where: str, what: str, path: Path) -> list[str]:
    """``value`` if it is a list of distinct non-empty strings, else an error naming ``where``."""
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise InputError(path, None, f"{where}: expected a list of {what}, got {value!r}")
    twice = sorted({v for v in value if value.count(v) > 1})
    if twice:
        raise InputError(path, None, f"{where}: {', '.join(twice)} named twice")
    return value


def _given(check: Callable[[Any, str, Path | None], Any], key: str, *default: Any) -> Check:
    """A field's check from a ``check(value, what, path)`` helper: the value under ``key``
    (``default``, when given, if the file leaves it out)."""

    def checked(raw: dict[str, Any], where: str, path: Path | None, read: dict[str, Any]) -> Any:
        value = raw.get(key, *default) if default else raw[key]
        return check(value, f"{where} {key}", path)

    return checked


def _targets(raw: dict[str, Any], where: str, path: Path | None, read: dict[str, Any]) -> list:
    targets = _list_of_text(raw["targets"], f"{where} targets", "benchmark names", path)
    if not targets:
        raise InputError(path, None, f"{where}: targets is a list of benchmark names")
    return [str(t) for t in targets]


def _deadline(raw: dict[str, Any], where: str, path: Path | None, read: dict[str, Any]) -> datetime:
    deadline = check_time(raw["deadline"], f"{where} deadline", path)
    if deadline <= read["opens"]:
        raise InputError(path, None, f"{where}: the deadline must come after the opening")
    return deadline


def _hidden(raw: dict[str, Any], where: str, path: Path | None, read: dict[str, Any]) -> bool:
    hidden = raw.get("hidden", read["name"].lower() == "test")
    if not isinstance(hidden, bool):
        raise InputError(
            path,
            None,
            f"{where} ({read['name']}): hidden must be true or false (a TOML boolean, "
            f"without quotes), not {hidden!r}",
        )
    return hidden


def _combine(raw: dict[str, Any], where: str, path: Path | None, read: dict[str, Any]) -> str:
    from simeval.report.leaderboard import COMBINE

    combine = raw.get("combine", "sum")
    if combine not in COMBINE:
        raise InputError(
            path, None, f"{where}: combine = {combine!r}: use {', '.join(map(repr, COMBINE))}"
        )
    return str(combine)


def _per_day(raw: dict[str, Any], where: str, path: Path | None, read: dict[str, Any]) -> Any:
    per_day = raw.get("per_day")
    return None if per_day is None else check_whole(per_day, f"{where} per_day", path)


def phase_field(
    check: Check, key: bool = True, stored: bool = True, optional: bool = False
) -> dict[str, Any]:
    """A :class:`PhaseSpec` field's metadata: its ``check`` (the file's table, ``where`` for
    errors, the path, the fields read before it → the value), whether it is a ``key`` of the
    file's ``[[phase]]`` (``optional``: the file may leave it out, as it may any key with a
    default) and a column of the ``phase`` row (``stored``, of the same name)."""
    return {"check": check, "key": key, "stored": stored, "optional": optional}


@dataclass(kw_only=True)
class PhaseSpec:
    """A phase as a campaign file (or the console's form) declares it, the one declaration of
    its fields: each one's type, default, check (applied by :func:`read_phase` in this order)
    and place (a key of ``[[phase]]``, a column of the ``phase`` row: :func:`phase_row`,
    :func:`phase_spec`). A new phase setting is a field here (and its column and migration)."""

    name: str = field(metadata=phase_field(_given(check_name, "name")))
    targets: list[str] = field(metadata=phase_field(_targets))
    opens: datetime = field(metadata=phase_field(_given(check_time, "opens")))
    deadline: datetime = field(metadata=phase_field(_deadline))
    hidden: bool = field(metadata=phase_field(_hidden, optional=True))  # default: named test
    # the file left ``hidden`` out: the phase's name decided
    hidden_default: bool = field(
        default=False,
        metadata=phase_field(lambda raw, *_: "hidden" not in raw, key=False, stored=False),
    )
    combine: str = field(default="sum", metadata=phase_field(_combine))  # leaderboard.COMBINE
    runs: int = field(metadata=phase_field(_given(check_whole, "runs")))
    max_bytes: int = field(metadata=phase_field(_given(check_whole, "max_bytes")))
    # scored runs per team and target in any 24 hours
    per_day: int | None = field(default=None, metadata=phase_field(_per_day))
    # the live board's share of the items (None: all)
    public_share: float | None = field(
        default=None, metadata=phase_field(_given(check_share, "public_share", None))
    )
    # the runs a team picks for the private board
    final_runs: int = field(default=2, metadata=phase_field(_given(check_whole, "final_runs", 2)))


PHASE_FIELDS = fields(PhaseSpec)
PHASE_KEYS = {f.name for f in PHASE_FIELDS if f.metadata["key"]}
# a phase may leave these out (public_share, final_runs: a public/private split, :mod:`.split_rule`)
OPTIONAL_KEYS = {
    f.name
    for f in PHASE_FIELDS
    if f.metadata["key"] and (f.metadata["optional"] or f.default is not MISSING)
}
_TIMES = {"opens", "deadline"}  # stored naive (UTC), read back as UTC


def phase_spec(row: Phase) -> PhaseSpec:
    """The phase of a ``phase`` row, as its file declared it (``hidden_default`` unknown:
    False)."""
    stored = {f.name: getattr(row, f.name) for f in PHASE_FIELDS if f.metadata["stored"]}
    times = {k: utc(stored[k]) for k in _TIMES}
    return PhaseSpec(**{**stored, **times, "targets": list(row.targets)})


@dataclass
class Registration:
    """Whether teams may register themselves, and up to how many."""

    state: str = "open"
    max_teams: int | None = None


def read_registration(doc: dict[str, Any], path: Path) -> Registration:
    state = doc.get("registration", "open")
    if state not in REGISTRATION:
        raise InputError(
            path, None, f'registration = {state!r}: use "open", "approval" or "closed"'
        )
    max_teams = doc.get("max_teams")
    if max_teams is not None:
        max_teams = check_whole(max_teams, "max_teams", path)
    return Registration(state, max_teams)


def campaign_doc(path: Path) -> dict[str, Any]:
    """The TOML document of the campaign file ``path`` (UTF-8, a byte-order mark allowed)."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        raise InputError(path, None, "no such campaign file") from None
    except UnicodeDecodeError as exc:
        byte = exc.object[exc.start]
        raise InputError(
            path, None, f"not valid UTF-8 (byte {byte:02x} at offset {exc.start}); save it as UTF-8"
        ) from None
    except OSError as exc:
        raise InputError(path, None, f"cannot read the campaign file: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(path, None, f"not a TOML campaign file: {exc}") from None


def _registry_file(path: Path, written: str) -> str:
    """A registry file of the campaign file ``path`` (relative to it), which must be a file."""
    shown = written if len(written) <= 80 else written[:80] + "…"
    try:
        found = (path.parent / written).resolve()
        if found.is_file():
            return str(found)
    except OSError as exc:  # a name too long for the file system, a loop of links
        raise InputError(path, None, f"registry: {shown!r}: {exc.strerror}") from None
    raise InputError(path, None, f"registry: {shown!r}: no such registry file")


def read_campaign_file(path: Path) -> tuple[str, str, list[str], list[PhaseSpec]]:
    """(name, title, registry files, phases) of a campaign file, checked, the phases in the
    order they open (then as the file declares them; :func:`read_registration` reads its
    registration keys)."""
    doc = campaign_doc(path)
    unknown = set(doc) - CAMPAIGN_KEYS
    if unknown:
        known = ", ".join(sorted(CAMPAIGN_KEYS))
        raise InputError(path, None, f"unknown key(s) {sorted(unknown)}; known: {known}")
    name = check_name(doc.get("name"), "campaign name", path)
    files = _list_of_text(doc.get("registry", []), "registry", "registry file paths", path)
    registry = [_registry_file(path, p) for p in files]
    tables = doc.get("phase", [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise InputError(path, None, "phase: expected [[phase]] tables (an array of tables)")
    phases = [read_phase(spec, f"phase {i}", path) for i, spec in enumerate(tables, start=1)]
    if not phases:
        raise InputError(path, None, "no [[phase]]: a campaign needs at least one")
    if len({p.name.casefold() for p in phases}) != len(phases):
        raise InputError(
            path, None, "two phases have the same name (names are compared ignoring case)"
        )
    phases.sort(key=lambda p: p.opens)  # stable: phases opening together keep the file's order
    return name, _title(doc.get("title"), name, path), registry, phases


def read_phase(spec: dict[str, Any], where: str, path: Path | None) -> PhaseSpec:
    """One phase's table (of a campaign file, or the console's form as the file would say
    it), checked; ``where`` names it in errors."""
    unknown = set(spec) - PHASE_KEYS
    if unknown:
        known = ", ".join(sorted(PHASE_KEYS))
        raise InputError(path, None, f"{where}: unknown key(s) {sorted(unknown)}; known: {known}")
    missing = PHASE_KEYS - OPTIONAL_KEYS - set(spec)
    if missing:
        raise InputError(path, None, f"{where}: missing {sorted(missing)}")
    read: dict[str, Any] = {}
    for f in PHASE_FIELDS:  # in their order: a check may read the fields before it
        read[f.name] = f.metadata["check"](spec, where, path, read)
    return PhaseSpec(**read)


def phase_lines(path: Path) -> list[str]:
    """One line per phase of the campaign file ``path``: its targets and whether its scores
    are hidden, saying when that was the default (so an organiser sees a test phase left
    visible, or a phase hidden for its name)."""
    lines = []
    for p in read_campaign_file(path)[3]:
        shown = "hidden" if p.hidden else "visible"
        if p.hidden_default:
            why = "a phase named test" if p.hidden else "any phase not named test"
            shown += f" (hidden not set in the file: the default for {why})"
        if p.public_share is not None:
            shown += (f"; live board on a public {share_text(p.public_share)} of the pairs, "
                      f"{p.final_runs} final run(s) per team")  # fmt: skip
        lines.append(f"  phase {p.name}: {', '.join(p.targets)}; scores {shown}")
    return lines


def check_campaign_file(path: Path) -> tuple[str, str, list[str], list[PhaseSpec], Registration]:
    """What the campaign file ``path`` says, checked as far as the file alone shows (its
    targets are loaded by :func:`create_campaign`)."""
    name, title, registry, phases = read_campaign_file(path)
    return name, title, registry, phases, read_registration(campaign_doc(path), path)


def read_inputs(doc: dict[str, Any], path: Path) -> str:
    """How the campaign hands out its inputs: ``drawn`` (the default: an order and ids drawn
    from a secret, :mod:`simeval.kinds.handout`) or ``published`` (as the files were
    published; the leak audit then judges them)."""
    inputs = doc.get("inputs", "drawn")
    if inputs not in INPUTS:
        raise InputError(path, None, f"inputs: {' or '.join(map(repr, INPUTS))}, not {inputs!r}")
    return str(inputs)


def new_input_secret(inputs: str) -> str | None:
    """The secret that draws a new campaign's inputs (None: handed out as published)."""
    return new_seed() if inputs == "drawn" else None


def create_campaign(
    db: Database,
    path: Path,
    now: datetime,
    targets: Targets,
    allow_leaks: str | None = None,
    actor: str = COMMAND_LINE,
) -> Campaign:
    """Add the campaign of ``path`` (every target loaded and checked first; no benchmark or
    item both visible and hidden, within it or against any campaign already made; the leak
    audit's findings refuse it unless ``allow_leaks`` gives the reason to go on, which the
    audit log keeps: :mod:`.leaks`). ``actor``: an organiser (``organiser:NAME``) made it
    in the browser, which the audit log says (``create campaign``); the command line's
    campaigns are the machine operator's and have no entry."""
    from simeval.serve.service.leaks import audit_phase

    name, title, registry, phases, registration = check_campaign_file(path)
    secret = new_input_secret(read_inputs(campaign_doc(path), path))
    covers = {p.name: check_targets(targets, registry, p, path) for p in phases}
    check_hidden_apart(phases, covers, path)
    with db.session() as s:
        check_new_name(s, name, path)
    check_against_server(db, targets, name, registry, phases, path)
    findings = [
        f
        for p in phases
        for f in audit_phase(p.name, [targets.get(registry, t) for t in p.targets], secret)
    ]
    check_findings(findings, allow_leaks, path)
    with db.session() as s:
        check_new_name(s, name, path)
        campaign = Campaign(
            name=name,
            title=title,
            registry_files=registry,
            created=naive(now),
            registration=registration.state,
            max_teams=registration.max_teams,
            input_secret=secret,
        )
        s.add(campaign)
        for p in phases:
            s.add(phase_row(p, campaign=campaign))
        s.flush()
        if findings:
            record_override(s, now, actor, campaign.id, findings, str(allow_leaks))
        if actor != COMMAND_LINE:  # from the browser: which organiser made it, from what file
            record_creation(s, now, actor, campaign.id, path, [p.name for p in phases])
    return campaign


def record_creation(
    s: Any, now: datetime, actor: str, campaign_id: int, path: Path, phases: list[str]
) -> None:
    """The audit log's entry for a campaign an organiser made in the browser: the file's
    sha256 and the phases."""
    audit(s, now, actor, campaign_id, "create campaign", file=path.name,
          sha256=sha256_file(path), phases=phases)  # fmt: skip


def check_findings(findings: list[Any], allow_leaks: str | None, path: Path | None) -> None:
    """Refuse a phase for the leak audit's ``findings`` unless ``allow_leaks`` gives a reason."""
    from simeval.serve.service.leaks import refusal

    if findings and not (allow_leaks or "").strip():
        raise InputError(path, None, refusal(findings))


def record_override(
    s: Any, now: datetime, actor: str, campaign_id: int, findings: list[Any], reason: str
) -> None:
    """The audit log's entry for phases saved despite the leak audit's ``findings``."""
    audit(s, now, actor, campaign_id, "leak-override", reason=reason.strip(),
          findings=[str(f) for f in findings])  # fmt: skip


def phase_row(p: PhaseSpec, **campaign: Any) -> Phase:
    """The row of a checked phase; ``campaign``: ``campaign=`` its row or ``campaign_id=``."""
    stored = {f.name: getattr(p, f.name) for f in PHASE_FIELDS if f.metadata["stored"]}
    times = {k: naive(stored[k]) for k in _TIMES}
    split_seed = None if p.public_share is None else new_seed()
    return Phase(**campaign, **{**stored, **times}, split_seed=split_seed)


def check_targets(
    targets: Targets, registry: list[str], p: PhaseSpec, path: Path | None
) -> set[str]:
    """Load and check each target of ``p`` (it loads, a file answers it, its views name
    columns it has); the benchmarks the phase scores, suites' members too."""
    covers: set[str] = set()
    for t in p.targets:
        try:
            loaded = targets.get(registry, t)
            check_target(loaded)
            check_views(targets.registry(registry).entries, loaded)
        except InputError as exc:
            raise InputError(path, None, f"phase {p.name}: target {t}: {exc}") from None
        members = {m.name for m in getattr(loaded, "members", None) or []}
        covers.update({loaded.name, *members})
    return covers


def check_against_server(
    db: Database,
    targets: Targets,
    campaign: str,
    registry: list[str],
    phases: list[PhaseSpec],
    path: Path | None,
    skip: Collection[int] = (),
) -> None:
    """Refuse new ``phases`` of ``campaign`` that share a benchmark or an item, one showing
    scores and one hidden or split, with each other or with any phase already in the
    database but those of ids ``skip`` (a phase checked again as it will be: module
    docstring)."""
    new = [
        Scope(
            campaign, p.name, p.hidden, scored_items(targets, registry, p.targets), p.public_share
        )
        for p in phases
    ]
    with db.reading() as s:
        rows = s.execute(
            select(Campaign.name, Campaign.registry_files, Phase.name, Phase.hidden,
                   Phase.targets, Phase.public_share, Phase.id)
            .join(Phase)
            .order_by(Campaign.id, Phase.id)
        ).all()  # fmt: skip
    old = []
    for cname, creg, pname, hidden, ptargets, share, pid in rows:
        if pid in skip:
            continue
        try:
            items = scored_items(targets, list(creg or []), list(ptargets))
        except Exception as exc:  # cannot be compared: refuse rather than risk a leak
            raise InputError(
                path,
                None,
                f"cannot check against campaign {cname} phase {pname}: a target does not "
                f"load ({exc})",
            ) from None
        old.append(Scope(cname, pname, bool(hidden), items, share))
    for i, a in enumerate(new):
        for b in (*new[i + 1 :], *old):
            check_apart(a, b, path)


def check_new_name(s: Any, name: str, path: Path) -> None:
    """Refuse a campaign name already taken, in any case (``Lex25`` beside ``lex25``)."""
    taken = s.scalar(select(Campaign.name).where(func.lower(Campaign.name) == name.lower()))
    if taken is not None:
        raise InputError(path, None, f"a campaign named {taken} exists already")


def item_columns(benchmark: Any) -> set[str]:
    """The columns of ``benchmark``'s per-item rows: its task kind's and its gold's own."""
    gold = getattr(benchmark, "gold", None)
    own = getattr(benchmark, "columns", None) or getattr(gold, "columns", None) or {}
    return {*benchmark.task_kind.columns, *own}


def check_views(entries: dict[str, Any], target: Any) -> None:
    """Refuse a view of a target's registry entry (``entries``: the registry's, by name) over
    a column its items lack (the report would leave the view out without a word): found
    now, not when the campaign's report is made."""
    for b in getattr(target, "members", None) or [target]:
        views = getattr(entries.get(b.name), "views", ())
        have = item_columns(b) if views else set()
        for view in views:
            lacking = [c for c in view.columns if c not in have]
            if lacking:
                raise InputError(
                    None,
                    None,
                    f"{b.name}: the view {view.name!r} names column(s) {', '.join(lacking)}, "
                    f"which its gold does not have ({', '.join(sorted(have))})",
                )


def check_hidden_apart(phases: list[PhaseSpec], covers: dict[str, set[str]], path: Path) -> None:
    """Refuse a benchmark scored in both a phase that shows scores and one that keeps them
    (hidden, or a split's private part: module docstring)."""
    for shown in (p for p in phases if not p.hidden):
        for kept in (p for p in phases if p is not shown and _keeps(p.hidden, p.public_share)):
            both = sorted(covers[shown.name] & covers[kept.name])
            if both:
                raise InputError(
                    path,
                    None,
                    f"{', '.join(both)} in both the {_kind(False, shown.public_share)} phase "
                    f"{shown.name} and the {_kind(kept.hidden, kept.public_share)} phase "
                    f"{kept.name}: its scores in {shown.name} would show the gold of "
                    f"{kept.name}; give each phase its own benchmarks",
                )


def _keeps(hidden: bool, public_share: float | None) -> bool:
    """Whether a phase keeps scores of some of its items from view until later: a hidden
    phase (until published), a split phase (its private items, until the deadline)."""
    return hidden or public_share is not None


def _kind(hidden: bool, public_share: float | None) -> str:
    """A phase as the refusals name it: hidden, split (public/private) or visible."""
    return "hidden" if hidden else "split" if public_share is not None else "visible"


@dataclass
class Scope:
    """A phase as the hidden-apart rule sees it: the items of each benchmark it scores (a
    suite's members each on their own; ``None`` for a benchmark compared by name only), and
    whether it is hidden or split (``public_share``)."""

    campaign: str
    phase: str
    hidden: bool
    items: dict[str, set[Item] | None]
    public_share: float | None = None

    @property
    def keeps(self) -> bool:
        """Whether some of its items' scores are kept from view (:func:`_keeps`)."""
        return _keeps(self.hidden, self.public_share)

    def __str__(self) -> str:
        return f"the {_kind(self.hidden, self.public_share)} phase {self.phase} of campaign " + (
            self.campaign
        )


def pairs_of(benchmark: Any) -> set[Item] | None:
    """The word or sentence pairs ``benchmark`` asks for; ``None`` when it asks for
    something else (document linking: compared by name only)."""
    found: set[Item] = set()
    for request in benchmark.requests():
        pairs = getattr(request, "pairs", None)  # word or text pairs; documents have none
        if pairs is None:
            return None
        found.update(item_key(p) for p in pairs)
    return found


def scored_items(targets: Targets, registry: list[str], names: list[str]) -> dict[str, Any]:
    """Each benchmark the targets ``names`` score (a suite's members each), with its pairs."""
    out: dict[str, set[Item] | None] = {}
    for t in names:
        loaded = targets.get(registry, t)
        for b in getattr(loaded, "members", None) or [loaded]:
            if b.name not in out:
                out[b.name] = pairs_of(b)
    return out


def check_apart(a: Scope, b: Scope, path: Path | None) -> None:
    """Refuse when one of ``a`` and ``b`` shows its scores (not hidden) and the other keeps
    some from view (hidden, or split: its private items), and they share a benchmark (by
    name) or an item (module docstring)."""
    for shown, kept in ((a, b), (b, a)):
        if not shown.hidden and kept.keeps:
            _check_apart(shown, kept, path)


def _check_apart(shown: Scope, hidden: Scope, path: Path | None) -> None:
    both = sorted(set(shown.items) & set(hidden.items))
    if both:
        raise InputError(
            path,
            None,
            f"{', '.join(both)} in both {shown} and {hidden}: its scores in {shown.phase} "
            f"would show the gold of {hidden.phase}; give each phase its own benchmarks",
        )
    for v, v_items in shown.items.items():
        for h, h_items in hidden.items.items():
            if not v_items or not h_items:
                continue
            shared = len(v_items & h_items)
            if shared:
                raise InputError(
                    path,
                    None,
                    f"{v} in {shown} and {h} in {hidden} share {shared:,} item(s) (word or "
                    f"sentence pairs, in either order): scores of {v} would show the gold of "
                    f"{h}; give each phase benchmarks without common pairs",
                )


def find_campaign(s: Any, campaign: str) -> Campaign:
    """The campaign named ``campaign`` in session ``s`` (refused when there is none)."""
    found = s.scalar(select(Campaign).where(Campaign.name == campaign))
    if found is None:
        raise InputError(None, None, f"no campaign {campaign!r}")
    return found


def campaign_id(db: Database, campaign: str) -> int:
    """The id of the campaign named ``campaign`` (refused when there is none)."""
    with db.reading() as s:
        return find_campaign(s, campaign).id


def excluded_runs(s: Any, *where: Any) -> list[tuple[int, str, int, str, str, str | None]]:
    """``(phase id, team, run, kind, reason, target)`` of the disqualified and withdrawn runs
    that match ``where``, by team, run and target (None, every target, first): the one query
    the board, the console and the export read them with."""
    return [
        tuple(row)
        for row in s.execute(
            select(Exclusion.phase_id, Team.name, Exclusion.run, Exclusion.kind, Exclusion.reason,
                   Exclusion.target)
            .join(Team, Exclusion.team_id == Team.id)
            .where(*where)
            .order_by(Team.name, Exclusion.run, func.coalesce(Exclusion.target, ""))
        )
    ]  # fmt: skip


V = TypeVar("V")


def exclusion_on(found: Mapping[tuple[Any, str | None], V], run: Any, target: str) -> V | None:
    """What ``found`` (keyed by ``(run, target)``, target None for a whole run's
    exclusion) holds for ``run``'s file on ``target``: its target's exclusion, else its whole
    run's, else None."""
    mine = found.get((run, target))
    return mine if mine is not None else found.get((run, None))


def find_phase(s: Any, campaign: str, phase: str) -> Phase:
    found = s.scalar(
        select(Phase).join(Campaign).where(Campaign.name == campaign, Phase.name == phase)
    )
    if found is None:
        raise InputError(None, None, f"no phase {phase!r} in a campaign {campaign!r}")
    return found


def input_file(target: Any, secret: str | None = None) -> tuple[str, bytes] | None:
    """What participants score for ``target``, without the gold: its task kind's input file
    (:meth:`simeval.kinds.base.TaskKind.input_file`), or for a suite of one file per member
    a zip of its members' (None when one has none); ``secret``: the campaign's, which draws
    the items' order and ids (:mod:`simeval.kinds.handout`)."""
    from simeval.serve.service.archive import is_multi_file, pack
    from simeval.serve.service.hidden import file_kind

    if is_multi_file(target):
        files = [input_file(m, secret) for m in target.members]
        if any(f is None for f in files):
            return None
        return f"{target.name}-inputs.zip", pack([f for f in files if f is not None])
    return file_kind(target).input_file(target, secret)


def json_safe(value: Any) -> Any:
    """``value`` with NaN and infinities as None (JSON columns of every dialect take it)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value
