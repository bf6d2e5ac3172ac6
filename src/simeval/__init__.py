"""simeval: evaluate semantic similarity measures the way the shared tasks do.

The Python API mirrors the command line::

    import simeval
    results = simeval.evaluate("overlap", "sts12")          # simeval evaluate overlap -s sts12
    simeval.predict("encoder", "russe", "russe.csv")          # simeval predict encoder -s russe
    simeval.score("sts12", "outputs/")                        # simeval score file sts12 outputs/
    frame = simeval.results_frame("results")                  # the recorded results, pandas
"""

from typing import Any

__version__ = "0.1.0"
__all__ = ["evaluate", "load_results", "load_target", "predict", "results_frame", "score"]


def __getattr__(name: str) -> Any:
    # Lazy, so `import simeval` (and the command line) stays fast.
    if name in __all__:
        from simeval import api

        return getattr(api, name)
    raise AttributeError(f"module 'simeval' has no attribute {name!r}")
