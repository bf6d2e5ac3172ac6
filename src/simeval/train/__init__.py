"""Building similarity measures from corpora: count models (PPMI, SVD) and gensim models."""
