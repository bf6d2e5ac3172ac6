"""simeval: evaluate semantic similarity measures the way the shared tasks do.

The Python API mirrors the command line, and takes values in memory as well as files::

    import simeval
    results = simeval.evaluate("overlap", "sts12")          # simeval evaluate overlap -s sts12
    simeval.predict("encoder", "russe", "russe.csv")          # simeval predict encoder -s russe
    simeval.score("sts12", "outputs/")                        # simeval score file sts12 outputs/
    simeval.score("mc30", [0.3, 0.9, ...])                    # one prediction per gold row
    gold = simeval.benchmark_from_pairs([("cat", "dog", 7.5), ("cat", "car", 1.0)])
    frame = simeval.results_frame("results")                  # the recorded results, pandas

Names (each documented where it lives, in :mod:`simeval.api`):

- running measures: ``evaluate``, ``predict``;
- scoring predictions or files: ``score``;
- benchmarks: ``benchmarks()`` (every one, with its metadata, loaded on use), ``benchmark(name)``
  (pairs, gold and metadata of any kind), ``Benchmark.from_pairs``, ``.from_sts``
  and ``Benchmark.from_qrels`` in memory, ``load_target`` (the task code's object);
- results: ``load_results``, ``results_frame``, ``results_table``;
- comparing and ranking results in memory: ``compare``, ``leaderboard``;
- reports over results folders: ``compare_systems``, ``leaderboard``, ``write_report``;
- training: ``train``, ``TrainSettings``.
"""

from typing import Any

__version__ = "0.1.0"
__all__ = [
    "Benchmark",
    "TrainSettings",
    "benchmark",
    "benchmark_from_pairs",
    "benchmark_from_qrels",
    "benchmarks",
    "compare",
    "compare_systems",
    "evaluate",
    "leaderboard",
    "load_results",
    "load_target",
    "predict",
    "results_frame",
    "results_table",
    "score",
    "train",
    "write_report",
]


def __getattr__(name: str) -> Any:
    # Lazy, so `import simeval` (and the command line) stays fast.
    if name in __all__ or name == "api":
        import importlib

        api = importlib.import_module("simeval.api")
        return api if name == "api" else getattr(api, name)
    raise AttributeError(f"module 'simeval' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
