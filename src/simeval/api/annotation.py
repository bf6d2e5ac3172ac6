"""Annotation campaigns as RUSSE 2015 and SimLex-999 ran them (``simeval build annotation``):
hand out assignments, aggregate answers with the SimLex-999 rater checks, and replay
WordSim-353's raters to see which mode needs fewer answers (:mod:`simeval.datasets.annotation`).
Each call writes a new folder with ``manifest.json`` and ``log.tsv``
(:mod:`simeval.datasets.folder`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from simeval.api.building import Built, check_seed, digests
from simeval.data.atomic import write_atomic
from simeval.data.store import DataStore
from simeval.datasets.tables import write_table
from simeval.errors import InputError


def parse_range(text: str, what: str) -> tuple[float, float]:
    """``"LOW:HIGH"`` as two finite numbers, LOW below HIGH and HIGH − LOW finite (``what``
    names the option in errors)."""
    try:
        low, high = (float(x) for x in text.split(":"))
    except ValueError:
        raise InputError(None, None, f"{what}: expected LOW:HIGH, e.g. 0:6, not {text!r}") from None
    if not all(math.isfinite(x) for x in (low, high, high - low)):
        raise InputError(
            None, None, f"{what}: LOW and HIGH must be finite numbers (e.g. 0:6), not {text!r}"
        )
    if not low < high:
        raise InputError(None, None, f"{what}: LOW must be below HIGH, got {text!r}")
    return low, high


def annotation_assign(
    out: str | Path,
    pairs: str | Path,
    *,
    mode: str = "count",
    number: int = 10,
    size: int = 15,
    answers: str | Path | None = None,
    scale: str = "0:10",
    seed: int = 0,
) -> Built:
    """Hand out ``number`` assignments of ``size`` distinct pairs, each pair drawn with
    probability 1/(1 + annotations so far) in ``count`` mode or proportional to the SD of its
    ratings in ``sd`` mode (unrated pairs first).

    Args:
        pairs: the pair file to annotate; answers: the answers so far (CSV
            rater,word1,word2,rating[,time]) on the ``scale`` LOW:HIGH; seed: the same seed,
            the same assignments.

    Writes ``assignments.csv`` (assignment,word1,word2), ``manifest.json`` and ``log.tsv``.
    """
    from simeval.datasets.annotation import (
        MODES,
        make_assignments,
        read_answers,
        read_campaign_pairs,
    )
    from simeval.datasets.folder import building

    if mode not in MODES:
        raise InputError(None, None, f"--mode must be {' or '.join(MODES)}, not {mode!r}")
    check_seed(seed)
    low_high = parse_range(scale, "--scale")
    items = read_campaign_pairs(Path(pairs))
    matrix = np.full((len(items), 0), np.nan)
    if answers is not None:
        matrix = read_answers(Path(answers), items, low_high).matrix()
    chosen = make_assignments(matrix, mode, number, size, seed)
    settings = {"mode": mode, "assignments": number, "size": size, "scale": scale, "seed": seed}
    with building(out, "campaign-assign", settings) as b:
        b.inputs = digests(pairs, answers)
        handed = [(k, *items[i]) for k, rows in enumerate(chosen, 1) for i in rows]
        write_table(b.path / "assignments.csv", ("assignment", "word1", "word2"), handed)
        for k, w1, w2 in handed:
            b.note("assign", f"{w1},{w2}", f"assignment {k}", mode)
        b.counts = {"pairs": len(items), "answers_so_far": int(np.sum(~np.isnan(matrix)))}
        b.counts["handed_out"] = sum(len(r) for r in chosen)
    summary = f"{number} assignments of {size} pairs ({mode} mode)"
    return Built(Path(out), [Path(out) / "assignments.csv"], b.counts, summary)


def _pair_rows(path: str | Path | None, items: list[tuple[str, str]]) -> np.ndarray | None:
    """Which campaign pairs the pair file ``path`` lists (None: no file)."""
    from simeval.data.pair_files import read_pair_keys

    if path is None:
        return None
    wanted = read_pair_keys(Path(path))
    return np.array([p in wanted for p in items], dtype=bool)


def _checkpoints(
    path: str | Path | None, items: list[tuple[str, str]]
) -> dict[int, tuple[float, float]] | None:
    """A checkpoint file: word1,word2,low,high (the allowed ratings of a control pair)."""
    from simeval.data.pair_files import read_pair_table
    from simeval.data.textio import parse_float

    if path is None:
        return None
    path = Path(path)
    index = {p: i for i, p in enumerate(items)}
    table = read_pair_table(path)
    found: dict[int, tuple[float, float]] = {}
    for cells, line in zip(table.rows, table.lines, strict=True):
        if len(cells) < 4:
            raise InputError(path, line, "expected word1,word2,low,high")
        pair = (cells[0], cells[1])
        if pair not in index:
            raise InputError(path, line, "this checkpoint pair is not in the campaign")
        low = parse_float(cells[2], path, line, "low")
        high = parse_float(cells[3], path, line, "high")
        found[index[pair]] = (low, high)
    return found


def annotation_aggregate(
    out: str | Path,
    pairs: str | Path,
    answers: str | Path,
    *,
    scale: str = "0:10",
    rescale: str | None = None,
    consistency: str | Path | None = None,
    checkpoints: str | Path | None = None,
    min_gain: float = 0.01,
) -> Built:
    """Check raters the SimLex-999 way (shift, then exclude: checkpoints, one SD below the
    mean agreement, agreement gain) and aggregate their ratings into a benchmark.

    Args:
        pairs: the campaign's pair file; answers: CSV rater,word1,word2,rating[,time];
        scale: the rating scale LOW:HIGH; rescale: map it linearly to LOW:HIGH;
        consistency: pairs of the consistency set (shift raters off by > 1);
        checkpoints: control pairs word1,word2,low,high (a miss excludes the rater);
        min_gain: exclude a rater whose exclusion raises agreement this much.

    Writes ``benchmark.csv`` (word1, word2, sim = mean, sd, n), ``raters.tsv``, the agreement
    in ``manifest.json`` and ``log.tsv``; the folder is a graded benchmark. ``extra``:
    ``agreement`` (:func:`simeval.datasets.annotation.campaign_agreement`), ``raters`` and
    ``raters_kept``.
    """
    from simeval.data.pair_files import format_score
    from simeval.datasets.annotation import (
        aggregate,
        agreement_record,
        campaign_agreement,
        rater_quality,
        read_answers,
        read_campaign_pairs,
    )
    from simeval.datasets.folder import building

    low_high = parse_range(scale, "--scale")
    target = parse_range(rescale, "--rescale") if rescale is not None else None
    if not math.isfinite(min_gain):
        raise InputError(None, None, f"--min-gain must be a finite number, not {min_gain!r}")
    items = read_campaign_pairs(Path(pairs))
    given = read_answers(Path(answers), items, low_high)
    quality = rater_quality(
        given.matrix(),
        given.raters,
        low_high,
        _pair_rows(consistency, items),
        _checkpoints(checkpoints, items),
        min_gain,
    )
    if not quality.raters:
        raise InputError(answers, None, "every rater was excluded: nothing to aggregate")
    agg = aggregate(quality.matrix, low_high, target)
    agreement = campaign_agreement(quality.matrix)
    settings = {"scale": scale, "rescale": rescale, "min_gain": min_gain}
    with building(out, "campaign-aggregate", settings) as b:
        b.inputs = digests(pairs, answers, consistency, checkpoints)
        b.benchmark = {"file": "benchmark.csv", "kind": "graded"}
        rated = agg.count > 0
        write_table(
            b.path / "benchmark.csv",
            ("word1", "word2", "sim", "sd", "n"),
            (
                (
                    *items[i],
                    format_score(float(agg.mean[i])),
                    "" if np.isnan(agg.sd[i]) else format_score(float(agg.sd[i])),
                    agg.count[i],
                )
                for i in np.flatnonzero(rated)
            ),
        )
        for i in np.flatnonzero(~rated):
            b.note("aggregate", f"{items[i][0]},{items[i][1]}", "left out", "no rating")
        decided = {d.rater: d for d in quality.decisions if d.action == "excluded"}
        rows = []
        counts = np.bincount(given.rater, minlength=len(given.raters))
        for name, n in zip(given.raters, counts, strict=True):
            shifted = [
                d.why for d in quality.decisions if d.rater == name and d.action == "shifted"
            ]
            outcome = "excluded" if name in decided else "shifted" if shifted else "kept"
            why = decided[name].why if name in decided else "; ".join(shifted)
            rows.append((name, n, outcome, why))
        write_table(b.path / "raters.tsv", ("rater", "answers", "outcome", "why"), rows, "\t")
        for d in quality.decisions:
            b.note("raters", d.rater, d.action, d.why)
        b.counts = {
            "pairs": len(items),
            "pairs_rated": int(rated.sum()),
            "answers": len(given.rating),
            "raters": len(given.raters),
            "raters_kept": len(quality.raters),
            "agreement": agreement_record(agreement),
        }
    summary = f"{int(rated.sum())} pairs, {len(quality.raters)} of {len(given.raters)} raters kept"
    folder = Path(out)
    extra = {
        "agreement": agreement,
        "raters": len(given.raters),
        "raters_kept": len(quality.raters),
    }
    return Built(
        folder, [folder / "benchmark.csv", folder / "raters.tsv"], b.counts, summary, extra
    )


def _write_answers(
    folder: Path, trace: Any, pool: np.ndarray, words: list[tuple[str, str]], raters: list[str]
) -> None:
    """A replay's answers as a campaign's answers CSV, and the pairs it was about. WordSim-353
    lists a few pairs twice (money/cash); a rater's second answer to the same pair is left
    out, as a campaign takes one answer per rater and pair."""
    seen: set[tuple[str, tuple[str, str]]] = set()
    rows = []
    for i, j in trace.given:
        if (raters[j], words[i]) not in seen:
            seen.add((raters[j], words[i]))
            rows.append((raters[j], *words[i], f"{pool[i, j]:g}", ""))
    write_table(folder / "answers.csv", ("rater", "word1", "word2", "rating", "time"), rows)
    write_table(folder / "pairs.tsv", ("word1", "word2"), dict.fromkeys(words), "\t")


def wordsim_pool(store: DataStore) -> tuple[np.ndarray, list[tuple[str, str]], list[str]]:
    """WordSim-353's individual ratings as one pairs × raters matrix (the two rater groups,
    set1 and set2, rated disjoint pairs), its pairs and its raters' names."""
    from simeval.data.pair_files import read_pair_table
    from simeval.datasets.agreement import RATINGS, read_ratings

    files = RATINGS["wordsim353"]
    parts = [read_ratings(store.path(f)) for f in files]
    words = [(r[0], r[1]) for f in files for r in read_pair_table(store.path(f)).rows]
    raters = [f"set{k}-{j + 1}" for k, p in enumerate(parts, 1) for j in range(p.shape[1])]
    pool = np.full((sum(p.shape[0] for p in parts), sum(p.shape[1] for p in parts)), np.nan)
    r = c = 0
    for p in parts:
        pool[r : r + p.shape[0], c : c + p.shape[1]] = p
        r, c = r + p.shape[0], c + p.shape[1]
    return pool, words, raters


