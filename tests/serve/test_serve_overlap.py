"""A hidden test's gold stays out of every visible phase of the server, and a server that
cannot load its benchmarks says so:

- no benchmark hidden in one campaign is visible in another (either order of creation);
- a visible and a hidden benchmark share no word or sentence pair (``men``/``men-test``,
  ``rg65``/``mc30``), in the same campaign or across campaigns;
- ``simeval serve campaign`` prints each phase's targets and whether its scores are hidden,
  and whether that was the default;
- the server does not start when a campaign's target does not load, and a benchmark that
  fails while a request is answered gives 503, not 500.

Which pairs two benchmarks share is read here from the data files themselves."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest

pytest.importorskip("fastapi")

from serve_kit import (
    CAMPAIGN,
    OPENS,
    TRIAL_END,
    Clock,
    gold,
    make_server,
    stop,
)
from simeval.errors import InputError, SimevalError
from simeval.serve.db import Database
from simeval.serve.service.campaigns import Targets, create_campaign


def campaign(name: str, *phases: tuple[str, list[str], bool | None]) -> str:
    """A campaign file: phases as (name, targets, hidden; None leaves ``hidden`` out)."""
    text = f'name = "{name}"\n'
    for pname, targets, hidden in phases:
        text += (
            f'\n[[phase]]\nname = "{pname}"\ntargets = {targets!r}\n'
            f"opens = {OPENS.isoformat()}\ndeadline = {TRIAL_END.isoformat()}\n"
            "runs = 2\nmax_bytes = 1_000_000\n"
        )
        if hidden is not None:
            text += f"hidden = {str(hidden).lower()}\n"
    return text.replace("'", '"')


def add(db: Database, folder: Path, text: str, targets: Targets | None = None) -> None:
    path = folder / f"{len(list(folder.glob('*.toml')))}.toml"
    path.write_text(text, encoding="utf-8")
    create_campaign(db, path, OPENS, targets or Targets())


@pytest.fixture
def db(serve_db: str) -> Database:
    return Database(serve_db)


# ---- 1: across campaigns

LEX25 = campaign(
    "lex25", ("trial", ["mc30"], False), ("test", ["sts15-answers-forums", "yp130"], True)
)


def test_a_benchmark_hidden_in_one_campaign_is_refused_visible_in_another(db, tmp_path):
    add(db, tmp_path, LEX25)
    for other in (["sts15-answers-forums"], ["sts15"]):  # itself, or its suite
        with pytest.raises(InputError) as caught:
            add(db, tmp_path, campaign("other", ("dev", other, False)))
        message = str(caught.value)
        assert "sts15-answers-forums" in message
        assert "campaign lex25" in message and "hidden phase test" in message
    add(db, tmp_path, campaign("other", ("dev", ["sts16-headlines"], False)))  # apart: taken


def test_a_benchmark_visible_in_one_campaign_is_refused_hidden_in_another(db, tmp_path):
    add(db, tmp_path, campaign("open25", ("dev", ["sts15"], False)))
    with pytest.raises(InputError) as caught:
        add(db, tmp_path, campaign("late", ("final", ["sts15-answers-forums"], True)))
    assert "visible phase dev of campaign open25" in str(caught.value)


# ---- 2: by items, not by name only


def shared_pairs(data_dir: Path, a: str, b: str) -> int:
    """Pairs of the word-set file ``b`` found in ``a``, either order."""
    rows_a = {frozenset(map(str.casefold, p[:2])) for p in gold(data_dir / a)}
    return sum(frozenset(map(str.casefold, p[:2])) in rows_a for p in gold(data_dir / b))


@pytest.mark.parametrize(
    ("shown", "hidden"),
    [("men", "men-test"), ("wordsim353", "wordsim353-sim"), ("simverb3500", "simverb3500-test")],
)
def test_benchmarks_that_share_pairs_are_not_visible_and_hidden(shown, hidden, tmp_path):
    db = Database(f"sqlite:///{tmp_path / 'serve.db'}")
    text = campaign("c", ("dev", [shown], False), ("final", [hidden], True))
    with pytest.raises(InputError, match=rf"{shown} in .* and {hidden} in .* share [\d,]+ item"):
        add(db, tmp_path, text)


def test_the_count_of_shared_pairs_is_the_data_files_and_either_order(data_dir, tmp_path):
    db = Database(f"sqlite:///{tmp_path / 'serve.db'}")
    expected = shared_pairs(data_dir, "rg65/EN-RG-65.txt", "mc30/EN-MC-30.txt")
    assert expected > 0
    with pytest.raises(InputError) as caught:  # in two campaigns, the hidden one first
        add(db, tmp_path, campaign("a", ("test", ["mc30"], None)))
        add(db, tmp_path, campaign("b", ("trial", ["rg65"], None)))
    found = re.search(r"share ([\d,]+) item", str(caught.value))
    assert found and int(found.group(1).replace(",", "")) == expected
    assert "campaign a" in str(caught.value) and "phase test" in str(caught.value)
    from simeval.serve.service.campaigns import item_key

    assert item_key(("Car", "automobile")) == item_key(("automobile", "car"))


# ---- 3: the phases printed at creation


def test_serve_campaign_prints_each_phase_and_whether_hidden_defaulted(tmp_path):
    from typer.testing import CliRunner

    from simeval.cli import app

    path = tmp_path / "c.toml"
    path.write_text(
        campaign(
            "c",
            ("trial", ["mc30"], None),
            ("eval", ["yp130"], None),
            ("test", ["russe-hj"], None),
            ("final", ["sts16-headlines"], True),
        ),
        encoding="utf-8",
    )
    result = CliRunner().invoke(app, ["serve", "campaign", str(tmp_path / "srv"), str(path)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert any("phase eval: yp130; scores visible (hidden not set" in line for line in lines), (
        result.stdout
    )
    assert any("phase test: russe-hj; scores hidden (hidden not set" in line for line in lines)
    assert any(line.strip() == "phase final: sts16-headlines; scores hidden" for line in lines)


# ---- 4: targets that do not load


def test_the_server_does_not_start_when_a_target_does_not_load(
    serve_db, tmp_path, monkeypatch, data_dir
):
    from simeval.serve.app import create_app

    s = make_server(serve_db, tmp_path / "srv", Clock(OPENS + timedelta(days=1)), CAMPAIGN)
    stop(s.app)
    monkeypatch.setenv("SIMEVAL_DATA_DIR", str(tmp_path / "no-such-folder"))
    with pytest.raises(SimevalError) as caught:
        create_app(serve_db, s.files, rate_limits={})
    message = str(caught.value)
    assert "campaign lex25" in message and "target mc30" in message
    assert "no-such-folder" in message
    monkeypatch.setenv("SIMEVAL_DATA_DIR", str(data_dir))  # the folder's lock was let go
    stop(create_app(serve_db, s.files, rate_limits={}))


def test_a_benchmark_failing_during_a_request_answers_503(tmp_path, monkeypatch):
    s = make_server(
        f"sqlite:///{tmp_path / 'serve.db'}",
        tmp_path / "srv",
        Clock(OPENS + timedelta(days=1)),
        CAMPAIGN,
    )
    s.app.state.service.targets._loaded.clear()  # loaded at start; now the folder goes
    monkeypatch.setenv("SIMEVAL_DATA_DIR", str(tmp_path / "gone"))
    r = s.client.get("/api/campaigns/lex25/phases/trial/inputs/mc30")
    assert r.status_code == 503 and r.headers["retry-after"]
    assert "benchmarks" in r.json()["error"] and "gone" not in r.text
    page = s.client.get("/campaigns/lex25/phases/trial/inputs/mc30")
    assert page.status_code == 503 and "text/html" in page.headers["content-type"]
    stop(s.app)


# ---- 5: a split phase's private part is kept as a hidden phase's gold is


def split_campaign(name: str, shown: str, split: str, hidden_split: bool = False) -> str:
    """A visible phase ``dev`` scoring ``shown`` and a phase ``final`` scoring ``split`` with a
    public/private split (30% public), hidden too when ``hidden_split``."""
    text = campaign(name, ("dev", [shown], False), ("final", [split], hidden_split))
    return text + "public_share = 0.3\n"


@pytest.mark.parametrize("hidden_split", [False, True])
def test_a_split_phase_shares_no_pair_with_a_visible_phase(tmp_path, data_dir, hidden_split):
    """SimVerb-3500's test pairs are among its 3,500: the visible phase's scores would show
    the gold of the split phase's private pairs."""
    db = Database(f"sqlite:///{tmp_path / 'serve.db'}")
    path = data_dir / "simverb3500"
    rows, test = (
        {frozenset(map(str.casefold, line.split("\t")[:2]))
         for line in (path / name).read_text().splitlines() if line}
        for name in ("SimVerb-3500.txt", "SimVerb-3000-test.txt")
    )  # fmt: skip
    expected = len(test & rows)  # distinct pairs (the test file holds one twice)
    assert expected > 0
    with pytest.raises(InputError) as caught:
        add(db, tmp_path, split_campaign("c", "simverb3500", "simverb3500-test", hidden_split))
    message = str(caught.value)
    found = re.search(r"simverb3500 in the visible phase dev of campaign c and simverb3500-test "
                      r"in the (split|hidden) phase final of campaign c share ([\d,]+) item",
                      message)  # fmt: skip
    assert found, message
    assert int(found.group(2).replace(",", "")) == expected
    assert "would show the gold of simverb3500-test" in message


