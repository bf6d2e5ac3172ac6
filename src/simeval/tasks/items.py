"""Old imports: the kinds' names and the per-item metrics now live in :mod:`simeval.kinds`."""

from simeval.kinds import canonical, main_metric
from simeval.kinds.graded import GRADED as _GRADED
from simeval.kinds.linking import LINKING as _LINKING
from simeval.kinds.related import RELATED as _RELATED
from simeval.kinds.rows import ItemMetrics, concat_items, task_metrics
from simeval.kinds.sts import STS as _STS
from simeval.kinds.suites import MEAN_SUITE as _MEAN
from simeval.kinds.suites import STS_SUITE as _STS_SUITE
from simeval.kinds.suites import STS_YEAR_SUITE as _STS_YEAR
from simeval.kinds.suites import SUM_SUITE as _SUM
from simeval.kinds.suites import short_names
from simeval.results.items import Items

GRADED, RELATED, STS, LINKING = _GRADED.name, _RELATED.name, _STS.name, _LINKING.name
SUM_SUITE, STS_SUITE, STS_YEAR_SUITE, MEAN_SUITE = (
    _SUM.name,
    _STS_SUITE.name,
    _STS_YEAR.name,
    _MEAN.name,
)

__all__ = [
    "GRADED",
    "LINKING",
    "MEAN_SUITE",
    "RELATED",
    "STS",
    "STS_SUITE",
    "STS_YEAR_SUITE",
    "SUM_SUITE",
    "ItemMetrics",
    "Items",
    "canonical",
    "concat_items",
    "main_metric",
    "short_names",
    "task_metrics",
]
