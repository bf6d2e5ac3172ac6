"""`simeval serve …` (the organiser's side of a shared task) and `simeval submit`,
`simeval register`, `simeval final` (the participant's), thin over :mod:`simeval.api.serving`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from simeval.api import serving
from simeval.cli.common import Typer, app, err, guarded, out, say_warning
from simeval.errors import InputError
from simeval.report.format import number, terminal_text

serve_app = Typer(
    rich_markup_mode=None,
    help="Host a shared task: campaigns, phases, teams, uploads scored as `simeval score` "
    "does, a live leaderboard. Needs: pip install 'simeval[serve]'.",
    no_args_is_help=True,
)
app.add_typer(serve_app, name="serve")

Folder = Annotated[
    Path, typer.Argument(help="The server's folder: its SQLite database and the uploads.")
]
DbUrl = Annotated[
    str | None,
    typer.Option(
        "--db",
        envvar="SIMEVAL_SERVE_DB",
        help="A database URL instead of FOLDER/serve.db (postgresql://user@host/name).",
    ),
]
CampaignName = Annotated[str, typer.Option("--campaign", "-c", help="The campaign's name.")]
AllowLeaks = Annotated[
    str | None,
    typer.Option(
        "--allow-leaks",
        metavar="REASON",
        help="Save the phases although the leak audit found what their inputs tell of the "
        "gold; the reason and the findings go to the audit log.",
    ),
]


@serve_app.command("init")
@guarded
def init_cmd(folder: Folder, db: DbUrl = None) -> None:
    """Create (or migrate to the newest schema) the server's database and folders."""
    serving.init_server(folder, db)
    out.print(f"ready: {terminal_text(str(folder))}", highlight=False)


@serve_app.command("campaign")
@guarded
def campaign_cmd(
    folder: Folder,
    file: Annotated[Path, typer.Argument(help="The campaign file (TOML; see --help).")],
    db: DbUrl = None,
    allow_leaks: AllowLeaks = None,
) -> None:
    """Add a campaign from a TOML file: name, title, optional registry files, and [[phase]]
    tables with name, targets, opens, deadline (times with a zone), runs, max_bytes and
    hidden.

    hidden = true|false (a TOML boolean, unquoted; left out: true for a phase named test in
    any case, false otherwise) hides a phase's scores until `simeval serve publish`. No
    benchmark may be in both a visible and a hidden phase (a suite's members count), and a
    phase's input files are served only once it opens. In a hidden phase an upload is refused
    without taking a run only for what the phase's input file shows (line count, format,
    pairs of the input), with a message from the file and the input alone; anything that
    needs the gold is found after the run is counted and never refuses the file: an STS line
    left blank where the gold has a score is scored 0, and any other error stays hidden with
    the run until publication. Warnings from the file and the input (format, pairs without a
    score) are shown with each upload.

    public_share = 0.3 (optional) splits a phase: its live leaderboard scores a public 30% of
    the pairs, drawn by a secret seed, and after the deadline the rest rank each team's final
    runs (final_runs = 2, the default: picked by the team, else its last ones).

    inputs = "drawn" (the default) hands out every phase's items in an order, and linking
    inputs with ids, drawn from the campaign's secret, so that neither tells the gold; uploads
    are read back through them. inputs = "published" hands them out as published. Either way
    the leak audit (`simeval serve audit-inputs`) runs first: an input whose order follows
    its gold, ids that tell a query's document or are the published collection's, an item
    given twice with different gold refuse the campaign unless --allow-leaks gives a reason."""
    made = serving.create_campaign(folder, file, db, allow_leaks)
    out.print(f"campaign {terminal_text(made.name)} created", highlight=False)
    for line in made.phases:  # an organiser sees a test phase left visible
        out.print(terminal_text(line), highlight=False)


