"""Annotation campaigns the way RUSSE 2015 and SimLex-999 ran them.

Assignments (RUSSE 2015): each assignment holds ``size`` distinct pairs, drawn without
replacement with a weight per pair:

- ``count`` mode: weight 1 / (1 + annotations so far), where annotations so far include the
  assignments already handed out in this batch and not yet answered;
- ``sd`` mode: weight = the standard deviation of the pair's ratings so far; a pair with fewer
  than two ratings has no SD yet and gets the largest SD seen (1 before any), so unrated pairs
  come first and the first batch is uniform.

Answers are a CSV ``rater,word1,word2,rating[,time]``; ratings form a pairs × raters matrix
(NaN: not rated). Aggregation gives each pair the mean, the sample SD (n − 1; NaN below two
ratings) and the count, optionally rescaled linearly (SimLex-999: the 0–6 slider to 0–10).

Rater quality, as SimLex-999 describes it (Hill, Reichart & Korhonen 2015):

- *shift*: a rater whose mean on the consistency pairs is more than ``threshold`` (1) from the
  mean of all raters there has every rating moved by 1 towards it, not past the scale's ends;
- *exclude*, in this order, each logged: a rater who fails a checkpoint (a pair with an allowed
  rating range, e.g. a pair of identical words rated ≥ 5 of 6); a rater whose mean pairwise
  Spearman with the others is more than one SD below the raters' mean of it; then, greedily
  one at a time, the rater whose exclusion raises the average pairwise Spearman of those left
  the most, while that rise is at least ``min_gain``. (The paper says "when excluding them
  raised agreement"; read literally, with ``min_gain=0``, that removes every rater less in
  line than the average, so the default asks for a rise of 0.01.)

Agreement: average pairwise Spearman and leave-one-out (:mod:`simeval.datasets.agreement`), and
Krippendorff's α for ordinal and interval data (the ``krippendorff`` package).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simeval.data.pair_files import read_pair_table
from simeval.data.textio import NUMBER, parse_float, shown
from simeval.datasets.tables import read_table
from simeval.errors import InputError, Problems
from simeval.metrics.agreement import (
    average_pairwise,
    item_sd,
    krippendorff_alpha,
    leave_one_out,
    nan_mean,
    pairwise_spearman,
    rho_matrix,
)

Pair = tuple[str, str]
MODES = ("count", "sd")
ANSWER_COLUMNS = ("rater", "word1", "word2", "rating")


# -- the pairs and the answers ----------------------------------------------------------------


def read_campaign_pairs(path: str | Path) -> list[Pair]:
    """The pairs to annotate: the first two columns of a pair file, each pair once. A ``.csv``
    file is read as CSV (quoted words may hold commas, tabs, quotes and line breaks; a first
    row ``word1,word2,…`` is a header); any other pair file as :func:`read_pair_table` reads it."""
    if Path(path).suffix.lower() != ".csv":
        table = read_pair_table(path)
        return list(dict.fromkeys((r[0], r[1]) for r in table.rows))
    pairs: list[Pair] = []
    for k, (line, cells) in enumerate(read_table(path)):
        if k == 0 and _is_header(cells):
            continue
        if len(cells) < 2 or not cells[0] or not cells[1]:
            raise InputError(path, line, "expected two words: word1,word2[,…]")
        pairs.append((cells[0], cells[1]))
    if not pairs:
        raise InputError(path, None, "no pairs: expected word1,word2 rows")
    return list(dict.fromkeys(pairs))


def _is_header(cells: list[str]) -> bool:
    """A first row ``word1,word2,…``, or one whose later fields are names, not numbers."""
    later = [c for c in cells[2:] if c.strip()]
    named = bool(later) and not any(NUMBER.fullmatch(c.strip()) for c in later)
    return named or [c.strip().lower() for c in cells[:2]] == ["word1", "word2"]


@dataclass
class Answers:
    """Ratings given in a campaign: one entry per answer."""

    pairs: list[Pair]
    raters: list[str]
    rater: np.ndarray  # index into raters
    item: np.ndarray  # index into pairs
    rating: np.ndarray
    time: np.ndarray  # seconds, NaN when not given

    def matrix(self) -> np.ndarray:
        """pairs × raters, NaN where a rater did not rate a pair."""
        out = np.full((len(self.pairs), len(self.raters)), np.nan)
        out[self.item, self.rater] = self.rating
        return out


def read_answers(
    path: str | Path, pairs: list[Pair], scale: tuple[float, float] = (0.0, 10.0)
) -> Answers:
    """The answers CSV (module docstring), checked at the edge: a header naming rater, word1,
    word2 and rating (time optional, any order); ratings numbers within ``scale``; pairs of
    the campaign; a rater rating a pair twice is an error. Up to 20 problems are reported."""
    index = {p: i for i, p in enumerate(pairs)}
    raters: dict[str, int] = {}
    rows: list[tuple[int, int, float, float]] = []
    seen: dict[tuple[int, int], int] = {}
    problems = Problems(path)
    col: dict[str, int] = {}
    for line, cells in read_table(path):
        if not col:
            names = [c.strip().lower() for c in cells]
            missing = [c for c in ANSWER_COLUMNS if c not in names]
            if missing:
                raise InputError(
                    path,
                    line,
                    f"missing column(s) {', '.join(missing)} in the header: expected "
                    f"{','.join(ANSWER_COLUMNS)}[,time]",
                )
            twice = [c for c in (*ANSWER_COLUMNS, "time") if names.count(c) > 1]
            if twice:
                raise InputError(
                    path, line, f"column(s) {', '.join(twice)} named twice in the header"
                )
            col = {c: names.index(c) for c in (*ANSWER_COLUMNS, "time") if c in names}
            continue
        if len(cells) <= max(col.values()):
            problems.add(line, f"expected {max(col.values()) + 1} fields, got {len(cells)}")
            continue
        rater = cells[col["rater"]].strip()
        pair = (cells[col["word1"]], cells[col["word2"]])
        if not rater:
            problems.add(line, "rater: the field is empty")
            continue
        if pair not in index:
            problems.add(line, f"pair {shown(pair[0])},{shown(pair[1])} is not in the campaign")
            continue
        try:
            rating = parse_float(cells[col["rating"]], path, line, "rating")
            time = cells[col["time"]] if "time" in col else ""
            seconds = parse_float(time, path, line, "time") if time.strip() else math.nan
        except InputError as exc:
            problems.add(line, exc.message)
            continue
        if not scale[0] <= rating <= scale[1]:
            problems.add(line, f"rating {rating:g} is outside the scale {scale[0]:g}-{scale[1]:g}")
            continue
        r = raters.setdefault(rater, len(raters))
        key = (r, index[pair])
        if key in seen:
            problems.add(line, f"rater {shown(rater)} rated this pair already on line {seen[key]}")
            continue
        seen[key] = line
        rows.append((r, index[pair], rating, seconds))
    problems.check()
    if not col:
        raise InputError(path, None, f"empty file, expected {','.join(ANSWER_COLUMNS)},time")
    if not rows:
        raise InputError(path, None, "no answers after the header")
    r, i, v, t = (np.asarray(x) for x in zip(*rows, strict=True))
    return Answers(pairs, list(raters), r.astype(int), i.astype(int), v.astype(float), t)


# -- assignments ------------------------------------------------------------------------------


def weights(mode: str, counts: np.ndarray, sds: np.ndarray) -> np.ndarray:
    """Each pair's weight for the next assignment (module docstring)."""
    if mode == "count":
        return 1.0 / (1.0 + counts)
    if mode == "sd":
        known = sds[~np.isnan(sds)]
        fallback = float(known.max()) if len(known) and known.max() > 0 else 1.0
        w = np.where(np.isnan(sds), fallback, sds)
        return np.where(w > 0, w, 1e-9)  # a pair everyone rated alike still has a chance
    raise InputError(None, None, f"mode must be {' or '.join(MODES)}, not {mode!r}")


