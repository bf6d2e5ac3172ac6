"""Similarity measures, named by spec strings (see :mod:`simeval.measures.spec`).

=============  ==================================================================
``overlap``    STS-2012 baseline: token-overlap cosine
``jaccard``    token-set Jaccard
``orthographic``  ``kind=levenshtein|prefix|dice``, ``n=3``, ``lower=true``
``random``     ``seed=0``
``vectors``    ``path=FILE``, ``format=auto|word2vec|glove|word2vec-bin|fasttext-bin|gensim``,
               ``oov=zero|skip|backoff``, ``fallback=skip|zero``, ``sif=false``, ``lang=en``,
               ``allow_pickle=false`` (``true`` for ``format=gensim``, a pickle: it runs code),
               ``analogy=3cosadd|3cosmul`` (how analogy questions are answered)
``navec``      ``path=auto|FILE``, ``oov=backoff|zero|skip``, ``fallback=zero|skip``:
               navec's Russian news vectors (shipped in natasha's wheel), with back-off
               through lemmas, lexemes, look-alike letters and word parts
``encoder``    ``model=all-MiniLM-L6-v2|PATH``, ``batch=64``, ``cache=true``,
               ``backend=onnx|torch`` (onnx, the shipped model's default: exported once,
               run by ONNX Runtime; torch, a model folder's default)
``learned``    ``model=FOLDER``: a combination fitted by ``simeval train combine``
``graph``      ``path=DIR`` (``simeval train graph``), ``score=walk|adamic_adar|common|learned``,
               ``fallback=zero|skip|vectors|learned``, ``vectors=DIR``, ``learned=FOLDER``
               (``simeval train combine``: scores the pairs the graph does not connect)
=============  ==================================================================

Rankers for cross-language document linking (``xling-*``, BUCC 2015):

==============  =================================================================
``dictionary``  ``dict=xling|PATH``, ``format=hunalign|tsv``, ``translations=3``,
                ``lemmas=true``, ``max_df=0.5``, ``simplified=false`` (zh: headwords
                also in Simplified characters), ``cedict=false`` (zh: CC-CEDICT for
                the words MUSE lacks), ``segment=jieba|headwords`` (zh: jieba's tokens
                re-cut against the dictionary's headwords), ``names=false`` (zh:
                transliterated names matched to capitalized English words)
``hapax``       ``max_df=0.05``, ``min_length=3``
``procrustes``  ``x=MODEL_DIR``, ``en=MODEL_DIR`` (``simeval train`` folders; default:
                word2vec trained on the benchmark's own documents), ``dim=100``,
                ``ann_from=50000``, ``workers=1`` (2: faster, not reproducible)
``combine``     ``rankers=dictionary+hapax+procrustes``, ``depth=20`` (a base ranker's
                own parameters separated by ``;``: ``dictionary:csls=10;simplified=true``)
==============  =================================================================

``dictionary``, ``hapax`` and ``procrustes`` take ``csls=K`` (0: off): scores rescaled by
cross-domain similarity local scaling over K neighbours (``measures.search.csls``), which
demotes English documents close to many queries.

Any measure that scores text pairs also ranks (every pair scored; small collections only).
"""

from __future__ import annotations

from simeval.errors import InputError
from simeval.measures.base import Measure
from simeval.measures.spec import MeasureSpec, Params, parse_spec

MEASURES = (
    "overlap",
    "jaccard",
    "orthographic",
    "random",
    "vectors",
    "navec",
    "encoder",
    "graph",
    "dictionary",
    "hapax",
    "procrustes",
    "combine",
    "learned",
)


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
    if parsed.name in ("dictionary", "hapax"):
        from simeval.measures.dictionary import make_xling

        return make_xling(parsed.name, p)
    if parsed.name == "procrustes":
        from simeval.measures.procrustes import make_procrustes

        return make_procrustes(p)
    if parsed.name == "combine":
        from simeval.measures.combination import make_combination

        return make_combination(p, create_measure)
    if parsed.name == "learned":
        from simeval.measures.learned import make_learned

        return make_learned(p, create_measure)
    if parsed.name == "navec":
        from simeval.measures.navec import make_navec

        return make_navec(p)
    if parsed.name == "graph":
        from simeval.measures.graph import make_graph

        return make_graph(p)
    if parsed.name == "encoder":
        from simeval.measures.encoder import make_encoder

        return make_encoder(p)
    import difflib

    close = difflib.get_close_matches(parsed.name, MEASURES, n=2)
    hint = f"did you mean {' or '.join(close)}? " if close else ""
    raise InputError(
        None, None, f"unknown measure {parsed.name!r}; {hint}available: {', '.join(MEASURES)}"
    )


__all__ = ["MEASURES", "Measure", "create_measure", "parse_spec"]
