"""Fine-tune a sentence encoder on graded pair benchmarks; the folder it writes is what
``encoder:model=FOLDER`` loads.

Training pairs are the gold-scored pairs of the benchmarks named (STS sets, word-pair sets),
each gold rescaled to [0, 1] by its benchmark's range (STS: 0–5; word pairs: their declared
range, else the observed minimum and maximum). The loop is a plain PyTorch one over
sentence-transformers' own losses, so no trainer framework is needed:

- ``cosine`` (``CosineSimilarityLoss``): mean squared error between cos(u, v) and the gold;
- ``cosent`` (``CoSENTLoss``): log(1 + Σ exp(λ (cos_k − cos_l))) over the pairs (k, l) of a
  batch whose gold orders l above k — a ranking loss, the target of Spearman and Pearson alike;
- ``both``: their sum.

AdamW with a linear warm-up over the first ``warmup`` share of steps and linear decay after.
With ``bucket`` (the default) each epoch's batches hold pairs of similar token length (sorted
by the longer side's length, ties in random order, the batches then shuffled): a batch is
padded to its longest text and a step costs in proportion, so on CPU this runs about twice as
fast as random batches, with the same pairs seen each epoch. Seeded: the pair order, dropout
and the head's initialisation follow ``seed`` (with one thread count, runs repeat exactly).
The folder gets ``simeval-train.json``: the config, each benchmark's data sha256 and pair
count, the loss per epoch, the time and package versions.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simeval.errors import InputError
from simeval.train.examples import TrainingPairs
from simeval.train.folder import staged

LOSSES = ("cosine", "cosent", "both")
RECORD = "simeval-train.json"


@dataclass
class EncoderConfig:
    base: str = "all-MiniLM-L6-v2"  # the offline default, or a model folder
    on: list[str] = field(default_factory=list)
    epochs: int = 4
    batch: int = 16
    lr: float = 2e-5
    warmup: float = 0.1
    loss: str = "cosine"
    seed: int = 0
    max_seq_length: int = 128
    bucket: bool = True


def batches(lengths: np.ndarray, size: int, bucket: bool, rng: np.random.Generator) -> list:
    """One epoch's batches of indices: random, or (``bucket``) of similar ``lengths``, sorted
    with ties in random order, cut into batches of ``size`` and shuffled."""
    if bucket:
        order = np.lexsort((rng.random(len(lengths)), lengths))
    else:
        order = rng.permutation(len(lengths))
    chunks = [order[i : i + size] for i in range(0, len(order), size)]
    if bucket:
        chunks = [chunks[i] for i in rng.permutation(len(chunks))]
    return chunks


def _loss(name: str, model: Any) -> Callable[[list[dict], Any], Any]:
    from sentence_transformers.sentence_transformer import losses

    cosine = losses.CosineSimilarityLoss(model)
    cosent = losses.CoSENTLoss(model)
    if name == "cosine":
        return cosine
    if name == "cosent":
        return cosent
    return lambda features, labels: cosine(features, labels) + cosent(features, labels)


def train_encoder(
    config: EncoderConfig,
    data: TrainingPairs,
    out: str | Path,
    base_path: Path,
    progress: Callable[[int, float], None] | None = None,
) -> Path:
    """Fine-tune the model at ``base_path`` on ``data`` and write it to ``out`` (a temporary
    folder renamed at the end; an existing ``out`` is never touched). Weights in a pickle
    format are refused before anything is loaded, as ``encoder:model=`` refuses them."""
    from simeval.measures.encoder import refuse_pickled_weights

    refuse_pickled_weights(base_path)
    import torch
    from sentence_transformers import SentenceTransformer
    from transformers import get_linear_schedule_with_warmup

    from simeval.results.record import package_versions

    if config.loss not in LOSSES:
        raise InputError(None, None, f"unknown loss {config.loss!r}; one of {', '.join(LOSSES)}")
    target = Path(out)
    if target.exists():
        raise InputError(target, None, "exists: choose a new folder (nothing is overwritten)")
    start = time.perf_counter()
    torch.manual_seed(config.seed)
    rng = np.random.default_rng(config.seed)
    model = SentenceTransformer(str(base_path), device="cpu")
    model.max_seq_length = config.max_seq_length
    loss = _loss(config.loss, model)
    prepare = getattr(model, "preprocess", None) or model.tokenize  # tokenize: before v6
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=config.lr)
    tokens = model.tokenizer([*data.a, *data.b], truncation=True, max_length=model.max_seq_length)
    count = np.array([len(ids) for ids in tokens["input_ids"]])
    lengths = np.maximum(count[: len(data.a)], count[len(data.a) :])
    per_epoch = math.ceil(len(data.a) / config.batch)
    steps = per_epoch * config.epochs
    schedule = get_linear_schedule_with_warmup(optimizer, int(config.warmup * steps), steps)
    history = []
    model.train()
    for _ in range(config.epochs):
        total = 0.0
        for idx in batches(lengths, config.batch, config.bucket, rng):
            features = [prepare([data.a[j] for j in idx]), prepare([data.b[j] for j in idx])]
            labels = torch.tensor(data.gold[idx], dtype=torch.float32)
            value = loss(features, labels)
            optimizer.zero_grad()
            value.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            optimizer.step()
            schedule.step()
            total += float(value.detach())
            if progress is not None:
                progress(1, float(value.detach()))
        history.append(round(total / per_epoch, 6))
    model.eval()
    with staged(target) as tmp:
        model.save(str(tmp))
        record = {
            "config": asdict(config),
            "base": str(base_path),
            "data": data.sources,
            "pairs": len(data.a),
            "steps": steps,
            "loss_per_epoch": history,
            "seconds": round(time.perf_counter() - start, 1),
            "threads": torch.get_num_threads(),
            "versions": package_versions(),
        }
        (tmp / RECORD).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return target
