"""The library surface: what the command line, the server and a Python user call.

Every ``simeval`` command is one call here (the cli only parses, calls and prints):

- running measures (:mod:`.running`): ``evaluate``, ``predict``;
- scoring submission files (:mod:`.scoring`): ``score``;
- what is evaluated (:mod:`.targets`): ``load_target(s)`` by name, ``sts_target``,
  ``trec_target``, ``pair_target`` from gold files;
- result records (:mod:`.results`): ``keep_results``, ``load_results``, ``results_frame``;
- training models (:mod:`.training`): ``train`` with ``TrainSettings`` (or a TOML file,
  ``read_train_config``);
- building benchmark datasets (:mod:`.building`): ``build_linking``, ``build_sts_sample``,
  ``build_negatives``; annotation campaigns (:mod:`.campaigns`): ``campaign_assign``,
  ``campaign_aggregate``, ``campaign_simulate``.

Targets: a benchmark (``simlex999``, ``russe-hj``, ``sts12-msrvid``), a suite (``russe``,
``sts12``, ``xling``), a group (``words``), a name from a user registry file (``registry=``
or ``SIMEVAL_REGISTRY``), or a path: a pair file, an STS folder or a linking folder. Nothing
here depends on the kind of task: every kind implements the contract of
:mod:`simeval.kinds.base`.

(The modules are not named after the functions, so that ``simeval.api.score`` is always the
function: the server's tests replace it by that name.)
"""

from __future__ import annotations

from simeval.api.results import keep_results, load_results, results_frame, save_results
from simeval.api.running import evaluate, measure_of, predict, prepare
from simeval.api.scoring import score
from simeval.api.targets import (
    Target,
    load_target,
    load_targets,
    member_benchmarks,
    pair_target,
    registry_of,
    sts_target,
    target_files,
    trec_target,
)

__all__ = [
    "Target",
    "evaluate",
    "keep_results",
    "load_results",
    "load_target",
    "load_targets",
    "measure_of",
    "member_benchmarks",
    "pair_target",
    "predict",
    "prepare",
    "registry_of",
    "results_frame",
    "save_results",
    "score",
    "sts_target",
    "target_files",
    "trec_target",
]