@serve_app.command("audit-inputs")
@guarded
def audit_inputs_cmd(
    folder: Annotated[
        Path | None, typer.Argument(help="The server's folder (with --campaign).")
    ] = None,
    campaign: Annotated[
        str | None, typer.Option("--campaign", "-c", help="A campaign of the server.")
    ] = None,
    file: Annotated[
        Path | None, typer.Option("--file", help="A campaign file (TOML), before it is added.")
    ] = None,
    db: DbUrl = None,
) -> None:
    """The leak audit of a campaign's inputs as its teams get them: whether an input's order
    follows its gold (Spearman's rho between place and gold, p < 0.001), a linking query's id
    tells its judged document's, ids are the published collection's own, or an item is given
    twice with different gold. Prints each finding; exits 1 when there is one."""
    if (file is None) == (campaign is None) or (campaign is not None and folder is None):
        raise typer.BadParameter("give FOLDER --campaign NAME, or --file CAMPAIGN.toml")
    found = serving.audit_inputs(folder, campaign, file, db)
    for f in found:
        out.print(terminal_text(f), highlight=False)
    out.print(f"{len(found)} finding(s)", highlight=False)
    if found:
        raise typer.Exit(1)


@serve_app.command("run")
@guarded
def run_cmd(
    folder: Folder,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port.")] = 8000,
    db: DbUrl = None,
    scorers: Annotated[
        int,
        typer.Option(
            min=0,
            help="Processes that score uploads besides the server's (0: the server's own; "
            "scoring holds Python's interpreter lock, so N processes score up to N times as "
            "fast on N free cores).",
        ),
    ] = 0,
    trust_proxy: Annotated[
        str,
        typer.Option(
            "--trust-proxy",
            metavar="ADDR[,ADDR]",
            help="Reverse proxies (IP addresses or networks) whose X-Forwarded-For names the "
            "client, for the per-client rate limits; the right-most address not among them "
            "counts. Without it the header is ignored, from loopback too.",
        ),
    ] = "",
    rejected_per_day: Annotated[
        int,
        typer.Option(min=0, help="Rejected uploads a team may send in 24 hours (0: no limit)."),
    ] = 20,
    max_connections: Annotated[
        int,
        typer.Option(
            min=1,
            help="Connections served at once; more are answered 503 (slow clients cannot hold "
            "them all). Idle keep-alive connections are closed after 5 s. The default leaves "
            "room for a deadline's burst (benchmarks/serve_load.py sends 250 uploads at once).",
        ),
    ] = 500,
    uploads_per_minute: Annotated[
        float,
        typer.Option(
            min=0,
            help="Uploads one client address may send a minute, after a burst of 10 (0: no "
            "limit; benchmarks/serve_throughput.py measures the server without it).",
        ),
    ] = 20,
    reads_per_minute: Annotated[
        float,
        typer.Option(
            min=0,
            help="Leaderboard reads (its page and its JSON) one client address may make a "
            "minute, after a burst of 60; past it 429 with Retry-After (0: no limit).",
        ),
    ] = 120,
) -> None:
    """Serve the web pages and the API (uvicorn, one process, and --scorers processes);
    uvicorn's log and the server's own lines (registrations, submissions, quarantined
    uploads) go to stderr.

    One server per folder and per database: it holds FOLDER/files/server.lock and the
    database's lock while it runs, and a second `serve run` on either refuses to start. The
    folder and its database are stamped with each other's id on first use; a start with
    another database (a missing --db or SIMEVAL_SERVE_DB, a new file) is refused and names
    the right one. Files that no row names (left by a crash mid-upload) are moved to
    FOLDER/files/quarantine, never deleted. A folder that holds no server (no serve.db, no
    stamp, no --db) is refused: make it with `simeval serve campaign FOLDER FILE`."""
    trusted = [a for a in trust_proxy.split(",") if a.strip()]
    serving.run_server(
        folder,
        db,
        host,
        port,
        scorers,
        trusted,
        rejected_per_day,
        max_connections,
        uploads_per_minute,
        reads_per_minute,
    )


@serve_app.command("publish")
@guarded
def publish_cmd(
    folder: Folder,
    campaign: CampaignName,
    phase: Annotated[str, typer.Option("--phase", "-p", help="The phase to publish.")],
    db: DbUrl = None,
) -> None:
    """Show a hidden phase's scores to participants (after its deadline)."""
    _publication(folder, db, campaign, phase, True)


