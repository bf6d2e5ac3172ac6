"""What ``simeval register``, ``submit``, ``serve campaign`` and ``serve run`` call, called
without the CLI: the client functions against a live server, the campaign file's phase
lines, and ``run``'s uvicorn settings. Expected scores come from scipy over the uploaded
file and MC-30's gold, never from the server."""

from __future__ import annotations

import pytest
from scipy.stats import spearmanr

from serve_kit import BAD_LINE, CAMPAIGN, OPENS, Clock, bad_file, live, make_server, pair_file, stop
from simeval.errors import InputError, SimevalError

pytest.importorskip("fastapi")


def test_register_and_submit_without_the_cli(tmp_path, mc30):
    from simeval.serve.client import register_team, send_file, submit_file

    srv = make_server(f"sqlite:///{tmp_path / 'serve.db'}", tmp_path / "srv", Clock(OPENS))
    try:
        with live(srv.app) as base:
            token = register_team(base, "lex25", "alpha")
            with pytest.raises(SimevalError, match="taken"):
                register_team(base, "lex25", "alpha")
            data, scores = pair_file(mc30, 3)
            good = tmp_path / "run1.csv"
            good.write_bytes(data)
            answer = submit_file(base, good, token, "trial", "mc30")
            expected = spearmanr([g for _, _, g in mc30], scores).statistic
            assert (answer["run"], answer["target"]) == (1, "mc30")
            assert answer["results"][0]["score"] == pytest.approx(expected, abs=1e-12)
            bad = tmp_path / "bad.csv"
            bad.write_bytes(bad_file(mc30))
            with pytest.raises(InputError) as refused:
                submit_file(base, bad, token, "trial", "mc30")
            assert (refused.value.path, refused.value.line) == (str(bad), BAD_LINE)
            status, raw = send_file(base, bad, token, "trial", "mc30")  # the answer as it is
            assert status == 422 and raw["line"] == BAD_LINE
            with pytest.raises(SimevalError, match="token"):
                submit_file(base, good, "nope", "trial", "mc30")
    finally:
        stop(srv.app)


def test_phase_lines_say_which_phases_hide_their_scores(tmp_path):
    from simeval.serve.service.campaigns import phase_lines

    path = tmp_path / "c.toml"
    path.write_text(CAMPAIGN, encoding="utf-8")  # trial: hidden unset; test: hidden unset
    trial, test = phase_lines(path)
    assert trial.startswith("  phase trial: mc30, rg65, sts12-msrvid; scores visible")
    assert test.startswith("  phase test:") and "scores hidden (hidden not set" in test


def test_run_starts_uvicorn_with_the_servers_limits(tmp_path, monkeypatch):
    import uvicorn

    import simeval.serve.app as serve_app
    from simeval.serve.routers.web import RATE_LIMITS

    seen: dict = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **k: seen.update(k, app=app))
    monkeypatch.setattr(serve_app, "create_app", lambda url, files, **k: (url, files, k))
    (tmp_path / "srv").mkdir()
    (tmp_path / "srv" / "serve.db").touch()  # a server's folder (create_app is not run here)
    serve_app.run(tmp_path / "srv", None, "127.0.0.1", 8123, 2, ["10.0.0.1"], 5, 50)
    url, files, config = seen["app"]
    assert url == f"sqlite:///{(tmp_path / 'srv' / 'serve.db').resolve()}"
    assert files == tmp_path / "srv" / "files"
    assert config.pop("rate_limits") == RATE_LIMITS  # uploads: 20 a minute unless told
    assert config == {"scorers": 2, "trust_proxy": ["10.0.0.1"], "rejected_per_day": 5}
    assert (seen["port"], seen["limit_concurrency"], seen["timeout_keep_alive"]) == (8123, 50, 5)
    assert seen["proxy_headers"] is False
