"""Submissions uploaded to a running campaign (``POST /api/phases/{phase}/submissions``, what
``simeval submit`` sends).

One server (FastAPI's TestClient on ``create_app``, SQLite, a fixed clock) is made once per
process with the campaign ``up25`` over the lab registry (:mod:`fuzzing.serve_lab`) and one
team; each case is one request. 201 is exit 0, 4xx a refusal (its JSON ``error``), 5xx or an
error in the server's log a traceback. An accepted upload's score is read back from the server
(``GET /api/submissions/{id}``; in a hidden phase the database row, read with :mod:`sqlite3`)
and compared with scipy's over the gold written in :mod:`fuzzing.serve_lab`.
"""

from __future__ import annotations

import contextlib
import html
import io
import json
import logging
import random
import re
import sqlite3
import traceback
import unicodedata
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np
from scipy.stats import pearsonr, spearmanr

from fuzzing.harness import Accept, Case, Either, Outcome, Reject, Surface, close, damage
from fuzzing.serve_lab import (
    LAB_A,
    LAB_B,
    LAB_C,
    STS,
    STS2,
    STS3,
    Pairs,
    made,
    scratch,
    toml_text,
)

NOW = datetime(2025, 6, 1, tzinfo=UTC)
UPLOAD = "upload"  # the case file that is the request's body (the client's name is apart)
DAY = timedelta(days=1)
OPEN = (NOW - 30 * DAY, NOW + 30 * DAY)  # a window around the server's clock
UP_PHASES = [  # name, targets, (opens, deadline), runs, max_bytes, hidden
    ("trial", ["lab-a", "lab-sts", "lab-suite"], OPEN, 10**6, 100_000, False),
    ("test", ["lab-b", "lab-sts3"], OPEN, 10**6, 100_000, True),
    ("early", ["lab-a"], (NOW + DAY, NOW + 30 * DAY), 10, 100_000, False),
    ("past", ["lab-a"], (NOW - 60 * DAY, NOW - DAY), 10, 100_000, False),
    ("tight", ["lab-c"], OPEN, 1, 100_000, False),
    ("small", ["lab-sts2"], OPEN, 10, 64, False),
]


@dataclass
class Live:
    """The upload surface's server: its client, folder and a team's token."""

    client: Any
    folder: Path
    token: str
    csrf: str = ""  # the CSRF value of the web pages' forms (the team signed in there too)


def _live() -> Live:
    """The server of the upload surface, made on first use in this process."""
    if "live" in made:
        return made["live"]  # type: ignore[return-value]
    from fastapi.testclient import TestClient

    from simeval.serve.app import create_app
    from simeval.serve.db import Database
    from simeval.serve.service.campaigns import Targets, create_campaign

    folder = scratch("upload")
    doc = {
        "name": "up25",
        "registry": ["lab.toml"],
        # as published: the cases write STS lines in the lab files' order (the drawn order
        # and its reading back are tests/serve/test_inputs_hidden.py's and test_serve.py's)
        "inputs": "published",
        "phase": [
            {
                "name": n,
                "targets": t,
                "opens": o,
                "deadline": d,
                "runs": r,
                "max_bytes": b,
                "hidden": h,
            }
            for n, t, (o, d), r, b, h in UP_PHASES
        ],
    }
    (folder / "up.toml").write_bytes(toml_text(doc))
    url = f"sqlite:///{folder / 'serve.db'}"
    create_campaign(Database(url), folder / "up.toml", NOW, Targets(), "fuzzing the uploads")
    app = create_app(url, folder / "files", clock=lambda: NOW, rate_limits={}, rejected_per_day=0)
    client = TestClient(app)
    answer = client.post("/api/campaigns/up25/teams", json={"team": "fuzzers"})
    assert answer.status_code == 201, answer.text
    live = Live(client, folder, answer.json()["token"])
    first = _post(live, "tight", _pair_text(LAB_C, _scores(random.Random(0), LAB_C)), "lab-c")
    assert first.status_code == 201, first.text  # the tight phase's one run is used
    _sign_in(live)
    made["live"] = live  # type: ignore[assignment]
    return live