def _publication(folder: Path, db: str | None, campaign: str, phase: str, shown: bool) -> None:
    """Publish a phase's scores or hide them again (audited), and say which."""
    serving.set_published(folder, campaign, phase, shown, db)
    said = "published" if shown else "hidden"
    out.print(f"{terminal_text(campaign)}/{terminal_text(phase)} {said}", highlight=False)


@serve_app.command("rotate-token")
@guarded
def rotate_token_cmd(
    folder: Folder,
    campaign: CampaignName,
    team: Annotated[str, typer.Option("--team", help="The team's name.")],
    db: DbUrl = None,
) -> None:
    """Give a team a new token (printed once); its old token stops working at once, also in
    a running server."""
    out.print(serving.rotate_token(folder, campaign, team, db), highlight=False)


@serve_app.command("registration")
@guarded
def registration_cmd(
    folder: Folder,
    campaign: CampaignName,
    state: Annotated[
        str | None,
        typer.Option(
            "--set",
            help="open, approval (each new team waits for an organiser) or closed (default: "
            "unchanged).",
        ),
    ] = None,
    max_teams: Annotated[
        int | None, typer.Option(min=0, help="Close registration at N teams (0: no cap).")
    ] = None,
    db: DbUrl = None,
) -> None:
    """Open or close a campaign's registration, or cap its teams (campaign file keys
    registration = "open"|"closed" and max_teams = N set them at creation); prints them."""
    now, teams = serving.set_registration(folder, campaign, state, max_teams, db)
    cap = "no cap" if teams is None else f"at most {teams} teams"
    out.print(f"{terminal_text(campaign)}: registration {now}, {cap}", highlight=False)


@serve_app.command("export")
@guarded
def export_cmd(
    folder: Folder,
    campaign: CampaignName,
    to: Annotated[Path, typer.Option("--out", "-o", help="A new folder to write.")],
    anonymise: Annotated[
        bool,
        typer.Option(
            "--anonymise",
            help="Name every team team-NN (numbered in a random order) everywhere, and leave "
            "the files' own names out; the export is refused if a name still occurs in it.",
        ),
    ] = False,
    key: Annotated[
        Path | None,
        typer.Option(
            help="With --anonymise: write which alias is which team to this CSV "
            "(outside the export)."
        ),
    ] = None,
    top: Annotated[
        int,
        typer.Option(
            min=0,
            help="Also write top.csv/.tex/.md: the top N runs of every target with their "
            "tiers (RUSSE Tables 6-9; 0: none).",
        ),
    ] = 0,
    keep_dominated: Annotated[
        bool,
        typer.Option(help="Keep in final.* the runs another beats on every target."),
    ] = False,
    db: DbUrl = None,
) -> None:
    """Write every submission (submissions.csv and the files), each phase's results.jsonl
    (for `simeval leaderboard` and `simeval report`) and its final leaderboard, RUSSE Table 5
    style, as leaderboard.md, .csv, .tex and .html; for the overview paper, final.csv, .tex
    (booktabs) and .md with each target's rank interval, rank upper bound and tier, and
    per-item/<benchmark>.csv with every run's per-item scores; with --anonymise, no team's
    name anywhere (CodaLab's exports leaked usernames). Takes seconds per target (the
    tiers' bootstrap)."""
    if key is not None and not anonymise:
        raise typer.BadParameter("--key goes with --anonymise (it lists which alias is which)")
    written = serving.export_campaign(folder, campaign, to, anonymise, key, top, keep_dominated, db)
    for path in written:
        out.print(terminal_text(str(path)), highlight=False)


@serve_app.command("backup")
@guarded
def backup_cmd(
    folder: Folder,
    to: Annotated[Path, typer.Option("--out", "-o", help="A new folder to write.")],
    db: DbUrl = None,
) -> None:
    """Back up a server, running or not: its database first (SQLite's online backup into
    OUT/serve.db, or pg_dump into OUT/serve.sql for PostgreSQL), then its files into
    OUT/files. OUT is a server folder with ids of its own (it pairs only with its own
    database, never the live one): `simeval serve run OUT` starts from a SQLite backup as it
    is; for PostgreSQL, load serve.sql into a new database and give it with --db. OUT may not
    be inside FOLDER."""
    for path in serving.backup_server(folder, to, db):
        out.print(terminal_text(str(path)), highlight=False)


