"""The production set-up of docs/operating-a-server.md, from the files in ``deploy/``: the
systemd units pass ``systemd-analyze verify`` (and the server's its ``security`` check), the
Caddyfile is adapted by Caddy itself, and Caddy on a loopback port with ``tls internal``
proxies HTTPS to ``simeval serve run`` started with the unit's own command line; the backup
script keeps the newest backups; and the page shows each file as it is in ``deploy/``, with
the paths the units name.

systemd-analyze and caddy are Debian's (``systemd``, ``caddy``): a test that needs one skips
where it is missing, and fails instead when SIMEVAL_REQUIRE_BROWSER is set (as CI does, which
installs both)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

import readme_text
from serve_kit import free_port
from test_serve_security import CliServer, wait_for

pytest.importorskip("fastapi")

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
PAGE = readme_text.doc("operating-a-server.md")
BIN = Path(sys.executable).parent
UNITS = ("simeval-serve.service", "simeval-backup.service", "simeval-backup.timer")


def tool(name: str, package: str) -> str:
    """The path of the program ``name``: skipped where it is missing, a failure in CI."""
    found = shutil.which(name)
    if found is None:
        if os.environ.get("SIMEVAL_REQUIRE_BROWSER"):
            pytest.fail(f"{name} is required (apt install {package})")
        pytest.skip(f"no {name} on this machine (apt install {package})")
    return found


def unit_value(unit: str, key: str) -> str:
    """The value of ``key=`` in the unit file ``deploy/unit`` (its last setting)."""
    text = (DEPLOY / unit).read_text(encoding="utf-8")
    return re.findall(rf"^{key}=(.*)$", text, flags=re.M)[-1]


def stand_in_units(folder: Path) -> list[Path]:
    """The units copied into ``folder`` with their ExecStart programs replaced by a stand-in
    that exists (``verify`` refuses a unit whose program is missing on this machine)."""
    stand_in = folder / "stand-in"
    stand_in.write_text("#!/bin/sh\n", encoding="utf-8")
    stand_in.chmod(0o755)
    copies = []
    for unit in UNITS:
        text = (DEPLOY / unit).read_text(encoding="utf-8")
        text = re.sub(r"^(ExecStart=)(\S+)", rf"\g<1>{stand_in}", text, flags=re.M)
        (folder / unit).write_text(text, encoding="utf-8")
        copies.append(folder / unit)
    return copies


def verify(paths: list[Path]) -> subprocess.CompletedProcess[str]:
    analyze = tool("systemd-analyze", "systemd")
    return subprocess.run(
        [analyze, "verify", *map(str, paths)], capture_output=True, text=True, timeout=60
    )


def test_the_units_pass_systemd_analyze_verify(tmp_path: Path) -> None:
    """Every unit is read by systemd without a warning (an unknown key is only a warning, so
    the check is on what verify prints); a misspelt hardening key is caught the same way."""
    copies = stand_in_units(tmp_path)
    done = verify(copies)
    assert (done.returncode, done.stdout + done.stderr) == (0, "")
    wrong = tmp_path / "typo.service"
    wrong.write_text(copies[0].read_text().replace("NoNewPrivileges=", "NoNewPrivilege="))
    done = verify([wrong])
    assert "Unknown key 'NoNewPrivilege'" in done.stderr


def test_the_server_unit_is_hardened(tmp_path: Path) -> None:
    """``systemd-analyze security`` rates the server's unit OK or better (its exposure scale:
    0 safe … 10 unsafe), and the unit says what the page says it does."""
    (unit, *_) = stand_in_units(tmp_path)
    analyze = tool("systemd-analyze", "systemd")
    done = subprocess.run(
        [analyze, "security", "--offline=true", "--no-pager", str(unit)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    level = re.search(r"Overall exposure level for \S+: ([\d.]+) (\w+)", done.stdout)
    assert level, done.stdout[-2000:] + done.stderr
    assert float(level.group(1)) <= 4.0 and level.group(2) in ("OK", "SAFE"), level.group(0)
    assert f"rates it {level.group(1)}, *{level.group(2)}*" in PAGE  # as the page says
    for key, value in (("User", "simeval"), ("NoNewPrivileges", "yes"),
                       ("ProtectSystem", "strict"), ("ReadWritePaths", "/srv/simeval"),
                       ("PrivateTmp", "yes"), ("Restart", "on-failure"),
                       ("EnvironmentFile", "/etc/simeval/serve.env")):  # fmt: skip
        assert unit_value("simeval-serve.service", key) == value, key
    assert "--host 127.0.0.1" in unit_value("simeval-serve.service", "ExecStart")


def adapted(caddyfile: Path, home: Path) -> dict:
    """The Caddyfile as Caddy reads it (``caddy adapt``: its JSON configuration)."""
    caddy = tool("caddy", "caddy")
    done = subprocess.run(
        [caddy, "adapt", "--config", str(caddyfile), "--adapter", "caddyfile"],
        capture_output=True, text=True, timeout=60, env=caddy_env(home),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def caddy_env(home: Path) -> dict[str, str]:
    """Caddy's environment: its certificates and state in ``home``, not the user's."""
    home.mkdir(parents=True, exist_ok=True)
    return {
        **os.environ,
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),
    }


def test_the_caddyfile_caps_uploads_and_cuts_off_slow_clients(tmp_path: Path) -> None:
    """Caddy's own reading of the Caddyfile: one site on 443 for the host name, proxied to the
    port the unit serves on, a body cap above the default phase's upload cap plus the form's
    slack (so the server's own refusal, which names the cap, reaches the team), and timeouts
    for slow headers and bodies."""
    from simeval.serve.routers.forms import FORM_SLACK

    config = adapted(DEPLOY / "Caddyfile", tmp_path / "caddy")
    (server,) = config["apps"]["http"]["servers"].values()
    assert server["listen"] == [":443"]
    assert server["read_header_timeout"] == 10 * 10**9  # nanoseconds
    assert server["read_timeout"] == 60 * 10**9  # the whole request, body included
    (route,) = server["routes"]
    assert route["match"] == [{"host": ["task.example.org"]}]
    steps = {h["handler"]: (r.get("match"), h) for r in route["handle"][0]["routes"]
             for h in r["handle"]}  # fmt: skip
    cap = steps["request_body"][1]["max_size"]
    nginx = re.search(r"client_max_body_size (\d+)m;", PAGE)  # the page's other proxy
    assert nginx and cap == int(nginx.group(1)) * 10**6
    guide = (ROOT / "docs" / "guide" / "shared-task.md").read_text(encoding="utf-8")
    caps = [int(n.replace("_", "")) for n in re.findall(r"max_bytes = ([\d_]+)", guide)]
    assert cap >= max(caps) + FORM_SLACK  # the guide's campaign file's caps
    (match,), refusal = steps["static_response"]
    assert refusal["status_code"] == 413 and f"> {cap}`" in f"{match['expression']}`"
    proxy = steps["reverse_proxy"][1]
    port = unit_value("simeval-serve.service", "ExecStart").split("--port ")[1].split()[0]
    assert proxy["upstreams"] == [{"dial": f"127.0.0.1:{port}"}]


def wait_serving(process: subprocess.Popen, url: str, log: Path, what: str) -> None:
    """Wait until ``url`` answers (whatever its status; TLS unchecked); fail with ``log`` when
    ``process`` ends first."""

    def up() -> bool:
        if process.poll() is not None:
            raise AssertionError(f"{what} exited:\n{log.read_text()}")
        try:
            httpx.get(url, verify=False, timeout=2, trust_env=False)
            return True
        except httpx.HTTPError:
            return False

    wait_for(up, what)


def loopback_caddyfile(port: int, upstream: int, home: Path) -> Path:
    """The Caddyfile for a test: the site on ``localhost:port`` with Caddy's own CA (``tls
    internal``, kept out of the machine's trust store), no redirect listener on port 80 and
    no admin endpoint, proxied to ``upstream``; everything else as written."""
    text = (DEPLOY / "Caddyfile").read_text(encoding="utf-8")
    text = text.replace("{\n", "{\n\tadmin off\n\tskip_install_trust\n"
                        "\tauto_https disable_redirects\n", 1)  # fmt: skip
    site = f"localhost:{port} {{\n\tbind 127.0.0.1\n\ttls internal"
    text = text.replace("task.example.org {", site)
    text = text.replace("127.0.0.1:8000", f"127.0.0.1:{upstream}")
    home.mkdir(parents=True, exist_ok=True)
    path = home / "Caddyfile"
    path.write_text(text, encoding="utf-8")
    return path


@contextmanager
def caddy_running(upstream: int, home: Path, tries: int = 3) -> Iterator[str]:
    """``caddy run`` on the test's Caddyfile (:func:`loopback_caddyfile`) proxying to
    ``upstream`` until the block ends; yields its HTTPS base URL. A port taken between its
    choice and Caddy's bind (another test's server) is chosen again, ``tries`` times."""
    caddy = tool("caddy", "caddy")
    log = home / "caddy.log"
    for attempt in range(tries):
        port = free_port()
        caddyfile = loopback_caddyfile(port, upstream, home)
        with open(log, "wb") as out:
            process = subprocess.Popen(
                [caddy, "run", "--config", str(caddyfile), "--adapter", "caddyfile"],
                stdout=out, stderr=subprocess.STDOUT, env=caddy_env(home),
            )  # fmt: skip
        base = f"https://localhost:{port}"
        try:
            wait_serving(process, base + "/", log, "caddy")
            break
        except AssertionError:
            process.wait(timeout=30)
            if attempt + 1 == tries or "address already in use" not in log.read_text():
                raise
    try:
        yield base
    finally:
        process.terminate()
        process.wait(timeout=30)


def unit_command(folder: Path, port: int) -> list[str]:
    """The server unit's ExecStart, with this venv's simeval, a test folder and port."""
    argv = shlex.split(unit_value("simeval-serve.service", "ExecStart"))
    assert argv[0] == "/opt/simeval/bin/simeval"
    replaced = {"/opt/simeval/bin/simeval": str(BIN / "simeval"), "/srv/simeval": str(folder),
                "8000": str(port)}  # fmt: skip
    return [replaced.get(a, a) for a in argv]


def code_under_test() -> dict[str, str]:
    """The environment of a child ``simeval``: this tree's code first, SQLite in its folder."""
    import simeval

    env = {k: v for k, v in os.environ.items() if k != "SIMEVAL_SERVE_DB"}
    src = str(Path(simeval.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
    return env


@contextmanager
def unit_server(folder: Path, port: int, log: Path) -> Iterator[None]:
    """``simeval serve run`` as the unit starts it, on ``port``, until the block ends."""
    with open(log, "wb") as out:
        server = subprocess.Popen(
            unit_command(folder, port), stdout=out, stderr=subprocess.STDOUT,
            env=code_under_test(),
        )  # fmt: skip
    try:
        wait_serving(server, f"http://127.0.0.1:{port}/", log, "the server")
        yield
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.mark.slow  # a live server process and Caddy
def test_https_through_caddy_reaches_the_server_started_as_the_unit_starts_it(
    tmp_path: Path,
) -> None:
    """Caddy (the Caddyfile as written, on a loopback port with its own CA) in front of
    ``simeval serve run`` (the unit's command line): the campaign's page arrives over HTTPS,
    the server knows the request came over HTTPS from the proxy (its cookies take the
    ``__Host-`` prefix, set only over HTTPS), a file past the phase's cap gets the server's
    own refusal naming the cap, and a declared body past the proxy's cap is refused by Caddy,
    which never hands it to the server."""
    folder = tmp_path / "srv"
    setup = CliServer(folder, f"sqlite:///{folder / 'serve.db'}", tmp_path / "setup.log")
    setup.create_campaign()  # live25: phase "now", open, max_bytes 100_000
    upstream, log, home = free_port(), tmp_path / "server.log", tmp_path / "c"
    url, params = "/api/phases/now/submissions", {"target": "mc30", "filename": "big.csv"}
    with (
        unit_server(folder, upstream, log),
        caddy_running(upstream, home) as base,
        httpx.Client(base_url=base, verify=False, trust_env=False, timeout=60) as http,
    ):
        page = http.get("/campaigns/live25")
        assert page.status_code == 200 and "live25" in page.text
        cookies = page.headers.get_list("set-cookie")
        assert cookies and all(c.startswith("__Host-") for c in cookies), cookies
        token = http.post("/api/campaigns/live25/teams", json={"team": "alpha"})
        assert token.status_code == 201, token.text
        headers = {"authorization": f"Bearer {token.json()['token']}"}
        big = http.post(url, params=params, content=b"x" * 200_000, headers=headers)
        assert big.status_code == 413 and "100,000 bytes" in big.text, big.text
        cap = 20 * 10**6  # the Caddyfile's (Caddy's reading of it is checked above)
        # a phase whose cap is past the proxy's: Caddy's cap is the one that holds
        raised = [str(BIN / "simeval"), "serve", "phase", str(folder), "-c", "live25", "-p",
                  "now", "--max-bytes", str(2 * cap)]  # fmt: skip
        done = subprocess.run(raised, env=code_under_test(), capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        seen = log.read_text().count(f"POST {url}")
        huge = http.post(url, params=params, content=b"x" * (cap + 1), headers=headers)
        assert huge.status_code == 413, huge.text
        assert huge.text == "the request is larger than this server's cap of 20 MB"
        assert log.read_text().count(f"POST {url}") == seen  # the server never saw it
        fits = http.post(url, params=params, content=b"x" * cap, headers=headers)
        assert fits.status_code == 422, fits.text  # passed to the server: not a CSV
        assert log.read_text().count(f"POST {url}") == seen + 1


@pytest.mark.slow  # four simeval processes
def test_the_backup_script_backs_up_and_keeps_the_newest(tmp_path: Path) -> None:
    """deploy/simeval-backup, as the backup unit runs it (its environment from the unit),
    three times with SIMEVAL_KEEP=2: three backups made, each a server folder with its
    database; the oldest removed, the two newest kept; SIMEVAL_KEEP=0 refused."""
    assert (
        unit_value("simeval-backup.service", "ExecStart")
        == "/usr/local/bin/simeval-backup /srv/simeval"
    )
    folder = tmp_path / "srv"
    CliServer(folder, f"sqlite:///{folder / 'serve.db'}", tmp_path / "log").create_campaign()
    backups = tmp_path / "backups"
    env = {k: v for k, v in os.environ.items() if k != "SIMEVAL_SERVE_DB"}
    env.update(SIMEVAL_BACKUPS=str(backups), SIMEVAL_KEEP="2", SIMEVAL=str(BIN / "simeval"))
    made = []
    for _ in range(3):
        done = subprocess.run([str(DEPLOY / "simeval-backup"), str(folder)], env=env,
                              capture_output=True, text=True, timeout=120)  # fmt: skip
        assert done.returncode == 0, done.stderr
        (said,) = [line for line in done.stdout.splitlines() if line.startswith("backed up")]
        made.append(said.rsplit(" into ", 1)[1])
        assert (Path(made[-1]) / "serve.db").is_file()
        time.sleep(max(0.0, 1.1 - (time.time() % 1)))  # the next second: a new name
    assert len(set(made)) == 3 and made == sorted(made)
    assert sorted(str(p) for p in backups.iterdir()) == made[1:]
    assert f"removed {made[0]}" in done.stdout
    env["SIMEVAL_KEEP"] = "0"  # would remove the backup just made: refused before any
    done = subprocess.run([str(DEPLOY / "simeval-backup"), str(folder)], env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 2 and "SIMEVAL_KEEP" in done.stderr, done.stderr
    assert sorted(str(p) for p in backups.iterdir()) == made[1:]


def page_blocks(kind: str) -> list[tuple[str, str]]:
    """The page's blocks whose marker names this test (``run`` or ``file``): (language,
    text)."""
    marker = rf"<!-- {kind}: by tests/serve/test_deploy.py -->\n\n```(\w+)\n(.*?)```"
    return re.findall(marker, PAGE, flags=re.S)


def test_the_page_shows_the_files_as_they_are() -> None:
    """The unit and the Caddyfile on the page are deploy/'s, byte for byte."""
    shown = page_blocks("file")
    assert shown == [
        ("ini", (DEPLOY / "simeval-serve.service").read_text(encoding="utf-8")),
        ("caddy", (DEPLOY / "Caddyfile").read_text(encoding="utf-8")),
    ]


def test_the_steps_put_every_file_where_the_units_look_for_it() -> None:
    """The page's root steps (not run here: they change the machine) against the units: the
    user and folders they make are the units' User= and ReadWritePaths=, every file of
    deploy/ is installed, each to the path a unit or Caddy reads it from, and the program
    is the one ExecStart names."""
    steps = "\n".join(text for _, text in page_blocks("run"))
    serve = {k: unit_value("simeval-serve.service", k)
             for k in ("User", "ReadWritePaths", "EnvironmentFile", "ExecStart")}  # fmt: skip
    backup_out = unit_value("simeval-backup.service", "Environment").split("SIMEVAL_BACKUPS=")[1]
    assert f"adduser --system --group --home {serve['ReadWritePaths']} {serve['User']}" in steps
    folders = f"install -d -o simeval -g simeval -m 0700 {serve['ReadWritePaths']} "
    assert folders + backup_out.split()[0] in steps
    program = serve["ExecStart"].split()[0]
    assert f"python3 -m venv {program.removesuffix('/bin/simeval')}" in steps
    installed = dict(re.findall(r"install -m 0\d+ (?:-g simeval )?(.+?) (\S+)$", steps, re.M))
    sources = {s for group in installed for s in group.split()}
    assert sources == {f"deploy/{p.name}" for p in DEPLOY.iterdir()}
    assert installed["deploy/serve.env.example"] == serve["EnvironmentFile"]
    assert installed["deploy/Caddyfile"] == "/etc/caddy/Caddyfile"  # Debian's caddy.service
    script = unit_value("simeval-backup.service", "ExecStart").split()[0]
    assert installed["deploy/simeval-backup"] == script
    units = " ".join(f"deploy/{u}" for u in UNITS)
    assert installed[units] == "/etc/systemd/system/"
    for command in ("serve campaign", "serve organiser add"):
        assert f"as_simeval {program} {command} {serve['ReadWritePaths']} " in steps
    assert "systemctl enable --now simeval-serve.service simeval-backup.timer" in steps
