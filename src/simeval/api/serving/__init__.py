"""Running a shared task: one function per ``simeval serve …`` action, and the participant's
``register``, ``submit`` and ``final``, over the server's service layer (:mod:`simeval.serve`).

Each takes plain values (the server's folder, an optional database URL, names, paths),
opens the server's database and files (:func:`open_server`), calls the service and returns
what the command prints: text, paths, or the service's plain records. Only the functions that
make a server (:func:`init_server`, :func:`create_campaign`, :func:`add_organiser`) make a
missing folder; the others refuse it, so that a mistyped folder is never an empty new server.
Times are the moment of the call (UTC); changes are audited as made from the command line.

Nothing of the server is imported before a function is called: ``simeval --help`` and a
Python user who never serves need neither FastAPI nor SQLAlchemy.
"""

from simeval.api.serving.campaigns import (
    CampaignMade,
    audit_inputs,
    create_campaign,
    export_campaign,
    replace_gold,
    rescore,
    set_registration,
)
from simeval.api.serving.organisers import (
    AuditLine,
    OrganiserLine,
    add_organiser,
    audit_log,
    list_organisers,
    revoke_organiser,
)
from simeval.api.serving.phases import (
    carry_runs,
    edit_phase,
    set_published,
    split_phase,
)
from simeval.api.serving.server import (
    backup_server,
    init_server,
    open_server,
    run_server,
)
from simeval.api.serving.teams import (
    check_answer,
    exclude_run,
    final_runs,
    register_team,
    reinstate_run,
    rotate_token,
    send_submission,
)

__all__ = [
    "AuditLine",
    "CampaignMade",
    "OrganiserLine",
    "add_organiser",
    "audit_inputs",
    "audit_log",
    "backup_server",
    "carry_runs",
    "check_answer",
    "create_campaign",
    "edit_phase",
    "exclude_run",
    "export_campaign",
    "final_runs",
    "init_server",
    "list_organisers",
    "open_server",
    "register_team",
    "reinstate_run",
    "replace_gold",
    "rescore",
    "revoke_organiser",
    "rotate_token",
    "run_server",
    "send_submission",
    "set_published",
    "set_registration",
    "split_phase",
]
