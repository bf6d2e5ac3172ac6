"""Cross-fitted training scores for ``simeval train combine --cross-fit K``.

A fine-tuned encoder scores the pairs it was trained on better than new pairs, so a
combination fitted on those scores trusts it more than it should. With K folds, each
``encoder:model=FOLDER`` measure (a folder written by ``simeval train encoder``) is fine-tuned
again K times, with the settings its ``simeval-train.json`` records, each time on the pairs
outside one fold, and that fold's pairs are scored by the encoder that did not see them; the
combination is fitted on these out-of-fold scores. At test time ``learned:`` uses the encoder
of FOLDER, trained on all the pairs, as without cross-fitting.

Folds are drawn by a seed over the distinct pairs (:func:`simeval.train.examples.pair_key`:
either direction, case and ё/е ignored), so a pair that occurs twice is held out whole: no
fold's encoder has seen a pair it scores. The fold encoders are written to a scratch folder and
removed once they have scored their fold.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from simeval.errors import InputError
from simeval.measures.base import TextPairs, WordPairs
from simeval.measures.learned import CombineConfig, design_matrix
from simeval.measures.records import read_record
from simeval.train.encoder import RECORD as ENCODER_RECORD
from simeval.train.encoder import EncoderConfig
from simeval.train.examples import TrainingPairs, pair_key

# fine-tune as :func:`simeval.train.encoder.train_encoder`: (settings, pairs, out folder, the
# base model's path, progress) -> the folder
FineTune = Callable[[EncoderConfig, TrainingPairs, Path, Path, Any], Path]


@dataclass
class CrossFit:
    """How to cross-fit: ``folds`` folds drawn by ``seed``; ``fine_tune`` and ``create`` (a
    measure from its spec) are the trainer's and the registry's own unless a test gives others;
    ``scratch`` is where fold encoders are written (a temporary folder beside the output when
    None)."""

    folds: int
    seed: int
    fine_tune: FineTune | None = None
    create: Callable[[str], Any] | None = None
    scratch: Path | None = None


def pair_folds(a: Sequence[str], b: Sequence[str], folds: int, seed: int) -> np.ndarray:
    """The fold (0 … ``folds`` − 1) of each pair: the distinct pairs (:func:`pair_key`) in a
    random order drawn by ``seed``, dealt to the folds in turn, so the folds hold as many
    distinct pairs as can be (±1) and every copy of a pair is in the same fold."""
    keys = [pair_key(x, y) for x, y in zip(a, b, strict=True)]
    groups = list(dict.fromkeys(keys))  # distinct pairs, in first-seen order
    if folds < 2 or folds > len(groups):
        most = len(groups)
        raise InputError(None, None, f"--cross-fit takes 2 to {most} folds (pairs), not {folds}")
    order = np.random.default_rng(seed).permutation(len(groups))
    fold_of = {groups[g]: i % folds for i, g in enumerate(order)}
    return np.array([fold_of[k] for k in keys], dtype=np.int64)


def prepare(measures: Sequence[Any], pairs: list[tuple[str, str]], texts: bool) -> None:
    """Let ``measures`` load what scoring ``pairs`` needs, as a task would hand them over."""
    request = (TextPairs if texts else WordPairs)(pairs)
    for m in measures:
        m.prepare(request.words(), request.texts())


def _subset(data: TrainingPairs, keep: np.ndarray) -> TrainingPairs:
    idx = np.flatnonzero(keep)
    return TrainingPairs([data.a[i] for i in idx], [data.b[i] for i in idx], data.gold[idx], {})


def _trained_settings(measure: Any, data: TrainingPairs) -> EncoderConfig | None:
    """The recorded settings of a fine-tuned ``encoder:`` measure, None for any other measure;
    refused when the encoder was trained on other pairs than the combination's."""
    folder = getattr(measure, "model_path", None)
    if measure.name != "encoder" or folder is None or not (folder / ENCODER_RECORD).is_file():
        return None
    path = folder / ENCODER_RECORD
    record = read_record(path, ("config", "data"), "simeval train encoder")
    known = {f.name for f in fields(EncoderConfig)}
    try:
        settings = EncoderConfig(**{k: v for k, v in record["config"].items() if k in known})
        theirs = {name: (s["pairs"], s["data"]) for name, s in record["data"].items()}
    except (AttributeError, TypeError, KeyError) as exc:
        raise InputError(
            path, None, f"config and data: not as simeval train encoder writes them ({exc})"
        ) from None
    mine = {name: (s["pairs"], s["data"]) for name, s in data.sources.items()}
    if mine != theirs:
        raise InputError(
            path,
            None,
            "--cross-fit fine-tunes this encoder again on the combination's pairs, but it was "
            "trained on others: give combine the --on and --exclude the encoder had",
        )
    return settings