def draw(w: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` distinct pairs, each drawn with probability proportional to ``w``."""
    size = min(size, int(np.sum(w > 0)))
    return rng.choice(len(w), size=size, replace=False, p=w / w.sum())


def make_assignments(
    matrix: np.ndarray, mode: str, number: int, size: int, seed: int
) -> list[np.ndarray]:
    """``number`` assignments of ``size`` pairs given the ratings so far (``matrix``)."""
    rng = np.random.default_rng(seed)
    counts = np.sum(~np.isnan(matrix), axis=1).astype(float)
    sds = item_sd(matrix)
    out = []
    for _ in range(number):
        chosen = draw(weights(mode, counts, sds), size, rng)
        counts[chosen] += 1  # handed out, not yet answered
        out.append(chosen)
    return out


# -- aggregation ------------------------------------------------------------------------------


@dataclass
class Aggregate:
    mean: np.ndarray
    sd: np.ndarray
    count: np.ndarray


def aggregate(
    matrix: np.ndarray,
    scale: tuple[float, float] | None = None,
    to: tuple[float, float] | None = None,
) -> Aggregate:
    """Mean, sample SD and count per pair; with ``scale`` and ``to`` the ratings are first
    mapped linearly from one range to the other (0–6 → 0–10 multiplies by 10/6)."""
    m = matrix
    if scale is not None and to is not None:
        factor = (to[1] - to[0]) / (scale[1] - scale[0])
        m = (matrix - scale[0]) * factor + to[0]
    count = np.sum(~np.isnan(m), axis=1)
    mean = np.full(len(m), np.nan)
    mean[count > 0] = np.nanmean(m[count > 0], axis=1)
    return Aggregate(mean, item_sd(m), count)


# -- rater quality ----------------------------------------------------------------------------


@dataclass
class Decision:
    rater: str
    action: str  # shifted, excluded
    why: str


@dataclass
class Quality:
    matrix: np.ndarray  # after shifts, excluded raters' columns removed
    raters: list[str]
    decisions: list[Decision] = field(default_factory=list)


def shift_raters(
    matrix: np.ndarray,
    raters: list[str],
    consistency: np.ndarray,
    scale: tuple[float, float],
    threshold: float = 1.0,
    step: float = 1.0,
) -> tuple[np.ndarray, list[Decision]]:
    """SimLex-999's calibration (module docstring); ``consistency``: a row mask."""
    out = matrix.copy()
    decisions = []
    sub = matrix[consistency]
    overall = float(np.nanmean(sub))
    for j, name in enumerate(raters):
        rated = sub[:, j][~np.isnan(sub[:, j])]
        if not len(rated):
            continue
        gap = float(rated.mean()) - overall
        if abs(gap) > threshold:
            moved = -step if gap > 0 else step
            out[:, j] = np.clip(out[:, j] + moved, scale[0], scale[1])
            why = (
                f"mean {rated.mean():.3f} on the consistency pairs, all raters {overall:.3f}: "
                f"shifted by {moved:+g}"
            )
            decisions.append(Decision(name, "shifted", why))
    return out, decisions


def check_raters(
    matrix: np.ndarray,
    raters: list[str],
    checkpoints: dict[int, tuple[float, float]] | None = None,
    min_gain: float = 0.01,
) -> tuple[list[int], list[Decision]]:
    """The raters to keep (column indices) and the exclusions, by the rules of the module
    docstring, in that order."""
    keep = list(range(len(raters)))
    decisions: list[Decision] = []
    for row, (low, high) in sorted((checkpoints or {}).items()):
        for j in list(keep):
            value = matrix[row, j]
            if not np.isnan(value) and not low <= value <= high:
                keep.remove(j)
                why = f"checkpoint on pair {row + 1}: rated {value:g}, allowed {low:g}-{high:g}"
                decisions.append(Decision(raters[j], "excluded", why))
    rho = rho_matrix(matrix)
    if len(keep) > 2:
        agree = np.array([nan_mean(rho[j, [k for k in keep if k != j]]) for j in keep])
        known = agree[~np.isnan(agree)]
        cut = float(known.mean() - known.std()) if len(known) else math.nan
        for j, a in zip(list(keep), agree, strict=True):
            if a < cut:
                keep.remove(j)
                why = (
                    f"mean pairwise Spearman {a:.3f} is more than one SD below the raters' "
                    f"mean (cut {cut:.3f})"
                )
                decisions.append(Decision(raters[j], "excluded", why))
    while len(keep) > 2:
        now = average_pairwise(rho, keep)
        gains = [average_pairwise(rho, [k for k in keep if k != j]) - now for j in keep]
        finite = [g if not math.isnan(g) else -math.inf for g in gains]
        best = int(np.argmax(finite))
        if finite[best] < min_gain:
            break
        j = keep.pop(best)
        why = (
            f"excluding raises the average pairwise Spearman by {gains[best]:.3f} (from {now:.3f})"
        )
        decisions.append(Decision(raters[j], "excluded", why))
    return keep, decisions


def rater_quality(
    matrix: np.ndarray,
    raters: list[str],
    scale: tuple[float, float],
    consistency: np.ndarray | None = None,
    checkpoints: dict[int, tuple[float, float]] | None = None,
    min_gain: float = 0.01,
) -> Quality:
    """Shift, then exclude (module docstring)."""
    decisions: list[Decision] = []
    if consistency is not None and consistency.any():
        matrix, decisions = shift_raters(matrix, raters, consistency, scale)
    keep, excluded = check_raters(matrix, raters, checkpoints, min_gain)
    return Quality(matrix[:, keep], [raters[j] for j in keep], decisions + excluded)


# -- agreement --------------------------------------------------------------------------------


@dataclass(frozen=True)
class CampaignAgreement:
    pairwise: float
    leave_one_out: float
    alpha_ordinal: float
    alpha_interval: float
    mean_sd: float


def campaign_agreement(matrix: np.ndarray) -> CampaignAgreement:
    """Agreement of a pairs × raters matrix; a figure that is undefined (one rater, one
    distinct rating, no pair rated twice) is NaN."""
    values = np.unique(matrix[~np.isnan(matrix)])
    # α compares ratings of the same pair: undefined (the package raises) with one value
    defined = len(values) > 1 and np.any(np.sum(~np.isnan(matrix), axis=1) > 1)
    sds = item_sd(matrix)
    return CampaignAgreement(
        pairwise_spearman(matrix),
        leave_one_out(matrix),
        krippendorff_alpha(matrix, "ordinal") if defined else math.nan,
        krippendorff_alpha(matrix, "interval") if defined else math.nan,
        float(np.nanmean(sds)) if np.any(~np.isnan(sds)) else math.nan,
    )


def agreement_record(agreement: CampaignAgreement) -> dict[str, float | None]:
    """The agreement as the manifest keeps it: rounded to 6 places, null when undefined."""
    return {k: None if math.isnan(v) else round(v, 6) for k, v in vars(agreement).items()}
