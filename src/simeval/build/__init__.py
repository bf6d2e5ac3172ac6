"""Building benchmark data: annotation aggregation and agreement."""
