"""Negatives for a relatedness benchmark, built the RUSSE 2015 way (BLESS-style).

RUSSE 2015 (Panchenko et al., "RUSSE: The First Workshop on Russian Semantic Similarity") built
the unrelated halves of its RT and AE sets as BLESS (Baroni and Lenci 2011) built its random
relations: from a corpus similarity matrix, with frequent co-occurring words as candidates.
The steps, each one function below:

1. **Similarity** (:func:`similarity_from_corpus`, :func:`similarity_from_table`): S is the
   PMI matrix of the corpus's window co-occurrences (counted by :mod:`simeval.train.count`, the
   code ``simeval train ppmi`` uses; plain PMI, context smoothing α = 1 by default, so
   S is symmetric). **s ≤ 0 is dropped** (:func:`drop_nonpositive`): what is left is the
   PPMI matrix, and w_k is a candidate of w_i exactly when s_ik > 0.
2. **Ranking** (:func:`candidate_order`): the candidates of a source w_i, most frequent w_k
   first (its count in the tokenized corpus); equal frequencies are ordered by the word,
   ascending code points (Python's ``str`` order), so the order never depends on the matrix.
3. **Selection** (:func:`select`): positives are processed **in file order**. For a positive
   ⟨w_i, w_j⟩ the candidates are walked in rank order and the first ``per_positive`` (two) that
   pass are taken as negatives ⟨w_i, w_k⟩. A candidate does not pass when it is w_i itself, a
   positive partner of w_i (⟨w_i, w_k⟩ or ⟨w_k, w_i⟩ anywhere in the positives file), a target
   taken earlier (once taken, w_k is **removed from all further consideration**: s_*k = 0).
   With a word filter (:func:`restrict_targets`, on by default in the command) only nouns are
   targets, as RUSSE's matrix was a noun matrix: Russian, pymorphy3's most probable parse is a
   noun and no parse is an infinitive (in a lemmatized corpus мочь, печь, стать are verbs);
   English, for which simeval has no tagger, a word of letters that is not a stop word.
4. **Veto** (:func:`apply_veto`): annotators' objections remove false negatives; **one
   objection removes** (RUSSE had two annotators a pair). An objection to ⟨a, b⟩ covers ⟨b, a⟩
   too (relatedness is symmetric). Nothing is selected in place of a vetoed pair and its target
   stays removed: the selection is exactly the one the annotators saw, so a veto file written
   against a build applies to the rebuilt set unchanged. The second negative taken for each
   positive is the reserve that fills the gap in step 5.
5. **Balance** (:func:`balance`): every source word ends with as many negatives as positives.
   With a surplus of negatives, a source keeps the first pick of each of its positives before
   any second pick (then file order of the positives): one negative per positive, reserves used
   where a first pick was vetoed. With a shortfall (too few candidates, or vetoes), the source
   keeps its first positives in file order and drops the rest (the file's order decides, as
   it decides the processing order), so a source with no negative leaves the set. Dropped pairs
   are logged; nothing is padded with pairs outside the rule.

Every decision is a :class:`Decision`, one row of ``log.tsv`` (:func:`write_folder`).
Words are looked up in the corpus lowercased with ё→е (the tokenizer's normalization); the
output keeps the spelling of the positives file.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse

from simeval.data.atomic import staged
from simeval.data.textio import sha256_file
from simeval.datasets.tables import write_table
from simeval.errors import InputError
from simeval.text.normalize import normalize

BUILDER = "negatives"
FORMAT = 1  # bump when the folder's layout or the rules change
PAIRS, LOG, MANIFEST = "pairs.csv", "log.tsv", "manifest.json"
LOG_COLUMNS = (
    "step",
    "line",
    "word1",
    "word2",
    "candidate",
    "frequency",
    "rank",
    "pmi",
    "decision",
    "reason",
)


@dataclass(frozen=True)
class Positive:
    """A related pair ⟨source, target⟩ and its line in the positives file."""

    source: str
    target: str
    line: int


@dataclass(frozen=True)
class Negative:
    """A negative ⟨source, target⟩ taken for ``positive``: ``pick`` 1 or 2 (first or second
    taken for that positive), ``rank`` the target's place in the source's candidate order."""

    source: str
    target: str
    positive: Positive
    pick: int
    rank: int
    frequency: int
    pmi: float


@dataclass(frozen=True)
class Decision:
    """One row of ``log.tsv``: ``step`` select | veto | balance; ``decision`` taken | skipped
    (select), dropped (veto, balance); ``reason`` says why."""

    step: str
    line: int
    word1: str
    word2: str
    candidate: str = ""
    frequency: int | None = None
    rank: int | None = None
    pmi: float | None = None
    decision: str = ""
    reason: str = ""

    def row(self) -> list[str]:
        def cell(v: object) -> str:
            if v is None:
                return ""
            return f"{v:.6g}" if isinstance(v, float) else str(v)

        return [cell(getattr(self, c)) for c in LOG_COLUMNS]


@dataclass
class Similarity:
    """The similarity matrix S over ``words`` with their corpus ``frequency``; only s > 0 is
    stored (:func:`drop_nonpositive` has been applied)."""

    words: list[str]
    frequency: np.ndarray
    matrix: sparse.csr_matrix
    index: dict[str, int] = field(init=False)

    def __post_init__(self) -> None:
        self.index = {w: i for i, w in enumerate(self.words)}


@dataclass
class Selection:
    """The result of the build: kept positives and negatives, and every decision."""

    positives: list[Positive]
    negatives: list[Negative]
    log: list[Decision]
    counts: dict[str, Any]


# -- step 1: the similarity matrix ------------------------------------------------------------


def drop_nonpositive(matrix: sparse.spmatrix) -> sparse.csr_matrix:
    """RUSSE's "drop s_ij ≤ 0": keep the strictly positive entries only (the rest become the
    sparse matrix's implicit zeros, which :func:`candidate_order` never offers)."""
    m = sparse.coo_matrix(matrix, dtype=np.float64)
    keep = m.data > 0
    return sparse.csr_matrix((m.data[keep], (m.row[keep], m.col[keep])), shape=m.shape)