def test_a_split_benchmark_is_refused_visible_elsewhere_and_split_beside_a_split(db, tmp_path):
    """By name, within a campaign file and across campaigns, either order; two split phases
    of one benchmark too (the one's public pairs are the other's private ones)."""
    with pytest.raises(InputError, match="in both the visible phase dev and the split phase "
                       "final: its scores in dev would show the gold of final"):  # fmt: skip
        add(db, tmp_path, split_campaign("a", "yp130", "yp130"))
    add(db, tmp_path, campaign("b", ("dev", ["yp130"], False)))
    with pytest.raises(InputError, match="visible phase dev of campaign b"):
        add(db, tmp_path, split_campaign("c", "mc30", "yp130"))
    add(db, tmp_path, split_campaign("d", "mc30", "sts12-msrvid"))
    with pytest.raises(InputError, match=r"sts12-msrvid in both the split phase final of "
                       r"campaign [de] and the split phase final of campaign [de]"):  # fmt: skip
        add(db, tmp_path, split_campaign("e", "wordsim353", "sts12"))


def test_splitting_a_phase_later_is_checked_as_a_split_phase_made_so(tmp_path):
    """``simeval serve split`` on a phase whose pairs a visible phase scores is refused."""
    from datetime import UTC, datetime

    from simeval.serve.service.split_setting import set_split

    later = datetime(2031, 1, 1, tzinfo=UTC)
    db = Database(f"sqlite:///{tmp_path / 'serve.db'}")
    text = campaign("c", ("dev", ["rg65"], False), ("final", ["mc30"], False),
                    ("other", ["yp130"], False))  # fmt: skip
    add(db, tmp_path, text.replace(OPENS.isoformat(), later.isoformat()).replace(
        TRIAL_END.isoformat(), (later + timedelta(days=9)).isoformat()))  # fmt: skip
    with pytest.raises(InputError, match=r"rg65 in the visible phase dev of campaign c and mc30 "
                       r"in the split phase final of campaign c share [\d,]+ item"):  # fmt: skip
        set_split(db, "c", "final", 0.3, None, later - timedelta(days=1), "cli")
    with pytest.raises(InputError, match=r"mc30 in the visible phase final of campaign c and "
                       r"rg65 in the split phase dev"):  # fmt: skip
        set_split(db, "c", "dev", 0.3, None, later - timedelta(days=1), "cli")
    assert set_split(db, "c", "other", 0.3, None, later - timedelta(days=1), "cli") == {
        "public_share": (None, 0.3)}  # fmt: skip
    db.dispose()