@serve_app.command("unpublish")
@guarded
def unpublish_cmd(
    folder: Folder,
    campaign: CampaignName,
    phase: Annotated[str, typer.Option("--phase", "-p", help="The phase to hide again.")],
    db: DbUrl = None,
) -> None:
    """Hide a published phase's scores again (audited)."""
    _publication(folder, db, campaign, phase, False)


@serve_app.command("phase")
@guarded
def phase_cmd(
    folder: Folder,
    campaign: CampaignName,
    phase: Annotated[str, typer.Option("--phase", "-p", help="The phase to change.")],
    opens: Annotated[
        str | None, typer.Option(help="A new opening time with its zone (2025-01-01T00:00Z).")
    ] = None,
    deadline: Annotated[
        str | None,
        typer.Option(help="A new deadline with its zone; a later one extends (or reopens) it."),
    ] = None,
    close: Annotated[bool, typer.Option("--close", help="Close the phase now.")] = False,
    runs: Annotated[int | None, typer.Option(help="Scored runs per team and target.")] = None,
    max_bytes: Annotated[int | None, typer.Option(help="The upload size cap in bytes.")] = None,
    per_day: Annotated[
        int | None,
        typer.Option(help="Scored runs per team and target in any 24 hours (0: no limit)."),
    ] = None,
    combine: Annotated[
        str | None,
        typer.Option(help="The ranking policy: how targets combine (sum, mean, mean-rank)."),
    ] = None,
    reopen_reason: Annotated[
        str | None,
        typer.Option(
            help="Why a phase whose scores were shown (published, or a split phase's private "
            "board) reopens: audited and shown on its leaderboard."
        ),
    ] = None,
    db: DbUrl = None,
) -> None:
    """Change a phase's window or limits after `serve campaign` made it: extend or move the
    deadline, close it early, change the runs per team (in all, or per day), the upload cap or
    the ranking policy. Each change is
    written to the audit log (`serve audit`) with its values before and after; an opening
    that has passed stays, a published phase is not reopened, and a phase whose scores were
    shown (published once, or a split phase past its deadline) reopens only with
    --reopen-reason, said on its leaderboard."""
    changed = serving.edit_phase(
        folder, campaign, phase, opens=opens, deadline=deadline, close=close, runs=runs,
        max_bytes=max_bytes, per_day=per_day, combine=combine, reopen_reason=reopen_reason,
        db=db,
    )  # fmt: skip
    for key, (before, after) in changed.items():
        out.print(f"{key}: {terminal_text(str(before))} -> {terminal_text(str(after))}",
                  highlight=False)  # fmt: skip
    if not changed:
        out.print("nothing changed", highlight=False)


@serve_app.command("split")
@guarded
def split_cmd(
    folder: Folder,
    campaign: CampaignName,
    phase: Annotated[str, typer.Option("--phase", "-p", help="The phase to split.")],
    share: Annotated[
        float | None,
        typer.Option(help="The live board's public share of the pairs (0.3: 30%)."),
    ] = None,
    off: Annotated[bool, typer.Option("--off", help="No split: every pair, every run.")] = False,
    final_runs: Annotated[
        int | None, typer.Option(help="How many final runs each team picks.")
    ] = None,
    db: DbUrl = None,
) -> None:
    """Give a phase a public and a private leaderboard before it opens: the live board
    scores a public share of the pairs, drawn by a new secret seed, and after the deadline
    the rest rank each team's final runs. Audited; refused once the phase has opened."""
    if off == (share is not None):
        raise InputError(None, None, "give --share or --off")
    changed = serving.split_phase(folder, campaign, phase, share, final_runs, db)
    for key, (before, after) in changed.items():
        out.print(f"{key}: {terminal_text(str(before))} -> {terminal_text(str(after))}",
                  highlight=False)  # fmt: skip
    if not changed:
        out.print("nothing changed", highlight=False)


