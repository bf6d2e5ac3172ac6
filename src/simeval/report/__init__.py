"""Reports over a results folder: leaderboards, intervals, subsets, comparisons, plots, HTML.

Reports read the records and per-item rows that ``simeval evaluate`` and ``simeval score``
save; they never run a measure again.
"""