def similarity_from_table(
    frequency: dict[str, int], pmi: dict[tuple[str, str], float], symmetric: bool = True
) -> Similarity:
    """S from a hand-made table: word frequencies and PMI values of word pairs (any sign; a
    pair not given has no association). ``symmetric``: s_ab also sets s_ba."""
    words = list(frequency)
    index = {w: i for i, w in enumerate(words)}
    rows, cols, vals = [], [], []
    for (a, b), s in pmi.items():
        for x, y in ((a, b), (b, a)) if symmetric and a != b else ((a, b),):
            rows.append(index[x])
            cols.append(index[y])
            vals.append(float(s))
    raw = sparse.coo_matrix((vals, (rows, cols)), shape=(len(words), len(words)))
    freq = np.array([frequency[w] for w in words], dtype=np.int64)
    return Similarity(words, freq, drop_nonpositive(raw))


def similarity_from_corpus(
    path: Path,
    min_count: int,
    window: int,
    *,
    alpha: float = 1.0,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    named: str | Path | None = None,
) -> Similarity:
    """S of a tokenized corpus (one sentence a line, :func:`simeval.train.prepared.
    prepare_corpus`): words with at least ``min_count`` occurrences, every word a context,
    symmetric ``window``; PMI with context smoothing ``alpha`` (1: plain PMI), s ≤ 0 dropped
    (:func:`simeval.train.count.ppmi` keeps PMI > 0 only). ``named``: the corpus as the user
    gave it, for messages (``path`` is its tokenized copy in the cache)."""
    from simeval.train.count import build_vocabulary, cooccurrence, ppmi, word_counts

    counts = word_counts(path)
    words = build_vocabulary(counts, min_count)
    if not words:
        raise InputError(named or path, None, f"no word occurs {min_count} times in the corpus")
    matrix = cooccurrence(path, words, words, window, workers=workers, progress=progress)
    freq = np.array([counts[w] for w in words], dtype=np.int64)
    return Similarity(words, freq, drop_nonpositive(ppmi(matrix, alpha=alpha)))