@serve_app.command("audit")
@guarded
def audit_cmd(
    folder: Folder,
    campaign: Annotated[
        str | None, typer.Option("--campaign", "-c", help="Only this campaign's changes.")
    ] = None,
    db: DbUrl = None,
) -> None:
    """Print the audit log, newest first: when, who (an organiser or the command line), what,
    and the values before and after."""
    for entry in serving.audit_log(folder, campaign, db):
        out.print(
            f"{entry.at:%Y-%m-%d %H:%M:%S}Z  {terminal_text(entry.actor)}  "
            f"{terminal_text(entry.action)}  {terminal_text(entry.detail)}",
            highlight=False,
        )


RunOption = Annotated[int, typer.Option("--run", min=1, help="The run's number.")]
TeamOption = Annotated[str, typer.Option("--team", help="The team's name.")]
PhaseOption = Annotated[str, typer.Option("--phase", "-p", help="The phase.")]
ExcludedTarget = Annotated[
    str | None,
    typer.Option("--target", help="Only this target of the phase (default: every target)."),
]


@serve_app.command("exclude")
@guarded
def exclude_cmd(
    folder: Folder,
    campaign: CampaignName,
    phase: PhaseOption,
    team: TeamOption,
    run: RunOption,
    reason: Annotated[str, typer.Option(help="Why (shown on the leaderboard).")],
    withdrawn: Annotated[
        bool, typer.Option("--withdrawn", help="The team withdrew it (default: disqualified).")
    ] = False,
    target: ExcludedTarget = None,
    db: DbUrl = None,
) -> None:
    """Disqualify a team's run (or mark it withdrawn): it is kept and listed under the
    leaderboard with the reason, ranked nowhere (also in the export's final table), and still
    counts against the team's runs. With --target, only its file of that target: the run
    keeps its row, that target's cell empty. Audited; `serve reinstate` ranks it again."""
    kind = serving.exclude_run(folder, campaign, phase, team, run, reason, withdrawn, db, target)
    out.print(f"{_run_text(team, run, target)}: {kind}", highlight=False)


def _run_text(team: str, run: int, target: str | None) -> str:
    """A run as the terminal shows it: ``<team> run <n>`` (and `` on <target>``)."""
    on = "" if target is None else f" on {terminal_text(target)}"
    return f"{terminal_text(team)} run {run}{on}"


@serve_app.command("reinstate")
@guarded
def reinstate_cmd(
    folder: Folder,
    campaign: CampaignName,
    phase: PhaseOption,
    team: TeamOption,
    run: RunOption,
    target: ExcludedTarget = None,
    db: DbUrl = None,
) -> None:
    """Rank a disqualified or withdrawn run again, on every target or (--target) the one it
    was excluded on (audited)."""
    serving.reinstate_run(folder, campaign, phase, team, run, db, target)
    out.print(f"{_run_text(team, run, target)}: ranked again", highlight=False)


@serve_app.command("rescore")
@guarded
def rescore_cmd(
    folder: Folder,
    campaign: CampaignName,
    apply: Annotated[
        bool, typer.Option("--apply", help="Keep the new scores (default: show what would move).")
    ] = False,
    reason: Annotated[
        str, typer.Option(help="Why, for the audit log and the scores' history.")
    ] = "re-score all",
    db: DbUrl = None,
) -> None:
    """Score every stored submission of a campaign again with this simeval, from the stored
    files, and print each benchmark's main score that moves (before, after). With --apply the
    new scores replace the board's; the old ones are kept in the scores' history and the
    change is audited. A file this simeval refuses keeps its old scores and is listed."""
    done = serving.rescore(folder, campaign, apply, reason, db)
    _print_rescore(done, "re-scored" if apply else "would re-score (dry run; --apply keeps it)")


