"""Similarity measures, named by spec strings (see :mod:`simeval.measures.spec`).

=============  ==================================================================
``overlap``    STS-2012 baseline: token-overlap cosine
``jaccard``    token-set Jaccard
``orthographic``  ``kind=levenshtein|prefix|dice``, ``n=3``, ``lower=true``
``random``     ``seed=0``
``vectors``    ``path=FILE``, ``format=auto|word2vec|glove|word2vec-bin|fasttext-bin|gensim``,
               ``oov=zero|skip|backoff``, ``fallback=skip|zero``, ``sif=false``, ``lang=en``
``encoder``    ``model=all-MiniLM-L6-v2|PATH``, ``batch=64``, ``cache=true``
=============  ==================================================================
"""

from __future__ import annotations

from simeval.errors import InputError
from simeval.measures.base import Measure
from simeval.measures.spec import MeasureSpec, Params, parse_spec

MEASURES = ("overlap", "jaccard", "orthographic", "random", "vectors", "encoder")


def create_measure(spec: str | MeasureSpec) -> Measure:
    """The measure a spec string names, with its parameters checked and resolved."""
    parsed = parse_spec(spec) if isinstance(spec, str) else spec
    p = Params(parsed)
    if parsed.name in ("overlap", "jaccard", "orthographic", "random"):
        from simeval.measures.lexical import make_lexical

        return make_lexical(parsed.name, p)
    if parsed.name == "vectors":
        from simeval.measures.vectors import make_vectors

        return make_vectors(p)
    if parsed.name == "encoder":
        from simeval.measures.encoder import make_encoder

        return make_encoder(p)
    raise InputError(
        None, None, f"unknown measure {parsed.name!r}; available: {', '.join(MEASURES)}"
    )


__all__ = ["MEASURES", "Measure", "create_measure", "parse_spec"]
