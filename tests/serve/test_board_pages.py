"""The HTML leaderboard in pages, and a search by team: at 10,000 runs each page of the board
stays under 200 KB, every run is on exactly one page, and a search shows the runs of the
teams whose name holds the text, every one of them."""

from __future__ import annotations

import math
import random
import re
from html import unescape

from serve_kit import perturbed, register, upload
from simeval.report.leaderboard import Table

RUNS = 10_000
LIMIT = 200_000  # bytes of a whole page (layout, style and script included)


def big_board(benchmarks: int = 3, name: str = "team-") -> Table:
    """10,000 runs (2,000 teams of five) on ``benchmarks`` benchmarks and their sum, ranked,
    each team named ``name`` and a number."""
    rng = random.Random(7)
    rows = []
    for t in range(RUNS // 5):
        for run in range(1, 6):
            scores = [round(rng.uniform(0, 1), 6) for _ in range(benchmarks)]
            rows.append([0, f"{name}{t:04d} run {run}", *scores, round(sum(scores), 6)])
    rows.sort(key=lambda r: -r[-1])
    for rank, row in enumerate(rows, 1):
        row[0] = rank
    columns = ["rank", "system", *(f"benchmark-{b:02d}" for b in range(benchmarks)), "sum"]
    tops = [(max(range(RUNS), key=lambda i: rows[i][j]), j) for j in range(2, 2 + benchmarks)]
    best = {(0, len(columns) - 1), *tops}
    return Table("", columns, rows, best)


def systems(page: str) -> list[str]:
    """The system column of a page's board, in order."""
    return [unescape(s) for s in re.findall(r'<td class="system">([^<]*)</td>', page)]


def test_a_board_of_10000_runs_is_paged_under_200_kb(srv) -> None:
    from simeval.serve.views import pages

    server, clock = srv
    _, phases = server.app.state.web.service.campaign("lex25")
    phase = phases[0]
    table = big_board()

    def shown(page: int = 1, team: str = "") -> str:
        body = pages.board_page("lex25", phase, table, None, clock.now, page=page, team=team)
        return pages.page("lex25: trial", body)

    first = shown()
    count = math.ceil(RUNS / pages.PAGE_ROWS)
    assert count > 1 and f"page 1 of {count}" in first
    seen: list[str] = []
    for n in range(1, count + 1):
        text = shown(n)
        assert len(text.encode("utf-8")) < LIMIT, (n, len(text))
        seen += systems(text)
    assert seen == [row[1] for row in table.rows]  # each run once, in the board's order
    assert shown(count + 5) == shown(count)  # past the end: the last page
    bold = [n for n in range(1, count + 1) if 'class="num best"' in shown(n)]
    holders = {math.ceil((i + 1) / pages.PAGE_ROWS) for i, _ in table.best}
    assert bold == sorted(holders)  # a best cell is bold on its own page only

    found = systems(shown(team="TEAM-0042"))  # any case
    assert found == [row[1] for row in table.rows if row[1].startswith("team-0042 run ")]
    assert len(found) == 5
    many = [row[1] for row in table.rows if "team-00" in row[1]]  # 100 teams, 500 runs
    pages_of_many = math.ceil(len(many) / pages.PAGE_ROWS)
    got = [s for n in range(1, pages_of_many + 1) for s in systems(shown(n, "team-00"))]
    assert got == many
    none = shown(team="nobody")
    assert systems(none) == [] and "No run of a team whose name holds" in none

    wide = big_board(15, "a-team-name-of-forty-characters-or-so-")  # 15 benchmarks
    body = pages.board_page("lex25", phase, wide, "a-team", clock.now, page=2)
    assert len(pages.page("lex25: trial", body).encode("utf-8")) < LIMIT


def test_the_board_route_pages_and_searches(srv, mc30, monkeypatch) -> None:
    from simeval.serve.views import pages

    server, _ = srv
    client = server.client
    for i, team in enumerate(("alpha", "beta", "gamma")):
        r = upload(client, register(client, team), perturbed(mc30, 0.1 + i, i), target="mc30")
        assert r.status_code == 201, r.text
    board = "/campaigns/lex25/phases/trial"
    whole = systems(client.get(board).text)
    assert sorted(whole) == ["alpha run 1", "beta run 1", "gamma run 1"]
    assert 'name="team"' not in client.get(board).text  # one page: no pager, no search
    monkeypatch.setattr(pages, "PAGE_ROWS", 1)
    # the pages kept were built with the old page size (a constant outside this test)
    monkeypatch.setattr(
        server.app.state.web, "board_pages", type(server.app.state.web.board_pages)()
    )
    for n, system in enumerate(whole, 1):
        text = client.get(board, params={"page": str(n)}).text
        assert systems(text) == [system] and f"page {n} of 3" in text
    assert systems(client.get(board, params={"team": "bet"}).text) == ["beta run 1"]
    hostile = '"><script>alert(1)</script>'
    text = client.get(board, params={"team": hostile}).text
    assert "<script>alert" not in text and "&lt;script&gt;" in text
    assert client.get(board, params={"page": "x"}).status_code == 422