def _print_rescore(done: Any, verb: str) -> None:
    """Each score a re-scoring moved (before -> after), what it refused, and a count."""
    for c in done.moved:
        out.print(
            f"{terminal_text(c.system)}  {terminal_text(c.target)}  {terminal_text(c.benchmark)}"
            f"  {terminal_text(c.metric)}  {number(c.before, 6)} -> {number(c.after, 6)}"
            f"{c.delta}",
            highlight=False,
        )
    for system, target, why in done.refused:
        err.print(f"refused now: {terminal_text(system)} {terminal_text(target)}: "
                  f"{terminal_text(why)}", highlight=False)  # fmt: skip
    out.print(f"{verb}: {done.submissions} submission(s), {len(done.moved)} score(s) moved, "
              f"{len(done.refused)} refused now", highlight=False)  # fmt: skip


@serve_app.command("gold")
@guarded
def gold_cmd(
    folder: Folder,
    benchmark: Annotated[
        str, typer.Argument(help="The benchmark whose gold is replaced (a target or its member).")
    ],
    file: Annotated[Path, typer.Argument(help="The new gold file, in the benchmark's format.")],
    campaign: CampaignName,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show what would move; keep nothing.")
    ] = False,
    db: DbUrl = None,
) -> None:
    """Replace a benchmark's gold in a campaign and score every stored submission that reads
    it again, printing each main score that moves (before, after). The file must read as the
    benchmark's gold and ask for exactly the same pairs; the old scores are kept in the
    scores' history, and the replacement is audited (gold-replace, old and new sha256)."""
    done = serving.replace_gold(folder, campaign, benchmark, file, dry_run, db)
    verb = "would re-score (dry run)" if dry_run else "re-scored"
    _print_rescore(done.rescore, verb)
    what = "would replace" if dry_run else "replaced"
    out.print(f"{what} the gold of {terminal_text(benchmark)}: sha256 {done.before[:12]}… -> "
              f"{done.after[:12]}…", highlight=False)  # fmt: skip


@serve_app.command("carry")
@guarded
def carry_cmd(
    folder: Folder,
    campaign: CampaignName,
    source: Annotated[str, typer.Option("--from", help="The phase whose runs are carried.")],
    phase: Annotated[str, typer.Option("--phase", "-p", help="The phase they are carried into.")],
    team: Annotated[
        str | None, typer.Option(help="Only this team's runs (default: every team's).")
    ] = None,
    db: DbUrl = None,
) -> None:
    """Carry the scored runs of one phase into another on the targets both have: each becomes
    a run of the other phase, scored again from its stored file, counted against that phase's
    limits (a run that exceeds them is listed, not carried). Audited."""
    done = serving.carry_runs(folder, campaign, source, phase, team, db)
    for line in done.carried:
        out.print(f"carried: {terminal_text(line)}", highlight=False)
    for line in done.refused:
        err.print(f"not carried: {terminal_text(line)}", highlight=False)
    out.print(f"{len(done.carried)} run(s) carried into {terminal_text(phase)}, "
              f"{len(done.refused)} not", highlight=False)  # fmt: skip


organiser_app = Typer(
    rich_markup_mode=None,
    help="Organiser accounts: who may run the server's campaigns from the browser.",
    no_args_is_help=True,
)
serve_app.add_typer(organiser_app, name="organiser")
OrganiserName = Annotated[str, typer.Argument(help="The organiser's name.")]


@organiser_app.command("add")
@guarded
def organiser_add_cmd(
    folder: Folder,
    name: OrganiserName,
    db: DbUrl = None,
    admin: Annotated[
        bool,
        typer.Option(
            "--admin",
            help="It may add and revoke organisers at /organiser/organisers (the server's "
            "first account is an admin in any case).",
        ),
    ] = False,
) -> None:
    """Add an organiser; prints the account's token once (sign in with it at /organiser)."""
    out.print(serving.add_organiser(folder, name, db, admin), highlight=False)
    err.print("the organiser's token, shown this once: keep it (sign in at /organiser)")


@organiser_app.command("list")
@guarded
def organiser_list_cmd(folder: Folder, db: DbUrl = None) -> None:
    """List the organiser accounts, revoked ones marked."""
    for row in serving.list_organisers(folder, db):
        state = f"revoked {row.revoked:%Y-%m-%d %H:%M}Z" if row.revoked else "active"
        role = "  admin" if row.admin else ""
        out.print(f"{terminal_text(row.name)}  {state}{role}", highlight=False)


