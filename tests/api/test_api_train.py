"""`simeval.api.train` without the command line, and `simeval train --config`: a TOML file
and the same flags make the same model; flags override the file; a bad key or type is an
error naming the file and the key. Expected counts are made by hand in the tests."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simeval.api import TrainSettings, evaluate, read_train_config, train, train_settings
from simeval.cli import app
from simeval.errors import InputError

COMBINE = ["--on", "sts12-train-msrpar", "--measure", "overlap", "--features", "length"]


def _invoke(*args: str) -> None:
    done = CliRunner().invoke(app, ["train", *args])
    assert done.exit_code == 0, done.output


def _record(folder: Path) -> dict:
    record = json.loads((folder / "combine.json").read_text(encoding="utf-8"))
    record.pop("seconds")
    return record


def test_config_file_and_flags_make_the_same_combination(tmp_path, store):
    config = tmp_path / "combine.toml"
    config.write_text(
        f'kind = "combine"\nout = "{tmp_path / "from-file"}"\non = ["sts12-train-msrpar"]\n'
        '\n[combine]\nmeasure = ["overlap"]\nfeatures = "length"\n',
        encoding="utf-8",
    )
    _invoke("--config", str(config))
    _invoke("combine", *COMBINE, "--out", str(tmp_path / "from-flags"))
    by_file, by_flags = _record(tmp_path / "from-file"), _record(tmp_path / "from-flags")
    assert by_file == by_flags  # the same settings, data sha256 and fitted model's sha256
    assert by_file["pairs"] == 750 and by_file["config"]["features"] == ["length"]
    (a,) = evaluate(f"learned:model={tmp_path / 'from-file'}", "sts12-msrpar", store=store)
    (b,) = evaluate(f"learned:model={tmp_path / 'from-flags'}", "sts12-msrpar", store=store)
    assert a.metrics == b.metrics


def test_a_flag_overrides_the_file(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text(
        'kind = "combine"\nseed = 3\non = ["sts12-train-msrvid"]\n[combine]\nmodel = "linear"\n',
        encoding="utf-8",
    )
    _invoke("--config", str(config), "--seed", "5", *COMBINE, "--out", str(tmp_path / "m"))
    record = _record(tmp_path / "m")
    assert record["config"]["seed"] == 5  # the flag, not the file's 3
    assert record["config"]["on"] == ["sts12-train-msrpar"]  # --on replaces the file's list
    assert record["config"]["model"] == "linear"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("colour = 1\n", "colour: unknown key"),
        ("[combine]\nmodle = 'linear'\n", "[combine] modle: unknown key"),
        ("[graph]\nthreshold = 'high'\n", "[graph] threshold: expected a number, got 'high'"),
        ("seed = 1.5\n", "seed: expected an integer, got 1.5"),
        ("seed = true\n", "seed: expected an integer, got True"),
        ("epochs = 2.5\n", "epochs: expected an integer, got 2.5"),
        ("kind = 3\n", "kind: expected a string, got 3"),
        ("on = 'rg65'\n", "on: expected a list of strings"),
        ("[vectors]\nlemmatize = 1\n", "[vectors] lemmatize: expected true or false"),
        ("min-count = 3\n", "min-count: goes in the [vectors] section"),
        ("kind = \n", "not TOML"),
    ],
)
def test_bad_config_names_file_and_key(tmp_path, text, message):
    config = tmp_path / "bad.toml"
    config.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_train_config(config)
    assert str(config) in str(info.value) and message in str(info.value)
    done = CliRunner().invoke(app, ["train", "--config", str(config)])
    assert done.exit_code == 2 and message in done.stderr


def test_config_keys_in_either_spelling_and_numbers_widened(tmp_path):
    config = tmp_path / "v.toml"
    config.write_text("epochs = 3\n[vectors]\nmin-count = 3\none_per_line = true\nalpha = 1\n")
    expected = {"epochs": 3, "min_count": 3, "one_per_line": True, "alpha": 1.0}
    assert read_train_config(config) == expected
    s = train_settings(config, {"min_count": 7})
    assert (s.min_count, s.one_per_line, s.alpha, s.window) == (7, True, 1.0, 5)


def test_train_graph_without_the_cli_counts_by_hand(tmp_path):
    relations = tmp_path / "rel.csv"
    relations.write_text(
        "word1,word2,sim\nКот,собака,1\nкот,мышь,1\nдом,крыша,0\nдом,кот,0.3\nёж,мышь,1\n",
        encoding="utf-8",
    )
    test = tmp_path / "test.csv"
    test.write_text("word1,word2,sim\nмышь,еж,1\n", encoding="utf-8")
    trained = train(
        TrainSettings(kind="graph", out=tmp_path / "g", relations=[relations], exclude=[str(test)])
    )
    r = trained.record
    # related: кот-собака, кот-мышь (ёж-мышь is the test pair мышь-еж reversed);
    # unrelated: дом-крыша; дом-кот (0.3) is neither
    assert (r["related_rows"], r["unrelated_rows"], r["excluded_pairs"]) == (2, 1, 1)
    assert r["nodes"] == 3  # кот, собака, мышь
    assert trained.spec == f"graph:path={tmp_path / 'g'}"
    edges = (tmp_path / "g" / "edges.tsv").read_text(encoding="utf-8").splitlines()[1:]
    assert sorted(e.split("\t")[:2] for e in edges) == [["кот", "мышь"], ["кот", "собака"]]


def test_train_needs_a_kind_and_a_known_one(tmp_path):
    with pytest.raises(InputError, match="name the model kind"):
        train(TrainSettings(out=tmp_path / "x"))
    with pytest.raises(InputError, match="unknown model kind 'glove'"):
        train(TrainSettings(kind="glove", out=tmp_path / "x"))


def test_readme_config_equals_its_flags(tmp_path, monkeypatch):
    """The README's ru-ppmi.toml and its command line give `train` the same settings (the
    trainer itself is replaced: this is about the settings only)."""
    import shlex

    import simeval.api.training as training
    from readme_text import blocks, section

    text = section("## Models trained from the corpora")
    (toml,) = blocks(text, "toml")
    bash = blocks(text, "bash")[0]
    ru = re.search(r'RU="(.*)"', bash).group(1)
    line = next(x for x in bash.splitlines() if "--out models/ru-ppmi" in x)
    argv = shlex.split(line.replace("$RU", ru))[1:]  # without "simeval"
    seen: list[TrainSettings] = []

    def fake(settings, steps=None):
        seen.append(settings)
        raise InputError(None, None, "not trained in this test")

    monkeypatch.setattr(training, "train", fake)
    monkeypatch.chdir(tmp_path)
    Path("ru-ppmi.toml").write_text(toml, encoding="utf-8")
    for args in (
        argv,
        ["train", "--config", "ru-ppmi.toml"],
        [*argv[:1], "--config", "ru-ppmi.toml", "--contexts", "0"],
    ):
        assert CliRunner().invoke(app, args).exit_code == 2  # the fake trainer's error
    assert seen[0] == seen[1]
    assert (seen[1].kind, seen[1].lemmatize, seen[1].contexts) == ("ppmi", True, 2000)
    assert seen[2].contexts == 0 and seen[2].min_count == 5 and seen[2].out == seen[1].out