def _fold_spec(measure: Any, folder: Path) -> str:
    """``measure``'s spec with the fold's encoder as its model (never cached: the folder is
    removed after use)."""
    p = measure.params
    return f"encoder:model={folder},batch={p['batch']},backend={p['backend']},cache=false"


def out_of_fold_matrix(
    config: CombineConfig,
    data: TrainingPairs,
    measures: Sequence[Any],
    plan: CrossFit,
    near: Path,
    progress: Callable[[str, int], Callable[[int, float], None]] | None = None,
) -> tuple[np.ndarray, dict[str, Any]]:
    """The design matrix of ``data`` with each fine-tuned encoder's columns from the fold
    encoders that did not see the pair (the other measures' columns as without cross-fitting),
    and the record of what was done: folds, seed, each fold's sizes and the settings.

    ``progress(what, steps)`` is called as each fold's fine-tuning starts and gives the
    callback the trainer advances."""
    from simeval.measures import create_measure
    from simeval.measures.encoder import base_model_path
    from simeval.train.encoder import train_encoder

    create = plan.create or create_measure
    fine_tune = plan.fine_tune or train_encoder
    fold = pair_folds(data.a, data.b, plan.folds, plan.seed)
    settings = [_trained_settings(m, data) for m in measures]
    refit = [i for i, s in enumerate(settings) if s is not None]
    if not refit:
        raise InputError(
            None,
            None,
            "--cross-fit needs a fine-tuned encoder among --measure "
            "(encoder:model=FOLDER, a folder written by `simeval train encoder`)",
        )
    pairs = list(zip(data.a, data.b, strict=True))
    prepare([m for i, m in enumerate(measures) if i not in refit], pairs, config.texts)
    x: np.ndarray | None = None
    sizes = []
    scratch = plan.scratch or near
    scratch.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".cross-fit-", dir=scratch) as tmp:
        for k in range(plan.folds):
            held = fold == k
            train, held_pairs = _subset(data, ~held), [pairs[i] for i in np.flatnonzero(held)]
            sizes.append({
                "fold": k + 1, "held_out": int(held.sum()), "trained_on": len(train.a),
                "distinct_held_out": len({pair_key(*p) for p in held_pairs}),
            })  # fmt: skip
            in_fold = list(measures)
            for i in refit:
                s = settings[i]
                assert s is not None
                out = Path(tmp) / f"measure-{i + 1}-fold-{k + 1}"
                base = base_model_path(s.base)
                advance = None
                if progress is not None:
                    steps = -(-len(train.a) // s.batch) * s.epochs
                    what = f"fold {k + 1}/{plan.folds}: fine-tuning on {len(train.a):,} pairs"
                    advance = progress(what, steps)
                fine_tune(s, train, out, base, advance)
                in_fold[i] = create(_fold_spec(measures[i], out))
                prepare([in_fold[i]], held_pairs, config.texts)
            part = design_matrix(in_fold, held_pairs, config)
            if x is None:
                x = np.empty((len(pairs), part.shape[1]))
            x[held] = part
    assert x is not None
    record = {
        "folds": plan.folds,
        "seed": plan.seed,
        "grouped_by": "pair in either direction, case, surrounding space and ё/е ignored",
        "fold_sizes": sizes,
        "refitted": {config.measures[i]: asdict(s) for i, s in enumerate(settings) if s},
    }
    return x, record
