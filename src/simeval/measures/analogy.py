"""Answering analogy questions ``a : b :: c : ?`` over word vectors: 3CosAdd and 3CosMul.

The rules are gensim 4.4.0's ``KeyedVectors.evaluate_word_analogies`` (the reference the
analogy task kind is checked against, figure for figure):

- the candidates are the first ``restrict_vocab`` words of the vectors, in their order (files
  list frequent words first);
- with ``case_insensitive`` every word is compared upper-cased (``str.upper``): a question's
  words are looked up among the candidates' upper-cased forms, the first (most frequent)
  candidate of a form standing for it;
- a question with a word (its expected answer included) that is not a candidate is skipped:
  no answer (``None``);
- 3CosAdd: the candidates ranked by cos(x, b̂ + ĉ − â) (gensim's ``most_similar``);
  3CosMul (Levy & Goldberg 2014, eq. 4): by cos'(x, b)·cos'(x, c) / (cos'(x, a) + 1e-6) with
  cos' = (1 + cos)/2 (gensim's ``most_similar_cosmul``);
- the rows of a, b and c are not answers; of the five best other candidates, the answer is the
  first whose (folded) form is none of a, b, c; when all five are, it is the fifth.

The arithmetic is gensim's, step by step in the same precision (float32 vectors, the float64
weights of its mean, double-precision BLAS ``nrm2``/``scal`` for the unit vector, the same
partial sort), so near-ties break as they break there. One difference, by design: gensim's
``most_similar_cosmul`` ignores ``restrict_vocab`` (it ranks every word of the model and
``evaluate_word_analogies`` then passes over those whose form is not a candidate's); here
3CosMul, like 3CosAdd, ranks only the candidates.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

METHODS = ("3cosadd", "3cosmul")
TOPN = 5  # candidates examined per question, as gensim's evaluate_word_analogies
EPSILON = 1e-6  # 3CosMul's guard against a zero denominator (Levy & Goldberg, gensim)

Question = tuple[str, str, str, str]  # a, b, c and the expected answer d


def candidate_index(words: Sequence[str], case_insensitive: bool) -> dict[str, int]:
    """Each candidate's form (upper-cased with ``case_insensitive``) and its row; a form
    several words share stands for the first of them (the most frequent)."""
    index: dict[str, int] = {}
    for row, word in enumerate(words):
        index.setdefault(word.upper() if case_insensitive else word, row)
    return index


def solve_analogies(
    words: Sequence[str],
    vectors: np.ndarray,
    questions: Sequence[Question],
    *,
    method: str = "3cosadd",
    case_insensitive: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> list[str | None]:
    """The answer to each question (module docstring): a word of ``words``, or None when the
    question has a word that is not among them. ``words`` and the rows of ``vectors`` are the
    candidates, already cut to ``restrict_vocab``."""
    if method not in METHODS:
        raise ValueError(f"analogy method must be one of {', '.join(METHODS)}, not {method!r}")
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        norms = np.linalg.norm(vectors, axis=1)
    index = candidate_index(words, case_insensitive)
    rank = _add_scores if method == "3cosadd" else _mul_scores
    out: list[str | None] = []
    for k, question in enumerate(questions):
        forms = [w.upper() if case_insensitive else w for w in question]
        if any(f not in index for f in forms):
            out.append(None)
        else:
            rows = [index[f] for f in forms[:3]]
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                scores = rank(vectors, norms, rows)
            out.append(_answer(scores, words, rows, set(forms[:3]), case_insensitive, method))
        if progress:
            progress(k + 1, len(questions))
    return out


def _unit_row(vectors: np.ndarray, norms: np.ndarray, row: int) -> np.ndarray:
    """Row ``row`` divided by its norm, in float32 (gensim's ``get_vector(norm=True)``)."""
    return vectors[row] / norms[row]


def _add_scores(vectors: np.ndarray, norms: np.ndarray, rows: list[int]) -> np.ndarray:
    """cos(x, mean) for every candidate x, mean the unit vector of (b̂ + ĉ − â)/3: the float64
    weights add into a float32 sum, the division by their total weight is in float64, the unit
    vector is double-precision BLAS's, then float32 again; the cosine divides float32 dot
    products by the norms."""
    a, b, c = rows
    weights = np.array([1.0, 1.0, -1.0])  # float64, as gensim's most_similar builds them
    mean = np.zeros(vectors.shape[1], dtype=vectors.dtype)
    total = 0
    for weight, row in zip(weights, (b, c, a), strict=True):
        mean += weight * _unit_row(vectors, norms, row)
        total += abs(weight)
    unit = _blas_unit(mean / total).astype(np.float32)
    return np.dot(vectors, unit) / norms


def _blas_unit(vector: np.ndarray) -> np.ndarray:
    """``vector`` scaled to unit length by double-precision BLAS ``nrm2`` and ``scal``, then
    given back in its own dtype (a zero vector stays as it is)."""
    from scipy.linalg.blas import get_blas_funcs

    double = (np.zeros(0, dtype=np.float64),)
    length = get_blas_funcs("nrm2", double)(vector)
    if not length > 0.0:
        return vector
    return get_blas_funcs("scal", double)(1.0 / length, vector).astype(vector.dtype)


def _mul_scores(vectors: np.ndarray, norms: np.ndarray, rows: list[int]) -> np.ndarray:
    """cos'(x, b)·cos'(x, c) / (cos'(x, a) + ε) for every candidate x, cos' = (1 + cos)/2,
    in float32."""
    a, b, c = rows

    def shifted(row: int) -> np.ndarray:
        return (1 + np.dot(vectors, _unit_row(vectors, norms, row)) / norms) / 2

    return np.prod([shifted(b), shifted(c)], axis=0) / (np.prod([shifted(a)], axis=0) + EPSILON)


def best_rows(scores: np.ndarray, count: int) -> np.ndarray:
    """The rows of the ``count`` highest scores, best first: a partial sort (``argpartition``)
    whose ``count`` rows are then sorted, as gensim's ``matutils.argsort`` orders them (so
    equal scores fall as they fall there)."""
    negated = -scores
    if count >= negated.size:
        return np.argsort(negated)[:count]
    top = np.argpartition(negated, count)[:count]
    return top.take(np.argsort(negated.take(top)))


def _answer(
    scores: np.ndarray,
    words: Sequence[str],
    rows: list[int],
    asked: set[str],
    case_insensitive: bool,
    method: str,
) -> str:
    """The answer among the best candidates (module docstring): the question's rows are never
    answers; of the next :data:`TOPN`, the first whose form is not one of ``asked``, else the
    last examined ("" when there is no candidate at all: counted wrong)."""
    # 3CosAdd excludes a list of three rows, 3CosMul a set of them: their counts differ when
    # two of a, b, c share a row, and so does how far the partial sort reaches
    excluded = len(rows) if method == "3cosadd" else len(set(rows))
    found = [int(r) for r in best_rows(scores, TOPN + excluded) if int(r) not in rows][:TOPN]
    answer = ""
    for row in found:
        answer = words[row]
        if (answer.upper() if case_insensitive else answer) not in asked:
            break
    return answer
