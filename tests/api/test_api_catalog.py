"""`simeval.api.catalog_names` (what `simeval data info` and `data verify` call), without the
command line: a benchmark or group gives the data sets it reads (the README's data table),
each of which has its folder in shared/data."""

from __future__ import annotations

import pytest

from simeval.api import catalog_names
from simeval.errors import InputError


def test_a_data_set_is_itself_and_a_group_its_members_data():
    assert catalog_names("wordsim353") == ["wordsim353"]
    assert catalog_names("sts12-msrpar") == ["sts2012"]  # a benchmark: the data set it reads
    assert sorted(catalog_names("words")) == ["mc30", "rg65", "simlex999", "wordsim353"]


def test_every_named_data_set_has_its_folder_in_the_data(data_dir):
    for name in ("russe", "sts12", "words"):
        assert all((data_dir / entry).is_dir() for entry in catalog_names(name))


def test_unknown_name_suggests_the_closest():
    with pytest.raises(InputError, match="did you mean simlex999"):
        catalog_names("simlex99")