def _sign_in(live: Live) -> None:
    """Sign the client in on the web pages as the team (its token is checked already)."""
    from serve_kit import page_csrf

    fields = {"csrf": page_csrf(live.client, "/campaigns/up25"), "token": live.token}
    signed = live.client.post("/login", data=fields, follow_redirects=False)
    assert signed.status_code == 303, signed.text
    live.csrf = page_csrf(live.client, "/campaigns/up25")  # bound to the session now


def _newest(live: Live) -> str | None:
    """The id of the submission recorded last (read with sqlite3)."""
    con = sqlite3.connect(live.folder / "serve.db")
    try:
        row = con.execute("select id from submission order by rowid desc limit 1").fetchone()
    finally:
        con.close()
    return row[0] if row else None


def _post(
    live: Live,
    phase: str,
    body: bytes,
    target: str | None = None,
    filename: str | None = "run.csv",
    auth: str | None = None,
) -> Any:
    params = {k: v for k, v in (("target", target), ("filename", filename)) if v is not None}
    headers = {"authorization": f"Bearer {live.token}" if auth is None else auth}
    if auth == "":
        headers = {}
    return live.client.post(
        f"/api/phases/{quote(phase, safe='')}/submissions",
        params=params,
        content=body,
        headers=headers,
    )


@dataclass(frozen=True)
class Request:
    """One upload: the phase, target, client file name and Authorization header (None: the
    team's own token; "": none); or, with ``team``, a registration of that name (``RAW``: the
    body as it is)."""

    phase: str = ""
    target: str | None = None
    filename: str | None = "run.csv"
    auth: str | None = None
    team: Any = None
    web: str | None = None  # the upload page's form: "ok", or which part of it to spoil


RAW = "<the body as it is>"


class _Errors(logging.Handler):
    """The server log's errors while a request runs."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.found: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.found.append(self.format(record))


@contextlib.contextmanager
def _server_errors() -> Iterator[_Errors]:
    handler = _Errors()
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger = logging.getLogger("simeval.serve")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


def run_upload(case: Case, folder: Path) -> Outcome:
    """The case's body sent as an upload (its :class:`Request` JSON in ``argv[0]``): 2xx is
    exit 0 (the answer on stdout, its warnings gathered), 4xx exit 2 (the error on stderr),
    5xx or an error in the server's log a traceback."""
    live = _live()
    req = Request(**json.loads(case.argv[0]))
    body = case.files.get(UPLOAD, b"")
    with _server_errors() as errors:
        try:
            if req.team is not None:
                sent = body if req.team == RAW else json.dumps({"team": req.team}).encode()
                answer = live.client.post("/api/campaigns/up25/teams", content=sent)
            elif req.web is not None:
                return _post_form(live, req, body, folder, errors)
            else:
                answer = _post(live, req.phase, body, req.target, req.filename, req.auth)
        except Exception as error:  # the harness counts it: that is its job
            trace = "".join(traceback.format_exception(error))
            return Outcome(1, "", "", error, folder, trace)
    if errors.found or answer.status_code >= 500:
        why = f"HTTP {answer.status_code}: {answer.text[:500]}\n" + "\n".join(errors.found)
        return Outcome(1, "", why, RuntimeError(why), folder, why)
    found = answer.json()
    if answer.status_code >= 400:
        return Outcome(2, "", str(found.get("error")), None, folder)
    warnings = [
        *found.get("warnings", []),
        *(w for r in found.get("results") or [] for w in r.get("warnings", [])),
    ]
    return Outcome(0, json.dumps({**found, "warnings": warnings}), "", None, folder)


