"""The export of a campaign (``simeval serve export``): every upload, each phase's results folder
and final leaderboard, the overview paper's tables, fact sheets and, for a split phase past its
deadline, how its public board predicted the private one; optionally anonymised, with every team
and file name looked for once more in what was written before it is kept (:func:`export`).

The campaign itself (its file, its checks, creating it) is :mod:`.campaigns`.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from collections.abc import Collection
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import select

from simeval.data.atomic import staged, write_atomic
from simeval.errors import InputError
from simeval.report.format import sheet_text
from simeval.serve.db import Database
from simeval.serve.db.models import SCORED, Exclusion, FactSheet, Phase, Submission, Team, utc
from simeval.serve.db.storage import Storage, outside
from simeval.serve.service.campaigns import excluded_runs, exclusion_on, find_campaign
from simeval.serve.service.split_rule import PRIVATE, PUBLIC, is_split, parts, revealed


def cell(value: Any) -> Any:
    """A CSV cell a spreadsheet shows as text: a string that begins like a formula (``=``,
    ``+``, ``-``, ``@``, tab, carriage return) gets a leading ``'`` (OWASP's advice)."""
    return sheet_text(value) if isinstance(value, str) else value


def export(
    db: Database,
    storage: Storage,
    campaign: str,
    out: Path,
    anonymise: bool = False,
    key: Path | None = None,
    top: int = 0,
    keep_dominated: bool = False,
    now: datetime | None = None,
) -> list[Path]:
    """Write every submission, its results and each phase's final leaderboard to ``out``:

    - ``submissions.csv``: one row per upload (scored or rejected) and ``submissions/<id>``,
      the bytes as received; a rejected upload whose bytes were pruned (the server keeps
      those of a team's latest rejected uploads only) has its row, ``stored`` = ``pruned``
      and no file; text cells that a spreadsheet would take for a formula begin with ``'``;
    - ``<phase>/``: a results folder (``results.jsonl`` + ``items/``) written by the results
      store: the records of scored runs, each named ``<team> run <n>``, for ``simeval
      results``/``leaderboard``/``report <phase>``;
    - ``<phase>/leaderboard.{md,csv,tex,html}``: RUSSE Table 5 (dominated runs dropped);
    - ``<phase>/factsheets.md``: each team's description of its system, where teams gave one;
    - ``<phase>/final.{csv,tex,md}``, with ``top`` ``<phase>/top.{csv,tex,md}``, and
      ``<phase>/per-item/<benchmark>.csv``: the tables for the overview paper with rank tiers
      (``keep_dominated``: no run dropped) and every run's per-item scores
      (:mod:`.paper`);
    - ``<phase>/public_private.{md,csv}``: for a split phase past its deadline (``now``, the
      clock's time by default), how well its public board predicted the private one
      (:mod:`.public_private`).

    The folder is written under a temporary name and renamed when complete, its files 0600
    and folders 0700 whatever the umask (the teams' files and results); a folder inside the
    server's storage folder is refused (it would be kept and backed up with the data).

    ``anonymise``: every team is ``team-NN`` instead (numbered in a random order, so the
    numbers do not tell who registered first), field by field (:class:`Anonymiser`): the
    CSV's team column, the records' system names and the tables drawn from them; in free
    texts (the reasons of exclusions, the refusals' messages, the records' warnings, the
    fact sheets) each name standing as a whole word; the files' own names (``client_name``)
    are left out (``<file>``). Nothing else is touched: a team named ``spearman`` leaves the
    metric's key as it was. The mapping goes to ``key`` (a CSV outside the export) when
    given, else nowhere. The export is then read back and refused if any team name or client
    file name still occurs in any of its text files (:func:`_leaks`).
    """
    outside(out, storage.root, "export", "the server's storage folder")
    if out.exists() and any(out.iterdir()):
        raise InputError(out, None, "exists and is not empty: export into a new folder")
    with db.session() as s:
        c = find_campaign(s, campaign)
        phases = list(c.phases)
        subs = s.scalars(
            select(Submission)
            .join(Phase)
            .where(Phase.campaign_id == c.id)
            .order_by(Submission.received, Submission.id)
        ).all()
        names = [t for (t,) in s.execute(select(Team.name).where(Team.campaign_id == c.id))]
        alias = _aliases(names) if anonymise else {n: n for n in names}
        secrets_ = [*names, *{sub.client_name for sub in subs if sub.client_name}]
        if anonymise and key is not None and key.resolve().is_relative_to(out.resolve()):
            raise InputError(key, None, "the key names every team: keep it outside the export")
        scrub = Anonymiser(alias, {sub.client_name for sub in subs}) if anonymise else None
        said = scrub.text if scrub else str
        rows = [(sub, alias[sub.team.name], sub.phase.name) for sub in subs]
        sheets = s.execute(
            select(Phase.name, Team.name, FactSheet.text)
            .join(Phase, FactSheet.phase_id == Phase.id)
            .join(Team, FactSheet.team_id == Team.id)
            .where(Phase.campaign_id == c.id, FactSheet.text != "")
            .order_by(Team.name)
        ).all()
        named = {p.id: p.name for p in phases}
        out_of = {
            ((named[pid], f"{alias[team]} run {run}"), target): (kind, said(reason))
            for pid, team, run, kind, reason, target in excluded_runs(
                s, Exclusion.phase_id.in_([*named])
            )
        }
    with staged(out, folder=True, private=True) as tmp:  # the whole export or nothing
        written = [_submissions_csv(rows, storage, tmp, out_of, scrub)]
        for p in phases:
            scored = [(sub, team) for sub, team, phase in rows if phase == p.name]
            scored = [(sub, team) for sub, team in scored if sub.status == SCORED
                      and _excluded(out_of, p.name, team, sub) is None]  # fmt: skip
            # the results file in the phase's order of targets: what `simeval leaderboard`
            # reads its columns' order from, as the phase's own table has them
            scored.sort(key=lambda x: _target_rank(p.targets, x[0].target))
            title = f"{c.title}: {p.name}"
            written += _phase_folder(scored, storage, tmp / p.name, title, p.targets, scrub,
                                     p.combine, (keep_dominated, top))  # fmt: skip
            if is_split(p) and revealed(p, now or datetime.now(UTC)):
                written += _public_private(db, storage, p, scored, tmp / p.name, title, scrub)
            told = [(alias[team], scrub.text(text) if scrub else text)
                    for phase, team, text in sheets if phase == p.name]  # fmt: skip
            if told:
                path = tmp / p.name / "factsheets.md"
                path.write_text(fact_sheets_md(f"{title}: fact sheets", told), encoding="utf-8")
                written.append(path)
        if anonymise:
            found = _leaks(tmp, secrets_, _vocabulary(tmp))
            if found:
                raise InputError(None, None, f"the anonymised export would name a team or a "
                                 f"file in {found}; nothing was written")  # fmt: skip
    if anonymise and key is not None:
        lines = "".join(f"{cell(alias[n])},{cell(n)}\n" for n in sorted(names, key=alias.get))
        write_atomic(key, ("alias,team\n" + lines).encode(), mode=0o600)
    return [out / path.relative_to(tmp) for path in written]


def fact_sheets_md(title: str, sheets: list[tuple[str, str]]) -> str:
    """A phase's ``factsheets.md``: ``title``, then for each ``(team, text)`` (by team) a
    section headed by the team's name and its text in a fenced code block whose fence is one
    backtick longer than the longest run of backticks in the text (three at least). So a team's
    text is shown exactly as written and read as nothing but text by a Markdown reader: it
    cannot open a heading (another team's section), a raw HTML tag, a link definition or a
    rule, nor close its own block."""
    parts = [f"# {_md_escape(title)}\n"]
    for team, text in sorted(sheets):
        longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
        fence = "`" * max(3, longest + 1)
        parts.append(f"\n## {_md_escape(team)}\n\n{fence}text\n{text.rstrip()}\n{fence}\n")
    return "".join(parts)


def _md_escape(text: str) -> str:
    """``text`` as literal Markdown inline text: each character that could start markup
    (emphasis, code, a link, an HTML tag or entity) backslash-escaped."""
    return re.sub(r"([\\`*_\[\]<>!&#~|])", r"\\\1", text)


def _target_rank(targets: list[str], target: str) -> int:
    return targets.index(target) if target in targets else len(targets)


def _public_private(
    db: Database,
    storage: Storage,
    p: Phase,
    scored: list[tuple[Submission, str]],
    folder: Path,
    title: str,
    scrub: Anonymiser | None,
) -> list[Path]:
    """A split phase's ``public_private`` files over the teams' final runs among ``scored``
    (its kept runs, ``(row, team as exported)``)."""
    from simeval.serve.service.picks import phase_finals
    from simeval.serve.service.public_private import public_private_files
    from simeval.serve.service.results import stored_records

    finals = phase_finals(db, p)
    runs = []
    for sub, team in scored:
        if sub.team.baseline or (sub.team.name, sub.run) not in finals:
            continue
        both = [parts.records(*stored_records(storage, sub), p, part) for part in (PUBLIC, PRIVATE)]
        runs.append((team, sub.run or 0, *(scrub.records(r) if scrub else r for r in both)))
    return public_private_files(runs, p, folder, title)


def _aliases(names: list[str]) -> dict[str, str]:
    """``team-01`` … for ``names``, numbered in a random order."""
    import random

    shuffled = list(names)
    random.SystemRandom().shuffle(shuffled)
    width = max(2, len(str(len(names))))
    return {name: f"team-{i:0{width}d}" for i, name in enumerate(shuffled, 1)}


class Anonymiser:
    """What an anonymised export writes instead of names, by field, never over a whole text:
    a record's ``system.file`` (the client's file name) is ``<file>`` and its system name is the
    team's alias (:func:`.board_table.records_of` names it); a free text (an error message, a
    warning, an exclusion's reason, a fact sheet) has each team name and client file name that
    stands as a whole token (not inside a longer word; case-folded; the longest first, so ``Alpha``
    inside ``AlphaLab``'s name is not half replaced) replaced.
    A team named ``spearman`` or ``e`` thus leaves the metrics and the record's keys alone."""

    def __init__(self, alias: dict[str, str], files: set[str]) -> None:
        pairs = [(f, "<file>") for f in files if f] + list(alias.items())
        pairs.sort(key=lambda p: -len(p[0]))
        self._lookup = {k.casefold(): v for k, v in reversed(pairs)}  # a team's over a file's
        words = "|".join(re.escape(k) for k, _ in pairs)
        self._pattern = re.compile(rf"(?<!\w)(?:{words})(?!\w)", re.IGNORECASE) if pairs else None

    def text(self, value: str) -> str:
        """A free text with each name that stands as a whole token replaced."""
        if self._pattern is None:
            return value
        return self._pattern.sub(lambda m: self._lookup[m.group(0).casefold()], value)

    def records(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Result records with their file name and warnings anonymised, all else as it was."""
        return [self.record(r) for r in records]

    def record(self, record: dict[str, Any]) -> dict[str, Any]:
        out = dict(record)
        if isinstance(out.get("system"), dict) and "file" in out["system"]:
            out["system"] = {**out["system"], "file": "<file>"}
        if isinstance(out.get("warnings"), list):
            out["warnings"] = [self.text(w) if isinstance(w, str) else w for w in out["warnings"]]
        return out


def _vocabulary(folder: Path) -> set[str]:
    """The words the export's result records hold in fields no team chose (every key; every
    value but the system's and the warnings: benchmarks, metrics, tasks, data files),
    case-folded: an export holds them whatever the teams are called."""
    from simeval.results.store import RESULTS_FILE

    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                found.add(str(k).casefold())
                if k not in ("system", "warnings"):
                    walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, str):
            found.update(w.casefold() for w in re.findall(r"\w[\w.-]*", value))
            found.add(value.casefold())

    for path in folder.rglob(RESULTS_FILE):
        for line in path.read_text(encoding="utf-8").splitlines():
            walk(json.loads(line))
    return found


def _leaks(folder: Path, secrets_: list[str], known: Collection[str] = ()) -> list[str]:
    """``file: name`` for each of the export's text files (CSV, JSON lines, tables; gzip'd
    items read inside) that holds one of ``secrets_`` as a whole token, case-folded (names of
    fewer than 3 characters, ``team``, the aliases' own word, and the words ``known`` to the
    export itself (:func:`_vocabulary`: a team named ``spearman`` beside the metric) are not
    looked for: they occur in any text). The uploads themselves are the teams' data, as
    sent, and not read."""
    import gzip

    wanted = [s for s in secrets_
              if len(s) >= 3 and s.casefold() != "team" and s.casefold() not in known]  # fmt: skip
    if not wanted:
        return []
    pattern = re.compile(
        r"(?<!\w)(" + "|".join(re.escape(s) for s in wanted) + r")(?!\w)", re.IGNORECASE
    )
    found = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path.parent.name == "submissions":
            continue
        data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        hit = pattern.search(data.decode("utf-8", "replace"))
        if hit:
            found.append(f"{path.relative_to(folder).as_posix()}: {hit.group(0)!r}")
    return found


EXPORT_COLUMNS = (
    "id",
    "team",
    "phase",
    "target",
    "run",
    "status",
    "received",
    "sha256",
    "size",
    "client_name",
    "error",
    "stored",
    "excluded",  # disqualified or withdrawn by the organiser (ranked nowhere), else empty
    "excluded_reason",
)


def _excluded(
    out_of: dict[tuple[tuple[str, str], str | None], tuple[str, str]],
    phase: str,
    team: str,
    sub: Submission,
) -> tuple[str, str] | None:
    """``(kind, reason)`` of the exclusion that covers ``sub`` (its run's, or its target's
    file's) in ``out_of`` (:func:`_submissions_csv`), else None."""
    return exclusion_on(out_of, (phase, f"{team} run {sub.run}"), sub.target)


def _submissions_csv(
    rows: list[tuple[Submission, str, str]],
    storage: Storage,
    out: Path,
    out_of: dict[tuple[tuple[str, str], str | None], tuple[str, str]],
    scrub: Anonymiser | None = None,
) -> Path:
    """``submissions.csv`` and ``submissions/<id>`` (:func:`export`); ``out_of``: the excluded
    runs, ``{((phase, system), target): (kind, reason)}`` (target None: every target);
    ``scrub``: anonymising (no file names)."""
    (out / "submissions").mkdir(parents=True, exist_ok=True)
    table = io.StringIO()
    writer = csv.writer(table, lineterminator="\n")
    writer.writerow(EXPORT_COLUMNS)
    for sub, team, phase in rows:
        kept = storage.file(sub.id).is_file()
        if kept or sub.status == SCORED:  # a scored upload's file is never pruned
            shutil.copyfile(storage.file(sub.id), out / "submissions" / sub.id)
        values = [
            sub.id,
            team,
            phase,
            sub.target,
            sub.run or "",
            sub.status,
            utc(sub.received).isoformat(),
            sub.sha256,
            sub.size,
            "" if scrub else sub.client_name,
            scrub.text(sub.error or "") if scrub else sub.error or "",
            "yes" if kept else "pruned",
            *(_excluded(out_of, phase, team, sub) or ("", "")),
        ]
        writer.writerow([cell(v) for v in values])
    (out / "submissions.csv").write_text(table.getvalue(), encoding="utf-8")
    return out / "submissions.csv"


def _phase_folder(
    scored: list[tuple[Submission, str]],
    storage: Storage,
    folder: Path,
    title: str,
    order: list[str],
    scrub: Anonymiser | None = None,
    combine: str = "sum",
    paper: tuple[bool, int] = (False, 0),
) -> list[Path]:
    """A phase's results folder, written by the results store from the scored runs' own
    store files (items copied as they are), and its final leaderboard read back from it;
    ``paper``: (keep_dominated, top) of the paper's tables (:mod:`.paper`)."""
    from simeval.report.leaderboard import RENDERERS
    from simeval.report.page import page
    from simeval.results.store import ITEMS_FOLDER, load_results, save_records
    from simeval.serve.service.board_table import board, records_of, system_of
    from simeval.serve.service.paper import paper_files
    from simeval.serve.service.results import stored_records

    (folder / ITEMS_FOLDER).mkdir(parents=True, exist_ok=True)
    for sub, team in scored:
        found, source = stored_records(storage, sub)
        records = records_of([(team, sub.run or 0, scrub.records(found) if scrub else found)])
        kept = [source / r["items_file"] if r.get("items_file") else None for r in records]
        save_records(folder, records, kept)
    written = [save_records(folder, [])]  # the file, also for a phase without runs
    records = load_results(folder)
    if records:
        baselines = {system_of(team, sub.run or 0) for sub, team in scored if sub.team.baseline}
        final = board(records, prune=True, title=title, order=order, baselines=baselines,
                      combine=combine)  # fmt: skip
        suffix = {"markdown": "md", "csv": "csv", "latex": "tex", "html": "html"}
        for fmt, render in RENDERERS.items():
            path = folder / f"leaderboard.{suffix[fmt]}"
            text = render(final)
            if fmt == "html":  # a file opened on its own: a whole page, styled as the report
                text = page(final.title, text)
            path.write_text(text, encoding="utf-8")
            written.append(path)
        written += paper_files(folder, records, title, order, baselines, *paper, combine)
    return written