# -- step 2: ranking ---------------------------------------------------------------------------


def candidate_order(sim: Similarity, source: str) -> list[int]:
    """Indices k with s_ik > 0 for the source word w_i, most frequent w_k first; equal
    frequencies by the word, ascending code points. Empty when w_i is not in S."""
    i = sim.index.get(source)
    if i is None:
        return []
    row = sim.matrix.getrow(i)
    ks = row.indices[row.data > 0]
    return sorted((int(k) for k in ks), key=lambda k: (-int(sim.frequency[k]), sim.words[k]))


# -- step 3: selection -------------------------------------------------------------------------


def partners_of(positives: Iterable[Positive]) -> dict[str, set[str]]:
    """Every word's positive partners, in both directions (keys and values normalized)."""
    partners: dict[str, set[str]] = {}
    for p in positives:
        a, b = normalize(p.source), normalize(p.target)
        partners.setdefault(a, set()).add(b)
        partners.setdefault(b, set()).add(a)
    return partners


def word_filter(lang: str) -> Callable[[str], bool]:
    """The target filter: Russian, a noun (pymorphy3's most probable parse is NOUN and no parse
    is INFN); English, a word of letters that is not a stop word."""
    if lang == "ru":
        from simeval.text.normalize import _morph

        morph = _morph()

        def is_noun(word: str) -> bool:
            parses = morph.parse(word)
            return parses[0].tag.POS == "NOUN" and all(p.tag.POS != "INFN" for p in parses)

        return is_noun
    from simeval.train.count import ENGLISH_STOP_WORDS

    return lambda w: w.replace("-", "").isalpha() and w not in ENGLISH_STOP_WORDS


def restrict_targets(sim: Similarity, allowed: Callable[[str], bool]) -> Similarity:
    """S with the columns of words that ``allowed`` refuses set to 0: those words are never
    candidates (the rows stay, so any word can still be a source)."""
    keep = np.array([bool(allowed(w)) for w in sim.words], dtype=np.float64)
    matrix = drop_nonpositive(sim.matrix @ sparse.diags(keep))
    return Similarity(sim.words, sim.frequency, matrix)


def select(
    positives: Sequence[Positive],
    sim: Similarity,
    *,
    per_positive: int = 2,
    partners: dict[str, set[str]] | None = None,
    progress: Callable[[int], None] | None = None,
) -> tuple[list[Negative], list[Decision]]:
    """Step 3 of the module docstring: for each positive in the given order, take the first
    ``per_positive`` passing candidates of its source, and remove each taken target from all
    further consideration. ``partners`` (default: from ``positives``) are never candidates of
    their word."""
    partners = partners if partners is not None else partners_of(positives)
    removed: dict[int, Positive] = {}  # target index -> the positive it was taken for
    negatives: list[Negative] = []
    log: list[Decision] = []
    orders: dict[str, tuple[list[int], dict[int, float]]] = {}
    for n, p in enumerate(positives, start=1):

        def note(decision: str, reason: str, p: Positive = p, **candidate: Any) -> None:
            """A selection decision for positive ``p`` (``candidate``: its candidate, frequency,
            rank and pmi, when the decision is about one)."""
            log.append(
                Decision(
                    "select",
                    p.line,
                    p.source,
                    p.target,
                    decision=decision,
                    reason=reason,
                    **candidate,
                )
            )

        src = normalize(p.source)
        if src not in sim.index:
            note("skipped", "source not in the corpus vocabulary")
            continue
        if src not in orders:
            row = sim.matrix.getrow(sim.index[src])
            values = dict(zip(row.indices.tolist(), row.data.tolist(), strict=True))
            orders[src] = (candidate_order(sim, src), values)
        order, values = orders[src]
        if not order:
            note("skipped", "no candidate with s > 0")
        picks = 0
        for rank, k in enumerate(order, start=1):
            w = sim.words[k]
            freq, s = int(sim.frequency[k]), values[k]
            if w == src:
                reason = "source word"
            elif w in partners.get(src, ()):
                reason = "positive partner"
            elif k in removed:
                q = removed[k]
                reason = f"removed target (taken for {q.source},{q.target} line {q.line})"
            else:
                reason = ""
            if reason:
                note("skipped", reason, candidate=w, frequency=freq, rank=rank, pmi=s)
                continue
            picks += 1
            removed[k] = p
            negatives.append(Negative(p.source, w, p, picks, rank, freq, s))
            note("taken", f"pick {picks}", candidate=w, frequency=freq, rank=rank, pmi=s)
            if picks == per_positive:
                break
        if order and picks < per_positive:
            note("skipped", f"candidates exhausted after {picks} pick(s)")
        if progress:
            progress(n)
    return negatives, log


