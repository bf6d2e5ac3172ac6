"""The library surface: what the command line and a Python user call.

Every ``simeval`` command is one call here (the cli only parses, calls and prints, and imports
nothing of simeval but this package, :mod:`simeval.errors` and the report's terminal and
format modules: the ``cli-api`` contract in pyproject.toml):

- running measures (:mod:`.running`): ``evaluate``, ``predict``;
- scoring submission files, or predictions in memory (:mod:`.scoring`,
  :mod:`.predictions`): ``score``;
- what is evaluated (:mod:`.targets`): ``load_target(s)`` by name, ``sts_target``,
  ``trec_target``, ``pair_target`` from gold files, ``benchmark_from_pairs`` and
  ``benchmark_from_qrels`` from values in memory;
- result records (:mod:`.results`): ``keep_results``, ``load_results``, ``results_frame``;
- training models (:mod:`.training`): ``train`` with ``TrainSettings`` (or a TOML file,
  ``read_train_config``);
- building benchmark datasets (:mod:`.building`): ``build_linking``, ``build_sts_sample``,
  ``build_negatives``; annotation campaigns (:mod:`.annotation`): ``annotation_assign``,
  ``annotation_aggregate``, ``annotation_simulate``;
- the data catalog (:mod:`.catalog`): ``catalog_names``, ``data_sets``;
- reading results folders (:mod:`.reporting`): ``write_report``, ``leaderboard``,
  ``compare_systems``, ``rater_agreement``; results in memory: ``compare``, ``leaderboard``;
- running a shared task (:mod:`.serving`, one function per ``simeval serve`` action:
  campaigns, phases, teams, organisers, exports and backups; and the participant's
  ``register``, ``submit``, ``final``) over the server (:mod:`simeval.serve`), which sits
  below the api and scores uploads through the same path as ``score``
  (:func:`simeval.kinds.scoring.score_submission`);
- what a command runs in (:mod:`.environment`: the default results folder, the data store,
  the scheduler) and how records are shown (:mod:`.records`: JSON lines, the † mark).

Targets: a benchmark (``simlex999``, ``russe-hj``, ``sts12-msrvid``), a suite (``russe``,
``sts12``, ``xling``), a group (``words``), a name from a user registry file (``registry=``
or ``SIMEVAL_REGISTRY``), or a path: a pair file, an STS folder or a linking folder. Nothing
here depends on the kind of task: every kind implements the contract of
:mod:`simeval.kinds.base`.

The names are loaded on first use, so that importing one module of the package (the cli
imports :mod:`.training` for its defaults) stays cheap. The modules are not named after the
functions, so that ``simeval.api.score`` is always the function.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

_WHERE = {
    "keep_results": "results",
    "load_results": "results",
    "results_frame": "results",
    "results_table": "results",
    "ResultsTable": "results",
    "save_results": "results",
    "evaluate": "running",
    "measure_of": "running",
    "predict": "running",
    "prepare": "running",
    "score": "scoring",
    "Target": "targets",
    "benchmark_from_pairs": "targets",
    "benchmark_from_qrels": "targets",
    "benchmark_from_sts": "targets",
    "load_target": "targets",
    "load_targets": "targets",
    "member_benchmarks": "targets",
    "pair_target": "targets",
    "registry_of": "targets",
    "sts_target": "targets",
    "target_files": "targets",
    "trec_target": "targets",
    "TrainSettings": "training",
    "Trained": "training",
    "read_train_config": "training",
    "train": "training",
    "train_settings": "training",
    "Built": "building",
    "build_linking": "building",
    "build_negatives": "building",
    "build_sts_sample": "building",
    "catalog_names": "catalog",
    "Benchmark": "catalog",
    "Metadata": "catalog",
    "benchmark": "catalog",
    "benchmarks": "catalog",
    "annotation_aggregate": "annotation",
    "annotation_assign": "annotation",
    "annotation_simulate": "annotation",
    "compare": "reporting",
    "compare_systems": "reporting",
    "leaderboard": "reporting",
    "rater_agreement": "reporting",
    "write_report": "reporting",
}
__all__ = sorted(_WHERE)

if TYPE_CHECKING:  # the same names, for type checkers
    from simeval.api.annotation import (  # noqa: F401
        annotation_aggregate,
        annotation_assign,
        annotation_simulate,
    )
    from simeval.api.building import (  # noqa: F401
        Built,
        build_linking,
        build_negatives,
        build_sts_sample,
    )
    from simeval.api.results import (  # noqa: F401
        ResultsTable,
        keep_results,
        load_results,
        results_frame,
        results_table,
        save_results,
    )
    from simeval.api.running import evaluate, measure_of, predict, prepare  # noqa: F401
    from simeval.api.scoring import score  # noqa: F401
    from simeval.api.targets import (  # noqa: F401
        Target,
        benchmark_from_pairs,
        benchmark_from_qrels,
        benchmark_from_sts,
        load_target,
        load_targets,
        member_benchmarks,
        pair_target,
        registry_of,
        sts_target,
        target_files,
        trec_target,
    )
    from simeval.api.training import (  # noqa: F401  # noqa: F401
        Trained,
        TrainSettings,
        read_train_config,
        train,
        train_settings,
    )


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'simeval.api' has no attribute {name!r}")
    value = getattr(import_module(f"simeval.api.{_WHERE[name]}"), name)
    globals()[name] = value  # once loaded, an ordinary attribute
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])