def annotation_simulate(
    out: str | Path,
    *,
    targets: Sequence[float] = (3.0, 4.0),
    size: int = 15,
    replays: int = 10,
    seed: int = 0,
    html: str | Path | None = None,
    answers_of: str = "sd",
    store: DataStore | None = None,
) -> Built:
    """Replay WordSim-353's 29 raters as the crowd and count, for count and sd modes, the
    answers needed until every pair's mean has a 95% interval narrower than each target
    width (or has used up its raters).

    Args:
        targets: interval widths to reach; size: pairs per assignment; replays: seeded
            campaigns per mode; html: also write the curves as an HTML page there;
        answers_of: the mode whose first replay at the first target is written as
            ``answers.csv`` and ``pairs.tsv`` (the input of :func:`annotation_aggregate`).

    Writes ``simulation.tsv`` (a row per target, mode and replay), ``manifest.json`` and
    ``log.tsv``. ``extra``: ``rows`` (target, mode, comparison, mean answers until 90% done)
    and ``agreement`` of the pool.
    """
    from simeval.datasets.agreement import RATINGS
    from simeval.datasets.annotation import agreement_record, campaign_agreement
    from simeval.datasets.folder import building
    from simeval.datasets.simulate import compare_modes

    targets = list(targets)
    for t in targets:
        if not (math.isfinite(t) and t > 0):
            raise InputError(None, None, f"--target {t:g}: expected a width above 0")
    check_seed(seed)
    store = store or DataStore.from_env()
    if answers_of not in ("count", "sd"):
        raise InputError(None, None, f"--answers-of must be count or sd, not {answers_of!r}")
    pool, words, raters = wordsim_pool(store)
    agreement = campaign_agreement(pool)
    settings = {"targets": targets, "size": size, "replays": replays, "seed": seed}
    rows, curves = [], {}
    with building(out, "campaign-simulate", settings) as b:
        b.inputs = {f: store.sha256(f) for f in RATINGS["wordsim353"]}
        replayed = []
        for t in targets:
            comparison, traces = compare_modes(pool, t, size, replays, seed)
            for mode, ts in traces.items():
                for tr in ts:
                    what = f"{mode} mode, seed {tr.seed}, target {t:g}"
                    b.note("replay", what, f"{tr.needed} answers", f"{tr.capped} pairs capped")
                    replayed.append(
                        (f"{t:g}", mode, tr.seed, tr.needed, tr.answers_until(0.9), tr.capped)
                    )
                curves[f"{mode}, width < {t:g}"] = (ts[0].answers, ts[0].done)
                if mode == answers_of and t == targets[0]:
                    _write_answers(b.path, ts[0], pool, words, raters)
                rows.append(
                    (t, mode, comparison[mode], np.mean([x.answers_until(0.9) for x in ts]))
                )
        columns = ("target", "mode", "seed", "answers_all_done", "answers_90pc_done", "capped")
        write_table(b.path / "simulation.tsv", columns, replayed, "\t")
        b.counts = {
            "pairs": pool.shape[0],
            "raters": pool.shape[1],
            "ratings": int(np.sum(~np.isnan(pool))),
            "agreement": agreement_record(agreement),
        }
    folder = Path(out)
    written = [folder / "simulation.tsv"]
    if html is not None:
        from simeval.report.html import simulation_page

        page = simulation_page(rows, curves, agreement, size, replays)
        write_atomic(html, page.encode("utf-8"))
        written.append(Path(html))
    summary = f"answers needed, mean of {replays} replays ({pool.shape[0]} pairs)"
    extra = {"rows": rows, "agreement": agreement}
    return Built(folder, written, b.counts, summary, extra)