def _post_form(live: Live, req: Request, body: bytes, folder: Path, errors: _Errors) -> Outcome:
    """The upload page's form: the file, the target and the CSRF value (``req.web`` says
    which to spoil). A refusal is a 4xx page, or a page saying the file was not accepted; an
    accepted upload is the submission recorded last, read back through the API."""
    before = _newest(live)
    fields = {"csrf": {"no-csrf": "", "bad-csrf": live.csrf[:-4] + "AAAA"}.get(req.web, live.csrf)}
    if req.target is not None:
        fields["target"] = req.target
    files: list[tuple[str, tuple[str, bytes]]] = [("file", (req.filename or "", body))]
    if req.web == "two-files":
        files.append(("file", ("second.csv", body)))
    if req.web == "no-file":
        files = [("other", ("run.csv", body))]
    answer = live.client.post(
        f"/campaigns/up25/phases/{quote(req.phase, safe='')}/upload", data=fields, files=files
    )
    if errors.found or answer.status_code >= 500:
        why = f"HTTP {answer.status_code}: {answer.text[:500]}\n" + "\n".join(errors.found)
        return Outcome(1, "", why, RuntimeError(why), folder, why)
    shown = re.search(r'<p class="error">(.*?)</p>', answer.text, re.DOTALL)
    if answer.status_code >= 400 or "Not accepted" in answer.text:
        return Outcome(2, "", html.unescape(shown.group(1)) if shown else answer.text, None, folder)
    newest = _newest(live)
    if newest == before:
        why = "the page said the upload was accepted; nothing was recorded"
        return Outcome(1, "", why, RuntimeError(why), folder, why)
    auth = {"authorization": f"Bearer {live.token}"}
    view = live.client.get(f"/api/submissions/{newest}", headers=auth).json()
    view["warnings"] = view.get("warnings") or []
    return Outcome(0, json.dumps(view), "", None, folder)


def _upload(label: str, req: Request, body: bytes, expect: Any) -> Case:
    return Case(label, {UPLOAD: body}, [json.dumps(req.__dict__)], expect)


def _scores(rng: random.Random, gold: Pairs) -> list[str]:
    return [repr(round(rng.uniform(0, 10), 3)) for _ in gold]


def _pair_text(
    gold: Pairs,
    scores: list[str],
    sep: str = ",",
    order: list[int] | None = None,
    header: bool = True,
) -> bytes:
    rows = [(gold[i][0], gold[i][1], scores[i]) for i in (order or range(len(gold)))]
    head = f"word1{sep}word2{sep}sim\n" if header else ""
    return (head + "".join(f"{a}{sep}{b}{sep}{s}\n" for a, b, s in rows)).encode()


def _record(outcome: Outcome) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The accepted upload's answer, and its result records as the server keeps them: the
    team's view read back (``GET``), or the database row while the phase is hidden."""
    answer = json.loads(outcome.stdout)
    live = _live()
    if not answer.get("hidden"):
        auth = {"authorization": f"Bearer {live.token}"}
        view = live.client.get(f"/api/submissions/{answer['id']}", headers=auth).json()
        return answer, view.get("results") or []
    con = sqlite3.connect(live.folder / "serve.db")
    try:
        (stored,) = con.execute(
            "select results from submission where id = ?", (answer["id"],)
        ).fetchone()
    finally:
        con.close()
    return answer, json.loads(stored or "[]")


def _metric_check(expected: dict[str, dict[str, float]]) -> Callable[[Outcome], str | None]:
    """Each benchmark's metrics as scipy and numpy have them (benchmark → metric → value)."""

    def check(outcome: Outcome) -> str | None:
        answer, records = _record(outcome)
        if "/" in answer.get("file", "/") or not answer["file"].isprintable():
            return f"the client's name shown as {answer.get('file')!r}"
        got = {r["benchmark"]: r.get("metrics", {}) for r in records}
        for bench, metrics in expected.items():
            if bench not in got:
                return f"no record of {bench}: {sorted(got)}"
            for metric, value in metrics.items():
                if not close(got[bench].get(metric), value):
                    return f"{bench} {metric} {got[bench].get(metric)} != {value} (scipy, numpy)"
        return None

    return check


def _spearman(gold: Pairs, scores: list[str], bench: str) -> Callable[[Outcome], str | None]:
    value = float(spearmanr([g for _, _, g in gold], [float(s) for s in scores])[0])
    return _metric_check({bench: {"spearman": value}})


def _pearson(rows: list[tuple[str, str, float]], scores: list[str]) -> float:
    return float(pearsonr([g for _, _, g in rows], [float(s) for s in scores])[0])