@organiser_app.command("revoke")
@guarded
def organiser_revoke_cmd(folder: Folder, name: OrganiserName, db: DbUrl = None) -> None:
    """Take an organiser's account away: the token stops working at once, also in a running
    server; the account stays in the audit log."""
    serving.revoke_organiser(folder, name, db)
    out.print(f"{terminal_text(name)} revoked", highlight=False)


Server = Annotated[str, typer.Option("--server", help="The server's address (http://host:port).")]


@app.command("register")
@guarded
def register_cmd(
    campaign: Annotated[str, typer.Argument(help="The campaign's name.")],
    team: Annotated[str, typer.Option("--team", help="Your team's name.")],
    server: Server,
    accept_terms: Annotated[
        bool,
        typer.Option(
            "--accept-terms",
            help="Accept the campaign's terms (its page shows them); a campaign with terms "
            "refuses a registration without it.",
        ),
    ] = False,
) -> None:
    """Register a team in a campaign; prints its token once (keep it). Where the organiser
    approves each team, uploads open once the team is approved."""
    answer = serving.register_team(server, campaign, team, accept_terms)
    out.print(str(answer["token"]), highlight=False)
    err.print("your team's token, shown this once: keep it (simeval submit --token, or "
              "SIMEVAL_TOKEN)")  # fmt: skip
    if answer.get("status") == "pending":
        err.print("waiting for the organiser's approval: uploads open once approved")


@app.command("submit")
@guarded
def submit_cmd(
    file: Annotated[Path, typer.Argument(help="The submission file.")],
    server: Server,
    token: Annotated[
        str, typer.Option("--token", envvar="SIMEVAL_TOKEN", help="Your team's token.")
    ],
    phase: Annotated[str, typer.Option("--phase", "-p", help="The phase.")],
    target: Annotated[
        str | None, typer.Option("--target", "-t", help="The benchmark (if the phase has several).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the server's answer.")] = False,
) -> None:
    """Upload a submission; prints its scores (or that they are hidden), or the file's
    problems with file and line as `simeval score` prints them (exit status 2)."""
    status, answer = serving.send_submission(server, file, token, phase, target)
    if as_json:
        out.print_json(json.dumps(answer))
    serving.check_answer(status, answer, file)
    if as_json:
        return
    out.print(
        f"run {answer['run']} of {answer['runs']} on {terminal_text(answer['target'])}",
        highlight=False,
    )
    if answer["hidden"]:
        out.print("scores hidden until the organiser publishes them")
    public = f"{answer['part']} " if answer.get("part") else ""  # a split phase's part
    for res in answer["results"] or []:
        score = number(res["score"])
        metric = terminal_text(res["main_metric"])
        out.print(f"{terminal_text(res['benchmark'])}  {public}{metric}  {score}", highlight=False)
    shown = [w for res in answer["results"] or [] for w in res["warnings"]]
    for w in dict.fromkeys([*shown, *answer.get("warnings", [])]):  # hidden: file and input's
        say_warning(w)


@app.command("final")
@guarded
def final_cmd(
    server: Server,
    token: Annotated[
        str, typer.Option("--token", envvar="SIMEVAL_TOKEN", help="Your team's token.")
    ],
    phase: Annotated[str, typer.Option("--phase", "-p", help="The phase.")],
    runs: Annotated[
        list[int] | None,
        typer.Argument(help="The runs to pick as final; none: show the final runs."),
    ] = None,
    reset: Annotated[
        bool, typer.Option("--reset", help="Drop your pick: your last runs are final again.")
    ] = False,
) -> None:
    """Show or pick your team's final runs in a phase with a private leaderboard (up to the
    phase's limit, before its deadline): the private board ranks them after the deadline;
    until you pick, your last runs are final."""
    answer = serving.final_runs(server, token, phase, [] if reset else runs or None)
    shown = ", ".join(f"run {r}" for r in answer["final"]) or "none yet"
    how = "picked" if answer["picked"] else f"your last {answer['limit']}"
    out.print(f"final runs of {terminal_text(phase)}: {shown} ({how})", highlight=False)
