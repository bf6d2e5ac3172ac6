"""Results: the Result record, the results folder (append-only) and per-item rows on disk."""