def _sts12_aggregates(sets: list[Pairs], runs: list[list[str]]) -> dict[str, float]:
    """SemEval-2012 STS's aggregates of a run, by hand with numpy and scipy: ``all`` (Pearson
    over the sets concatenated), ``allnrm`` (each set's scores fitted to its gold by least
    squares first), ``mean`` (the sets' Pearsons weighted by their pairs) and
    ``pooled_spearman`` (Spearman over the sets concatenated)."""
    golds = [np.array([g for _, _, g in rows]) for rows in sets]
    systems = [np.array([float(x) for x in run]) for run in runs]
    fitted = [np.polyval(np.polyfit(x, g, 1), x) for g, x in zip(golds, systems, strict=True)]
    gold, system = np.concatenate(golds), np.concatenate(systems)
    rs = [pearsonr(g, x)[0] for g, x in zip(golds, systems, strict=True)]
    return {
        "all": float(pearsonr(gold, system)[0]),
        "allnrm": float(pearsonr(gold, np.concatenate(fitted))[0]),
        "mean": float(np.average(rs, weights=[len(g) for g in golds])),
        "pooled_spearman": float(spearmanr(gold, system)[0]),
    }


def _sts_text(scores: list[str], eol: str = "\n") -> bytes:
    return "".join(f"{s}{eol}" for s in scores).encode()


