"""Organiser baselines and announcements (issue 32, item 3): a baseline's runs are on the
board, marked, and never ranked among the teams or dropping one as dominated; announcements
appear on the campaign's page, newest first, rendered without raw HTML."""

from __future__ import annotations

from datetime import timedelta

import pytest

from serve_kit import page_csrf, pair_file, register, upload

pytest.importorskip("fastapi")


def test_a_baseline_is_shown_marked_and_never_ranked(srv, mc30, tmp_path) -> None:
    """The gold as a baseline beats both teams; the teams keep ranks 1 and 2 by their own
    scores, the baseline has none, and in the export's final table it drops no team (beta,
    below alpha on the only target, is dominated by alpha and dropped there; not by the
    baseline alone)."""
    from scipy.stats import spearmanr

    from simeval.serve.service.editing import set_baseline
    from simeval.serve.service.export import export

    server, clock = srv
    client = server.client
    gold = "word1,word2,sim\n" + "".join(f"{a},{b},{g}\n" for a, b, g in mc30)
    base = register(client, "organisers")
    set_baseline(server.db, "lex25", "organisers", True, clock.now)
    assert upload(client, base, gold.encode(), target="mc30").status_code == 201
    a_data, a_scores = pair_file(mc30, 11)
    b_data, b_scores = pair_file(mc30, 12)
    assert upload(client, register(client, "alpha"), a_data, target="mc30").status_code == 201
    assert upload(client, register(client, "beta"), b_data, target="mc30").status_code == 201
    truth = [g for *_, g in mc30]
    a, b = spearmanr(truth, a_scores)[0], spearmanr(truth, b_scores)[0]
    board = client.get("/api/campaigns/lex25/phases/trial/leaderboard").json()
    ranks = {row[1]: row[0] for row in board["rows"]}
    assert ranks["organisers run 1 (baseline)"] is None
    first, second = ("alpha run 1", "beta run 1") if a > b else ("beta run 1", "alpha run 1")
    assert (ranks[first], ranks[second]) == (1, 2)
    assert board["rows"][0][1] == "organisers run 1 (baseline)"  # shown where its score puts it
    page = client.get("/campaigns/lex25/phases/trial").text
    assert "(baseline)" in page and "never ranked among the teams" in page
    export(server.db, server.app.state.service.storage, "lex25", tmp_path / "out")
    final = (tmp_path / "out" / "trial" / "leaderboard.csv").read_text()
    assert "organisers run 1 (baseline)" in final and first in final
    assert second not in final  # dominated by the better team, as RUSSE pruned
    set_baseline(server.db, "lex25", "organisers", False, clock.now)
    board = client.get("/api/campaigns/lex25/phases/trial/leaderboard").json()
    assert board["rows"][0][:2] == [1, "organisers run 1"]


def test_announcements_on_the_page_newest_first(srv) -> None:
    from simeval.errors import InputError
    from simeval.serve.service.editing import announce, withdraw_announcement
    from simeval.serve.service.organisers import add_organiser

    server, clock = srv
    client = server.client
    announce(server.db, "lex25", "Trial open", "Inputs are **up**.", clock.now)
    clock.now += timedelta(hours=1)
    later = announce(server.db, "lex25", "Deadline moved", "<b>x</b> by a day", clock.now)
    page = client.get("/campaigns/lex25").text
    assert page.index("Deadline moved") < page.index("Trial open")
    assert "<strong>up</strong>" in page and "<b>x</b>" not in page and "&lt;b&gt;" in page
    with pytest.raises(InputError, match="title of 1 to 200"):
        announce(server.db, "lex25", "  ", "x", clock.now)
    withdraw_announcement(server.db, "lex25", later, clock.now)
    assert "Deadline moved" not in client.get("/campaigns/lex25").text
    token = add_organiser(server.db, "Ada", clock.now)
    csrf = page_csrf(client, "/organiser")
    client.post("/organiser/login", data={"csrf": csrf, "token": token})
    csrf = page_csrf(client, "/organiser/campaigns/lex25")
    url = "/organiser/campaigns/lex25/announcements"
    r = client.post(url, data={"csrf": csrf, "action": "post", "title": "Test data out",
                               "body": "See the *test* phase."})  # fmt: skip
    assert r.status_code == 200 and "announcement posted" in r.text
    assert "<em>test</em>" in client.get("/campaigns/lex25").text
