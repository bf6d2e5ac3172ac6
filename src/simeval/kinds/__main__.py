"""``python -m simeval.kinds > docs/metrics.md``: the metric page, with every kind's metrics
(those a kind declares in its own module join the catalog when :mod:`simeval.kinds` is
imported, so the page is printed from here, not from :mod:`simeval.metrics.catalog`)."""

from simeval.kinds import KINDS  # noqa: F401  (registers the kinds' own metrics)
from simeval.metrics.catalog import markdown_page

print(markdown_page(), end="")