# -- step 4: veto ------------------------------------------------------------------------------


def apply_veto(
    negatives: Sequence[Negative], objections: dict[tuple[str, str], str]
) -> tuple[list[Negative], list[Decision]]:
    """Step 4: drop every negative with an objection to ⟨source, target⟩ or ⟨target, source⟩
    (``objections`` maps a normalized pair to where the objection was written). One objection
    removes; nothing replaces the pair."""
    kept: list[Negative] = []
    log: list[Decision] = []
    for neg in negatives:
        a, b = normalize(neg.source), normalize(neg.target)
        where = objections.get((a, b)) or objections.get((b, a))
        if where is None:
            kept.append(neg)
            continue
        p = neg.positive
        log.append(
            Decision(
                "veto",
                p.line,
                p.source,
                p.target,
                neg.target,
                neg.frequency,
                neg.rank,
                neg.pmi,
                "dropped",
                f"vetoed ({where})",
            )
        )
    return kept, log


# -- step 5: balance ---------------------------------------------------------------------------


def balance(
    positives: Sequence[Positive], negatives: Sequence[Negative]
) -> tuple[list[Positive], list[Negative], list[Decision]]:
    """Step 5: per source, as many negatives as positives. Surplus negatives: keep first picks
    before second picks, each in positive file order. Shortfall: keep the first positives in
    file order. Returns the kept positives and negatives (in their input order) and the log of
    what was dropped."""
    pos_by: dict[str, list[Positive]] = {}
    for p in positives:
        pos_by.setdefault(p.source, []).append(p)
    neg_by: dict[str, list[Negative]] = {}
    for neg in negatives:
        neg_by.setdefault(neg.source, []).append(neg)
    order = {p: n for n, p in enumerate(positives)}
    keep_pos: set[Positive] = set()
    keep_neg: set[int] = set()
    log: list[Decision] = []
    for source, plist in pos_by.items():
        nlist = neg_by.get(source, [])
        n = min(len(plist), len(nlist))
        ranked = sorted(nlist, key=lambda g: (g.pick, order[g.positive]))
        keep_neg.update(id(g) for g in ranked[:n])
        for g in ranked[n:]:
            p = g.positive
            log.append(
                Decision(
                    "balance",
                    p.line,
                    p.source,
                    p.target,
                    g.target,
                    g.frequency,
                    g.rank,
                    g.pmi,
                    "dropped",
                    f"surplus negative ({len(nlist)} negatives, {len(plist)} positives)",
                )
            )
        keep_pos.update(plist[:n])
        for p in plist[n:]:
            log.append(
                Decision(
                    "balance",
                    p.line,
                    p.source,
                    p.target,
                    decision="dropped",
                    reason=f"positive dropped: {len(nlist)} negatives for {len(plist)} positives",
                )
            )
    kept_pos = [p for p in positives if p in keep_pos]
    kept_neg = [g for g in negatives if id(g) in keep_neg]
    return kept_pos, kept_neg, log


