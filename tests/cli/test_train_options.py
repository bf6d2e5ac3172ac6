"""`simeval train`'s options are made from :class:`simeval.api.TrainSettings` (one field per
setting): every field but the argument ``kind`` is a flag with the field's default, a TOML key
in the field's section, and a vectors setting reaches the trainer's ``TrainConfig``."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import typer

from simeval.api import TrainSettings, read_train_config
from simeval.api import training as api_training
from simeval.cli import app

SHARED_FLAGS = {"results", "data_dir", "registry"}  # declared once for several commands


def _train_params() -> dict:
    command = typer.main.get_command(app)
    train = command.get_command(typer.Context(command), "train")
    return {p.name: p for p in train.params}


def test_every_setting_is_a_flag_with_its_default_and_help() -> None:
    params = _train_params()
    settings = TrainSettings()
    names = [f.name for f in dataclasses.fields(TrainSettings)]
    assert set(params) == {*names, "config"}
    assert params["kind"].param_type_name == "argument"
    for f in dataclasses.fields(TrainSettings):
        if f.name == "kind":
            continue
        p = params[f.name]
        assert p.opts[0] == "--" + f.name.replace("_", "-")
        if f.name not in SHARED_FLAGS:
            assert p.help == f.metadata["help"]
            value = getattr(settings, f.name)
            assert p.default == (None if isinstance(value, list) else value)
    # the hand-written extras the fields' metadata carry
    assert params["cross_fit"].metavar == "K"
    assert (params["seed"].min, params["seed"].max) == (0, 2**32 - 1)


@pytest.mark.parametrize(
    ("section", "key", "value", "expected"),
    [
        (None, "measure-options", '"oov=zero"', "oov=zero"),
        ("vectors", "min-count", "3", 3),
        ("vectors", "shift", "2", 2.0),
        ("encoder", "lr", "0.001", 0.001),
        ("combine", "cross-fit", "5", 5),
        ("graph", "relations", '["a.csv"]', [Path("a.csv")]),
        (None, "registry", '["r.toml"]', [Path("r.toml")]),
    ],
)
def test_a_setting_is_read_from_its_place_in_a_toml_file(
    tmp_path, section, key, value, expected
) -> None:
    head = "" if section is None else f"[{section}]\n"
    config = tmp_path / "train.toml"
    config.write_text(f"{head}{key} = {value}\n", encoding="utf-8")
    assert read_train_config(config) == {key.replace("-", "_"): expected}


def test_the_vectors_trainer_gets_every_setting_of_its_config(tmp_path, monkeypatch) -> None:
    from simeval.train import models

    seen = {}

    class Stop(Exception):
        pass

    def capture(config, *args, **kwargs):
        seen["config"] = config
        raise Stop

    class Prepared:
        sentences = 1

    monkeypatch.setattr(models, "train", capture)
    monkeypatch.setattr(api_training, "prepared_corpus", lambda *a, **k: Prepared())
    given = {"min_count": 2, "window": 3, "dim": 7, "contexts": 11, "max_words": 13,
             "alpha": 0.5, "shift": 2.0, "power": 1.0, "sg": 0, "epochs": 9, "seed": 17,
             "workers": 1, "lemmatize": True}  # fmt: skip
    settings = TrainSettings(kind="svd", out=tmp_path / "m", corpus=tmp_path, lang="en", **given)
    with pytest.raises(Stop):
        api_training.train(settings)
    config = seen["config"]
    assert (config.kind, config.lang) == ("svd", "en")
    assert {k: getattr(config, k) for k in given} == given
