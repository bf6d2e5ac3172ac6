"""Language-aware text handling: tokenizing, normalizing, lemmatizing."""