def build(
    positives: Sequence[Positive],
    sim: Similarity,
    *,
    objections: dict[tuple[str, str], str] | None = None,
    per_positive: int = 2,
    partners: dict[str, set[str]] | None = None,
    progress: Callable[[int], None] | None = None,
) -> Selection:
    """Steps 3–5 in a row: select, veto, balance (module docstring)."""
    picked, log = select(
        positives,
        sim,
        per_positive=per_positive,
        partners=partners,
        progress=progress,
    )
    after_veto, veto_log = apply_veto(picked, objections or {})
    kept_pos, kept_neg, balance_log = balance(positives, after_veto)
    sources = {p.source for p in positives}
    kept_sources = {p.source for p in kept_pos}
    counts = {
        "positives_in": len(positives),
        "sources_in": len(sources),
        "selected": len(picked),
        "vetoed": len(picked) - len(after_veto),
        "positives": len(kept_pos),
        "negatives": len(kept_neg),
        "sources": len(kept_sources),
        "positives_dropped": len(positives) - len(kept_pos),
        "negatives_dropped_balance": len(after_veto) - len(kept_neg),
        "sources_without_negatives": len(sources - kept_sources),
    }
    return Selection(kept_pos, kept_neg, log + veto_log + balance_log, counts)


# -- input and output --------------------------------------------------------------------------


def read_positives(path: str | Path) -> tuple[list[Positive], dict[str, int]]:
    """Positives of a pair file (RUSSE csv, tsv, ...; :mod:`simeval.data.pair_files`): every row
    when the file has no score column, else the rows whose score is > 0 (ae2-train.csv mixes
    ``assoc`` rows, sim 1, with ``random`` rows, sim 0). A pair is a positive when any of its
    rows is; it is kept once, at its first positive line. Returns the positives in file order
    and counts of what was left out: ``rows_not_positive`` (score ≤ 0), ``repeated_rows`` (a
    positive pair again) and ``positive_and_zero`` (pairs given both > 0 and ≤ 0: ae2-train
    lists 49 pairs as both an association and a random pair)."""
    from simeval.data.pair_files import default_score_column, read_pair_table, read_scored_pairs

    table = read_pair_table(path)
    if default_score_column(table) is None:
        pairs = [(c[0], c[1]) for c in table.rows]
        scores = np.ones(len(pairs))
        lines = table.lines
    else:
        scored = read_scored_pairs(path, require_scores=True, keep_duplicates=True)
        pairs, scores, lines = scored.pairs, scored.scores, [int(n) for n in scored.lines]
    seen: set[tuple[str, str]] = set()
    zero: set[tuple[str, str]] = set()
    out: list[Positive] = []
    info = {"rows_not_positive": 0, "repeated_rows": 0, "positive_and_zero": 0}
    for pair, score, line in zip(pairs, scores, lines, strict=True):
        if score <= 0:
            info["rows_not_positive"] += 1
            zero.add(pair)
        elif pair in seen:
            info["repeated_rows"] += 1
        else:
            seen.add(pair)
            out.append(Positive(pair[0], pair[1], line))
    if not out:
        raise InputError(path, None, "no positive pair (score > 0) in this file")
    info["positive_and_zero"] = len(seen & zero)
    return out, info


def read_veto(path: str | Path) -> dict[tuple[str, str], str]:
    """Objections of one annotator file: a header with ``word1`` and ``word2`` columns,
    separated by commas, semicolons or tabs (RUSSE's ``negatives/*.csv`` use all three). With a
    ``related`` column a row objects when that cell is non-empty and not 0 (``1`` related,
    ``?`` in doubt); without one, every row objects. Maps the normalized pair to
    ``FILE:LINE``."""
    from simeval.data.textio import iter_lines

    objections: dict[tuple[str, str], str] = {}
    header: list[str] | None = None
    sep = ","
    for number, text in iter_lines(path):
        if not text.strip():
            continue
        if header is None:
            sep = max(("\t", ";", ","), key=text.count)
            header = [h.strip().lower() for h in _cells(text, sep, path, number)]
            if "word1" not in header or "word2" not in header:
                raise InputError(path, number, "expected a header with word1 and word2 columns")
            i1, i2 = header.index("word1"), header.index("word2")
            ir = header.index("related") if "related" in header else None
            continue
        cells = _cells(text, sep, path, number)
        if len(cells) <= max(i1, i2) or not cells[i1].strip() or not cells[i2].strip():
            raise InputError(path, number, "expected a word in both word1 and word2")
        if ir is not None:
            mark = cells[ir].strip() if ir < len(cells) else ""
            if mark in ("", "0"):
                continue
        pair = (normalize(cells[i1].strip()), normalize(cells[i2].strip()))
        objections.setdefault(pair, f"{path}:{number}")
    if header is None:
        raise InputError(path, None, "empty file, expected a header with word1 and word2")
    return objections