def _zip(entries: list[tuple[str, bytes]], level: int = zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", level) as zf:
        for name, data in entries:
            zf.writestr(name, data)
    return out.getvalue()


NOT_NUMBERS = ["abc", "", "1,5", "0x10", "--1", "١", "1e", "None", "5 5"]
NOT_FINITE = ["nan", "inf", "-inf", "NaN", "1e999", "-Infinity"]


def _registered(name: str) -> Callable[[Outcome], str | None]:
    """The check of a registration: the name as stored (NFKC), and a token that works."""

    def check(outcome: Outcome) -> str | None:
        answer = json.loads(outcome.stdout)
        if answer.get("team") != unicodedata.normalize("NFKC", name):
            return f"registered as {answer.get('team')!r}, not {name!r}"
        auth = {"authorization": f"Bearer {answer['token']}"}
        mine = _live().client.get("/api/submissions", headers=auth)
        return None if mine.status_code == 200 else f"its token: HTTP {mine.status_code}"

    return check


def _draw_register(rng: random.Random) -> Case:
    """A team's registration: its name as the JSON field ``team``."""
    if rng.random() < 0.4:
        name = rng.choice(["team", "Команда", "équipe", "東京", "a.b-c_d"]) + str(
            rng.getrandbits(48)
        )
        return _upload("register", Request(team=name), b"", Accept(_registered(name)))
    if rng.random() < 0.2:  # a body that is no JSON object, or a name that is no text
        body = rng.choice([b"not json", b"[]", b'{"team": ["a"]}', b'{"team": null}', b"{}",
                           b'{"team": 12}', b"\xff\xfe"])  # fmt: skip
        return _upload("register-body", Request(team=RAW), body, Either(("team",)))
    name = rng.choice(
        ["", " lead", "trail ", "a\x1b[31m", "a\u200bb", "fuzzers", "FUZZERS", "ｆｕｚｚｅｒｓ",
         "fuzzerѕ", "x" * 1000, "-lead", "a/b", "a\u202eb", "a\nb", "a\x00b", "cafe\u0301"]
    )  # fmt: skip
    if name == "cafe\u0301":  # a combining accent: NFKC makes it one letter, a name like any
        name += str(rng.getrandbits(48))
        return _upload("register-combining", Request(team=name), b"", Accept(_registered(name)))
    return _upload("register-bad-name", Request(team=name), b"", Reject(("team",), False))


def draw_upload(rng: random.Random) -> Case:
    kind = rng.randrange(16)
    if kind == 14:
        return _draw_register(rng)
    if kind == 15:
        return _draw_web(rng)
    if kind <= 3:
        return _draw_pairs(rng)
    if kind <= 5:
        return _draw_sts(rng)
    if kind <= 7:
        return _draw_suite(rng)
    if kind <= 9:
        return _draw_hidden(rng)
    return _draw_request(rng)


def _draw_pairs(rng: random.Random) -> Case:
    """lab-a in the visible trial: the file's content."""
    gold, scores = LAB_A, _scores(rng, LAB_A)
    req = Request("trial", "lab-a", rng.choice(["run.csv", "run.tsv", "my run 1.txt"]))
    name = req.filename or "upload"
    bad = Reject((name,), warning_ok=False)
    kind = rng.randrange(13)
    if kind <= 1:  # valid: any order, comma or tab, CRLF, a BOM, other spellings, an extra pair
        order = list(range(len(gold)))
        rng.shuffle(order)
        sep = rng.choice([",", "\t", " "])
        spelled = [rng.choice([s, f"{float(s):e}", f"+{s}", f"{float(s):.6f}"]) for s in scores]
        body = _pair_text(gold, spelled, sep, order)
        if sep == "," and rng.random() < 0.3:  # CSV quoting
            body = b"\n".join(
                b",".join(b'"' + f + b'"' for f in line.split(b",")) if line else line
                for line in body.split(b"\n")
            )
        if rng.random() < 0.3:  # pairs the gold lacks: ignored, counted as extra
            extra = range(rng.choice([1, 3000]))
            body += "".join(f"x{n}{sep}y{n}{sep}0.5\n" for n in extra).encode()
        if rng.random() < 0.3:
            body = body.replace(b"\n", b"\r\n")
        if rng.random() < 0.3:
            body = b"\xef\xbb\xbf" + body
        return _upload("pairs-valid", req, body, Accept(_spearman(gold, scores, "lab-a")))
    i = rng.randrange(len(gold))
    if kind == 2:
        scores[i] = rng.choice(NOT_NUMBERS)
        return _upload("pairs-not-a-number", req, _pair_text(gold, scores), bad)
    if kind == 3:
        scores[i] = rng.choice(NOT_FINITE)
        return _upload("pairs-not-finite", req, _pair_text(gold, scores), bad)
    if kind == 4:  # the same pair twice with two scores
        body = (
            _pair_text(gold, scores)
            + f"{gold[i][0]},{gold[i][1]},{float(scores[i]) + 1}\n".encode()
        )
        return _upload("pairs-conflicting-duplicate", req, body, bad)
    if kind == 5:  # a pair left out (word sets take no missing pair)
        order = [j for j in range(len(gold)) if j != i]
        return _upload("pairs-missing", req, _pair_text(gold, scores, order=order), bad)
    if kind == 6:  # a row of one or two fields, or four
        lines = _pair_text(gold, scores).decode().split("\n")
        lines[i + 1] = rng.choice(
            [gold[i][0], f"{gold[i][0]},{gold[i][1]}", f"{gold[i][0]},{gold[i][1]},1,2"]
        )
        return _upload("pairs-bad-row", req, "\n".join(lines).encode(), bad)
    if kind == 7:  # nothing, only a header, blank lines
        body = rng.choice([b"", b"word1,word2,sim\n", b"\n\n\n"])
        return _upload("pairs-empty", req, body, bad)
    if kind == 8:  # another format: a zip, an STS file, UTF-16, a binary blob
        body = rng.choice(
            [
                _zip([("run.csv", _pair_text(gold, scores))]),
                _sts_text(scores),
                _pair_text(gold, scores).decode().encode("utf-16"),
                bytes(range(256)) * 4,
            ]
        )
        return _upload("pairs-other-format", req, body, bad)
    if kind == 9:  # every pair the same score: Spearman is undefined
        same = ["5"] * len(gold)
        return _upload("pairs-constant", req, _pair_text(gold, same), Either((name, "constant")))
    if kind == 10:  # a pair twice with one score, a pair in the other order or case
        a, b, _ = gold[i]
        extra = rng.choice(
            [
                f"{a},{b},{scores[i]}",
                f"{b},{a},{scores[i]}",
                f"{b},{a},9.5",
                f"{a.upper()},{b},{scores[i]}",
            ]
        )
        body = _pair_text(gold, scores) + f"{extra}\n".encode()
        return _upload("pairs-repeated", req, body, Either((name,)))
    label, body = damage(rng, _pair_text(gold, scores))
    return _upload(f"pairs-damage-{label}", req, body, Either((name,)))


def _draw_sts(rng: random.Random) -> Case:
    """lab-sts in the visible trial: one score a line, the input's order."""
    scores = _sts_text_scores(rng, STS)
    req = Request("trial", "lab-sts", "STS.output.lab.txt")
    bad = Reject(("STS.output.lab.txt",), warning_ok=False)
    kind = rng.randrange(8)
    if kind <= 1:  # valid: LF or CRLF, other spellings, spaces around, past 0..5
        if rng.random() < 0.3:
            scores = [repr(round(rng.uniform(-10, 100), 3)) for _ in scores]
        spelled = [rng.choice([s, f"{float(s):e}", f"{float(s):.6f}", f" {s} "]) for s in scores]
        body = _sts_text(spelled, rng.choice(["\n", "\r\n"]))
        expect = Accept(_metric_check({"lab-sts": {"pearson": _pearson(STS, scores)}}))
        return _upload("sts-valid", req, body, expect)
    i = rng.randrange(len(scores))
    if kind == 2:
        scores[i] = rng.choice(NOT_NUMBERS[:-1] + NOT_FINITE)
        if scores[i] == "":  # a blank line is a pair left unscored: judged on its own below
            scores[i] = "x"
        return _upload("sts-not-a-number", req, _sts_text(scores), bad)
    if kind == 3:  # a line too few or too many
        changed = scores[:-1] if rng.random() < 0.5 else [*scores, "1.0"]
        return _upload("sts-line-count", req, _sts_text(changed), bad)
    if kind == 4:  # nothing
        return _upload("sts-empty", req, rng.choice([b"", b"\n"]), bad)
    if kind == 5:  # a blank line (an unscored pair), a confidence column, a word pair file
        body = rng.choice(
            [
                _sts_text([*scores[:i], "", *scores[i + 1 :]]),
                _sts_text([f"{s}\t{rng.randint(0, 100)}" for s in scores]),
                _pair_text(LAB_A, _scores(rng, LAB_A)),
                _sts_text(scores) + b"9" * 90_000,
            ]
        )
        return _upload("sts-odd", req, body, Either(("STS.output.lab.txt",)))
    label, body = damage(rng, _sts_text(scores))
    return _upload(f"sts-damage-{label}", req, body, Either(("STS.output.lab.txt",)))


def _sts_text_scores(rng: random.Random, rows: list[tuple[str, str, float]]) -> list[str]:
    return [repr(round(rng.uniform(0, 5), 3)) for _ in rows]


def _draw_suite(rng: random.Random) -> Case:
    """lab-suite in the visible trial: a zip of STS.output.lab.txt and STS.output.lab2.txt."""
    one, two = _sts_text_scores(rng, STS), _sts_text_scores(rng, STS2)
    files = [("STS.output.lab.txt", _sts_text(one)), ("STS.output.lab2.txt", _sts_text(two))]
    req = Request("trial", "lab-suite", "run.zip")
    bad = Reject(("run.zip",), warning_ok=False)
    kind = rng.randrange(10)
    if kind <= 2:  # valid: in a folder, names that climb (only the last part is read), extras
        prefix = rng.choice(["", "run1/", "../../", "/abs/", "a\\b\\"])
        entries = [(prefix + n, d) for n, d in files]
        if rng.random() < 0.4:
            entries.append(("README.txt", b"our run\n"))
        rng.shuffle(entries)
        expected = {
            "lab-sts": {"pearson": _pearson(STS, one)},
            "lab-sts2": {"pearson": _pearson(STS2, two)},
            "lab-suite": _sts12_aggregates([STS, STS2], [one, two]),
        }
        stored = rng.choice([zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED])
        return _upload("suite-valid", req, _zip(entries, stored), Accept(_metric_check(expected)))
    if kind == 3:  # a member's file left out, or named in another case
        if rng.random() < 0.5:
            return _upload("suite-missing-member", req, _zip([rng.choice(files)]), bad)
        entries = [files[0], (files[1][0].lower(), files[1][1])]
        return _upload("suite-member-case", req, _zip(entries), bad)
    if kind == 4:  # a member's file twice (in two folders)
        entries = [*files, ("again/" + files[0][0], files[0][1])]
        return _upload("suite-twice", req, _zip(entries), bad)
    if kind == 5:  # a bomb: small packed, past the phase's cap unpacked
        entries = [files[0], (files[1][0], b"0\n" * 200_000)]
        return _upload("suite-bomb", req, _zip(entries), Reject(("run.zip", "cap"), False))
    if kind == 6:  # not a zip: the files' text, nothing, a cut archive, an empty archive
        body = rng.choice([files[0][1], b"", _zip(files)[:40], _zip(files)[:-30], _zip([])])
        return _upload("suite-not-a-zip", req, body, bad)
    if kind == 7:  # a member's file with a word for a score
        text = files[1][1].decode().split("\n")
        text[rng.randrange(len(STS2))] = rng.choice(["x", "nan", "1,5"])
        return _upload(
            "suite-bad-member",
            req,
            _zip([files[0], (files[1][0], "\n".join(text).encode())]),
            Reject(("run.zip", "STS.output.lab2.txt"), False),
        )
    if kind == 8:  # an entry marked encrypted, or packed with a method zipfile cannot read
        body = bytearray(_zip(files))
        header = body.find(b"PK\x01\x02")  # the central directory's first entry
        if rng.random() < 0.5:
            body[header + 8] |= 1  # general purpose flags: encrypted
        else:
            body[header + 10] = 99  # method 99: AES
        return _upload("suite-unreadable-entry", req, bytes(body), bad)
    label, body = damage(rng, _zip(files))
    return _upload(f"suite-damage-{label}", req, body, Either(("run.zip",)))


def _draw_hidden(rng: random.Random) -> Case:
    """lab-b in the hidden test phase: refused only for what the input shows."""
    if rng.random() < 0.4:
        return _draw_hidden_sts(rng)
    gold, scores = LAB_B, _scores(rng, LAB_B)
    req = Request("test", "lab-b", "test.csv")
    bad = Reject(("test.csv",), warning_ok=False)
    kind = rng.randrange(6)
    if kind <= 1:  # valid: the number is kept (read from the database row)
        order = list(range(len(gold)))
        rng.shuffle(order)
        body = _pair_text(gold, scores, rng.choice([",", "\t"]), order)
        return _upload("hidden-valid", req, body, Accept(_spearman(gold, scores, "lab-b")))
    i = rng.randrange(len(gold))
    if kind == 2:
        scores[i] = rng.choice(NOT_NUMBERS + NOT_FINITE)
        return _upload("hidden-not-a-number", req, _pair_text(gold, scores), bad)
    if kind == 3:  # a pair of the input left out
        order = [j for j in range(len(gold)) if j != i]
        return _upload("hidden-missing", req, _pair_text(gold, scores, order=order), bad)
    if kind == 4:  # another target's pairs
        return _upload("hidden-other-pairs", req, _pair_text(LAB_A, _scores(rng, LAB_A)), bad)
    label, body = damage(rng, _pair_text(gold, scores))
    return _upload(f"hidden-damage-{label}", req, body, Either(("test.csv",)))


def _hidden_pearson(scores: list[str]) -> float:
    """lab-sts3's Pearson as a hidden phase scores it: over the lines the gold scores, a
    blank line scored 0 (:mod:`simeval.serve.service.hidden`)."""
    kept = [(g, float(s or 0)) for (_, _, g), s in zip(STS3, scores, strict=True) if g == g]
    return float(pearsonr([g for g, _ in kept], [s for _, s in kept])[0])


def _draw_hidden_sts(rng: random.Random) -> Case:
    """lab-sts3 in the hidden test phase: blank lines are allowed anywhere (scored 0)."""
    scores = _sts_text_scores(rng, STS3)
    req = Request("test", "lab-sts3", "STS.output.lab3.txt")
    bad = Reject(("STS.output.lab3.txt",), warning_ok=False)
    kind = rng.randrange(5)
    if kind <= 1:  # valid, with up to two blank lines anywhere (the gold's blank one too)
        for i in rng.sample(range(len(scores)), rng.randint(0, 2)):
            scores[i] = ""
        expected = {"lab-sts3": {"pearson": _hidden_pearson(scores)}}
        return _upload("hidden-sts-valid", req, _sts_text(scores), Accept(_metric_check(expected)))
    if kind == 2:  # every line blank
        return _upload("hidden-sts-all-blank", req, _sts_text([""] * len(scores)), bad)
    if kind == 3:  # a line too few or too many, a word for a score
        i = rng.randrange(len(scores))
        changed = rng.choice([scores[:-1], [*scores, "2"], [*scores[:i], "x", *scores[i + 1 :]]])
        return _upload("hidden-sts-bad-lines", req, _sts_text(changed), bad)
    label, body = damage(rng, _sts_text(scores))
    return _upload(f"hidden-sts-damage-{label}", req, body, Either(("STS.output.lab3.txt",)))


def _draw_web(rng: random.Random) -> Case:
    """An upload from the page's form (the team's session)."""
    scores = _scores(rng, LAB_A)
    body = _pair_text(LAB_A, scores)
    spoil = rng.choice(["ok", "ok", "ok", "no-csrf", "bad-csrf", "two-files", "no-file",
                        "target", "content", "filename", "too-large"])  # fmt: skip
    req = Request("trial", "lab-a", "web.csv", web=spoil)
    if spoil == "ok":
        return _upload("web-valid", req, body, Accept(_spearman(LAB_A, scores, "lab-a")))
    if spoil in ("no-csrf", "bad-csrf"):
        return _upload(f"web-{spoil}", req, body, Reject(("CSRF",), False))
    if spoil in ("two-files", "no-file"):
        return _upload(f"web-{spoil}", req, body, Reject(("file",), False))
    if spoil == "target":
        target = rng.choice(["nosuch", "lab-b", "", None])
        req = Request("trial", target, "web.csv", web=spoil)
        return _upload("web-target", req, body, Reject(("target", str(target)), False))
    if spoil == "too-large":  # the small phase's cap is 64 bytes
        req = Request("small", "lab-sts2", "web.txt", web=spoil)
        return _upload("web-too-large", req, _sts_text(["1.0"] * 40), Reject(("cap",), False))
    if spoil == "content":
        scores[rng.randrange(len(scores))] = rng.choice(NOT_NUMBERS + NOT_FINITE)
        return _upload("web-content", req, _pair_text(LAB_A, scores), Reject(("web.csv",), False))
    name = rng.choice(["../../x.csv", "a\x1b[2Jb.csv", "", "C:\\fake\\path.csv", "x" * 3000])
    req = Request("trial", "lab-a", name, web="ok")
    return _upload("web-filename", req, body, Accept(_spearman(LAB_A, scores, "lab-a")))


def _draw_request(rng: random.Random) -> Case:
    """The request around a valid file: token, phase, target, the client's file name."""
    scores = _scores(rng, LAB_A)
    body = _pair_text(LAB_A, scores)
    kind = rng.randrange(9)
    if kind == 0:  # no token, a wrong one, another scheme, a broken header
        auth = rng.choice(
            [
                "",
                "Bearer ",
                "Bearer nope",
                "Basic Zm9vOmJhcg==",
                "Bearer x.y",
                f"Token {_live().token}",
                "Bearer " + "A" * 5000,
            ]
        )
        return _upload(
            "bad-token", Request("trial", "lab-a", auth=auth), body, Reject(("token",), False)
        )
    if kind == 1:  # a phase that is not there (look-alike, case, traversal, control)
        phase = rng.choice(["nosuch", "Trial", "triаl", "trial\x1b", "%2e%2e", "t" * 300])
        return _upload("unknown-phase", Request(phase, "lab-a"), body, Reject(("phase",), False))
    if kind == 2:  # a phase not open yet, or closed
        phase = rng.choice(["early", "past"])
        return _upload("phase-shut", Request(phase, "lab-a"), body, Reject((phase,), False))
    if kind == 3:  # a target not of the phase, or none where the phase has several
        target = rng.choice(["lab-b", "LAB-A", "nosuch", "../lab-a", "", None, "lab-a\n"])
        names = ("target",) if not target else (repr(target), "target")
        return _upload("bad-target", Request("trial", target), body, Reject(names, False))
    if kind == 4:  # no runs left
        return _upload(
            "no-runs",
            Request("tight", "lab-c"),
            _pair_text(LAB_C, _scores(rng, LAB_C)),
            Reject(("runs",), False),
        )
    if kind == 5:  # past the phase's cap
        body = _sts_text([repr(rng.random()) for _ in STS2]) + b" " * 64
        return _upload(
            "too-large", Request("small", None, "big.txt"), body, Reject(("cap",), False)
        )
    # odd client names: the file is still scored, the name shown tamed
    filename = rng.choice(
        [
            "../../etc/passwd",
            "a\x1b[31mred.csv",
            "",
            None,
            "C:\\x\\run.csv",
            "/",
            "x" * 5000,
            "run\x00.csv",
            "ｒｕｎ.csv",
            "..",
            "\u202erun.csv",
        ]
    )
    return _upload(
        "odd-filename",
        Request("trial", "lab-a", filename),
        body,
        Accept(_spearman(LAB_A, scores, "lab-a")),
    )


SURFACES = [Surface("upload", draw_upload, run_upload)]
