"""Run a measure on benchmarks and suites through the same task code as ``simeval score``.

``evaluate("overlap", "sts12")`` asks the measure what each target requests (word pairs, text
pairs or documents to link), turns its answers into the task's submission, and scores that
with ``Task.evaluate`` exactly as a submission file would be scored; it returns Result records
(optionally appended to a results folder). ``predict`` writes the same submission as the
task's official file(s).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from simeval.api.options import MEASURE_OBJECT, MISSING, checked
from simeval.api.records import warn_of_zeroed
from simeval.api.targets import Target, as_target, load_targets, registry_of
from simeval.data.store import DataStore
from simeval.errors import InputError
from simeval.measures import Measure, create_measure
from simeval.registry import Registry
from simeval.results.record import Result, Timer
from simeval.results.store import save_results


def prepare(measure: Measure, targets: Iterable[Target], scored_only: bool = False) -> None:
    """Let the measure load what every target needs, in one go (one pass over a vector file);
    ``scored_only``: what evaluating them needs (not STS lines without gold)."""
    words: set[str] = set()
    texts: set[str] = set()
    for t in targets:
        for request in t.requests(scored_only):
            words |= request.words()
            texts |= request.texts()
    measure.prepare(words, texts)


def measure_of(measure: Any, **how: Any) -> Measure:
    """A spec string, a Measure, an object with ``encode(list[str])`` or a function
    ``f(pairs) -> scores`` as a Measure (``how``: ``name``, ``fingerprint``, ``batch``;
    :mod:`simeval.measures.python`)."""
    if isinstance(measure, str):
        if how:
            raise InputError(None, None, f"{sorted(how)} apply to Python objects, not specs")
        return create_measure(measure)
    from simeval.measures.python import as_measure

    return as_measure(measure, **how)


@checked(MISSING, passes=MEASURE_OBJECT)
def evaluate(
    measure: Any,
    *targets: str | Target,
    store: DataStore | None = None,
    results_dir: str | Path | None = None,
    on_target: Callable[[str], None] | None = None,
    registry: Registry | str | Path | None = None,
    missing: str | None = None,
    **how: Any,
) -> list[Result]:
    """Evaluate ``measure`` on the targets: names, paths, or loaded benchmarks and suites.

    ``measure``: a spec string (``"overlap"``), a Measure, an encoder object with
    ``encode(list[str]) -> array`` (a sentence-transformers model), or a function of pairs,
    ``f(pairs) -> scores``, or of one pair, ``f(a, b) -> score``; for the last two ``name=``,
    ``fingerprint=`` (caches the embeddings on disk under that key) and ``batch=`` may be
    given. ``missing``: what a pair the measure leaves without a score (NaN) gets: ``"zero"``
    (RUSSE's rule; the default, as :func:`simeval.score`'s, unless the measure says what its
    NaN means: ``vectors``' ``oov=skip``), ``"skip"`` or ``"error"`` (refuse, naming the first
    such pair); when a Python measure leaves pairs unscored and ``missing`` was not given, a
    :class:`~simeval.errors.DefaultPolicyWarning` says how many were scored 0.
    Returns one Result per benchmark (plus one per suite with its aggregate); with
    ``results_dir`` they are also appended to ``results_dir/results.jsonl``.

    Examples:
        >>> import simeval
        >>> gold = simeval.benchmark_from_pairs([("cat", "dog", 7.5), ("cat", "car", 1.0),
        ...                                      ("cat", "kitten", 9.0)])
        >>> same_letter = lambda a, b: float(a[0] == b[0]) + len(set(a) & set(b)) / 10
        >>> simeval.evaluate(same_letter, gold, name="letters")[0].metrics["spearman"]
        -0.5
    """
    m = measure_of(measure, **how)
    if not targets:
        raise InputError(None, None, "name at least one benchmark or suite")
    store = store or DataStore.from_env()
    reg = registry_of(registry)
    loaded: list[Target] = []
    for t in targets:  # in the order given, each benchmark or suite once
        for target in load_targets([t], store, reg) if isinstance(t, str) else [as_target(t)]:
            if all(target.name != x.name for x in loaded):
                loaded.append(target)
    # a benchmark also named as a member of a suite is evaluated once, with the suite
    members = {b.name for t in loaded for b in t.members}
    loaded = [t for t in loaded if t.members or t.name not in members]
    with Timer() as timer:
        prepare(m, loaded, scored_only=True)
    results: list[Result] = []
    for target in loaded:
        if on_target:
            on_target(target.name)
        with Timer() as t:
            found = target.evaluate(
                target.submit(m, scored_only=True), missing=missing or m.missing
            )
        for r in found:
            r.seconds = t.seconds
        results.extend(found)
    facts = {**m.extra(), "prepare_seconds": round(timer.seconds, 3)}
    own = m.warnings()
    for r in results:
        r.system = {**m.describe(), **facts}
        r.warnings = [*r.warnings, *own]
    if missing is None and m.describe().get("kind") == "python":  # a user's own object
        warn_of_zeroed(results)
    if results_dir is not None:
        save_results(results_dir, results)
    return results


@checked(passes=MEASURE_OBJECT)
def predict(
    measure: Any,
    target: str | Target,
    out: str | Path,
    store: DataStore | None = None,
    registry: Registry | str | Path | None = None,
    **how: Any,
) -> list[Path]:
    """Write the measure's submission for ``target`` as the task's official file(s): RUSSE's
    test.csv with ``sim`` filled in (empty where the measure cannot score), a folder of
    STS.output.<dataset>.txt files, a word1,word2,sim file for a pair benchmark, BUCC runs.

    Examples:
        >>> import pathlib, tempfile, simeval
        >>> out = pathlib.Path(tempfile.mkdtemp()) / "mc30.csv"
        >>> [p.name for p in simeval.predict("overlap", "mc30", out)]
        ['mc30.csv']
        >>> out.read_text().splitlines()[:2]
        ['word1,word2,sim', 'car,automobile,0.0']
    """
    m = measure_of(measure, **how)
    loaded = as_target(target, store, registry)
    folder = getattr(loaded, "layout", "") == "folder"  # a suite of one file per member
    if not folder and (Path(out).is_dir() or str(out).endswith("/")):
        raise InputError(
            out, None, f"{loaded.name} is one file: --out names that file, not a folder"
        )
    if folder:
        _inside(Path(out), [(b.name, b.submission_file(Path(out))) for b in loaded.members])
    written = [b.submission_file(Path(out)) for b in loaded.members] if folder else [Path(out)]
    _not_an_input(loaded, written)
    prepare(m, [loaded])
    return loaded.write_submission(loaded.submit(m), Path(out))


def _not_an_input(target: Any, written: list[Path]) -> None:
    """Refuse to write a submission over a file the target reads (``--out`` naming the gold
    file itself): the gold would be lost."""
    members = getattr(target, "members", None) or [target]
    read = {Path(p).resolve() for b in members for p in getattr(b, "data", {}) if Path(p).is_file()}
    for f in written:
        if f.resolve() in read:
            raise InputError(f, None, f"--out would overwrite a file {target.name} reads")


def _inside(out: Path, files: list[tuple[str, Path]]) -> None:
    """Refuse to write a suite's submission when a member's file (named by the member) would
    land outside the folder ``out``, resolved as the file system will (``..``, symlinks)."""
    root = out.resolve()
    for name, f in files:
        if not f.resolve().is_relative_to(root) or f.resolve() == root:
            raise InputError(
                out, None, f"member {name!r}: its file {f} would be written outside --out"
            )