def read_vetoes(paths: Iterable[str | Path]) -> dict[tuple[str, str], str]:
    """The objections of several annotators' files together: a pair objected to in any file is
    vetoed (one objection removes); the first file and line naming it is kept."""
    objections: dict[tuple[str, str], str] = {}
    for path in paths:
        for pair, where in read_veto(path).items():
            objections.setdefault(pair, where)
    return objections


def _cells(text: str, sep: str, path: str | Path, number: int) -> list[str]:
    try:
        return next(csv.reader([text], delimiter=sep))
    except (csv.Error, StopIteration) as exc:
        raise InputError(path, number, f"malformed line: {exc}") from None


def sample_sources(positives: Sequence[Positive], n: int, seed: int) -> list[Positive]:
    """The positives of ``n`` source words drawn at random (numpy ``default_rng(seed)``,
    without replacement), kept in file order; all of them when ``n`` covers every source."""
    sources = list(dict.fromkeys(p.source for p in positives))
    if n >= len(sources):
        return list(positives)
    rng = np.random.default_rng(seed)
    chosen = {sources[i] for i in rng.choice(len(sources), size=n, replace=False)}
    return [p for p in positives if p.source in chosen]


def pair_rows(selection: Selection) -> list[tuple[str, str, int]]:
    """RUSSE rows ``word1,word2,sim``: per source (first appearance), its positives (sim 1,
    file order) then its negatives (sim 0, selection order), as in ``ae2-test.csv``."""
    by_source: dict[str, list[tuple[str, str, int]]] = {}
    for p in selection.positives:
        by_source.setdefault(p.source, []).append((p.source, p.target, 1))
    for g in selection.negatives:
        by_source.setdefault(g.source, []).append((g.source, g.target, 0))
    return [row for rows in by_source.values() for row in rows]


def check_out(out: str | Path) -> Path:
    """``out`` as a path, if it may be written: absent, or an earlier negatives build (which
    is replaced); anything else is an :class:`InputError` (checked before the long work)."""
    target = Path(out)
    if target.exists():
        old = target / MANIFEST
        is_build = False
        if old.is_file():
            try:
                is_build = json.loads(old.read_text(encoding="utf-8")).get("builder") == BUILDER
            except (json.JSONDecodeError, UnicodeDecodeError, AttributeError):
                is_build = False
        if not is_build:
            raise InputError(target, None, "exists and is not a negatives folder; not replaced")
    return target


def write_folder(out: str | Path, selection: Selection, manifest: dict[str, Any]) -> Path:
    """Write ``pairs.csv`` (RUSSE ``word1,word2,sim``), ``log.tsv`` (:data:`LOG_COLUMNS`) and
    ``manifest.json`` (``manifest`` plus builder, format, counts and the sha256 of the two data
    files) into a temporary folder beside ``out``, then rename it to ``out``. An existing
    ``out`` is replaced only when it is an earlier negatives build."""
    target = check_out(out)
    with staged(target, folder=True, replace=True) as tmp:
        _write_into(tmp, selection, manifest)
    return target


def _write_into(tmp: Path, selection: Selection, manifest: dict[str, Any]) -> None:
    write_table(tmp / PAIRS, ("word1", "word2", "sim"), pair_rows(selection))
    write_table(tmp / LOG, LOG_COLUMNS, (d.row() for d in selection.log), "\t")
    record = {
        "builder": BUILDER,
        "format": FORMAT,
        "kind": "related",
        "benchmark": {"file": PAIRS, "kind": "related"},  # `simeval evaluate M -b FOLDER`
        **manifest,
        "counts": selection.counts,
        "files": {name: sha256_file(tmp / name) for name in (PAIRS, LOG)},
    }
    (tmp / MANIFEST).write_text(
        json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
