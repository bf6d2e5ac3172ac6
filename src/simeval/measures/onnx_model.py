"""A sentence-transformers model run by ONNX Runtime (``encoder:backend=onnx``).

The model is exported once, locally, from its sentence-transformers folder: the whole
pipeline (transformer, pooling, normalization) traced by ``torch.onnx.export`` into one
graph from token ids to the sentence embedding, and the tokenizer as sentence-transformers
configured it (truncation at ``max_seq_length``, lower-casing) saved beside it. The export is
written to a temporary folder, checked against the torch model on a few texts, and renamed
into ``<cache>/onnx/<model identity>/``: a cut-short export leaves nothing a later run would
read. Later runs load that folder with ``onnxruntime`` and ``tokenizers`` only — neither torch
nor sentence-transformers is imported, which is most of what this backend saves: importing
them costs about 9 s, encoding sts12 with either engine about 16–17 s.

sentence-transformers' own ``backend="onnx"`` needs ``optimum.onnxruntime``, which on the
package index is only in ``optimum-onnx`` 0.1.0, pinned to ``transformers<4.58``, while
sentence-transformers 6 needs ``transformers>=5``: pip can only install it by going back to
sentence-transformers 5.
"""

from __future__ import annotations

import io
import json
import logging
import os
import shutil
import tempfile
import warnings
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import numpy as np

from simeval.cache import cache_root
from simeval.errors import InputError

EXPORT_FORMAT = 1  # bumped when what an export folder holds changes: older folders are redone
MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
META_FILE = "simeval-onnx.json"
CHECK_TEXTS = [
    "A man is playing a guitar.",
    "The cat sat on the mat, and then it slept for a very long time in the afternoon sun.",
    "x",
]
# the largest |difference| allowed between the export and the torch model on CHECK_TEXTS
CHECK_TOLERANCE = 1e-4


def onnx_folder(model_path: Path, model_id: str) -> Path:
    """The exported model of ``model_path`` (identity ``model_id``), exported now if absent."""
    folder = cache_root() / "onnx" / model_id
    if not _complete(folder):
        export(model_path, folder)
    return folder


def _complete(folder: Path) -> bool:
    try:
        meta = json.loads((folder / META_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return meta.get("format") == EXPORT_FORMAT and (folder / MODEL_FILE).is_file()


def export(model_path: Path, folder: Path) -> None:
    """Export the sentence-transformers model at ``model_path`` into ``folder`` (created by
    renaming a finished temporary folder; an existing complete export is kept)."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=".tmp", dir=folder.parent))
    try:
        _export_into(model_path, tmp)
        if folder.exists():  # an older format, or a concurrent run's export
            if _complete(folder):
                return
            shutil.rmtree(folder, ignore_errors=True)
        try:
            os.rename(tmp, folder)
        except OSError:  # another run renamed its export first
            if not _complete(folder):
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _export_into(model_path: Path, out: Path) -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import onnx  # noqa: F401  (torch.onnx.export needs both, and says so late)
        import onnxscript  # noqa: F401
        import torch
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise ImportError(
            "exporting an encoder to ONNX (once, for backend=onnx) needs torch, "
            f"sentence-transformers, onnx and onnxscript ({exc.name} is missing): pip install "
            "torch==2.13.0 'simeval[encoders]', or run the model with encoder:backend=torch"
        ) from exc
    _require_onnxruntime()
    model = SentenceTransformer(str(model_path), device="cpu").eval()
    tokenizer = model.tokenizer
    if tokenizer is None or not getattr(tokenizer, "is_fast", False):
        raise InputError(model_path, None, "backend=onnx needs a model with a fast tokenizer")
    given = tokenizer(CHECK_TEXTS, truncation=True)
    names = [n for n in ("input_ids", "attention_mask", "token_type_ids") if n in given]
    if names[:2] != ["input_ids", "attention_mask"]:
        raise InputError(model_path, None, "backend=onnx needs token ids and an attention mask")

    class Pipeline(torch.nn.Module):
        """Token ids -> sentence embedding, through every module of the model."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any = None) -> Any:
            given = (input_ids, attention_mask, token_type_ids)
            return self.model(dict(zip(names, given, strict=False)))["sentence_embedding"]

    sample = tokenizer(CHECK_TEXTS, padding=True, truncation=True, return_tensors="pt")
    args = tuple(sample[n] for n in names)
    batch, length = torch.export.Dim("batch"), torch.export.Dim("sequence")
    try:
        # the exporter prints its steps and warns about its internals: keep them off stdout,
        # where `--json` writes
        with torch.no_grad(), warnings.catch_warnings(), redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            logging.getLogger("torch.onnx").setLevel(logging.ERROR)
            torch.onnx.export(
                Pipeline().eval(),
                args,
                str(out / MODEL_FILE),
                input_names=names,
                output_names=["sentence_embedding"],
                dynamic_shapes=tuple({0: batch, 1: length} for _ in names),
                dynamo=True,
                external_data=False,
                verbose=False,
            )
            expected = model.encode(CHECK_TEXTS, convert_to_numpy=True)
    except Exception as exc:  # the exporter raises many kinds; the message says which
        raise InputError(
            model_path, None, f"cannot export this model to ONNX ({exc}); use backend=torch"
        ) from None
    tokenizer.backend_tokenizer.save(str(out / TOKENIZER_FILE))
    meta = {
        "format": EXPORT_FORMAT,
        "inputs": names,
        "max_length": int(tokenizer.model_max_length),
        "pad_id": int(tokenizer.pad_token_id or 0),
        "pad_type_id": int(getattr(tokenizer, "pad_token_type_id", 0) or 0),
        "dimension": int(expected.shape[1]),
        "torch": torch.__version__,
    }
    (out / META_FILE).write_text(json.dumps(meta, indent=1), encoding="utf-8")
    got = OnnxModel(out).encode(CHECK_TEXTS)
    worst = float(np.abs(got - expected).max())
    if worst > CHECK_TOLERANCE:
        raise InputError(
            model_path,
            None,
            f"the ONNX export differs from the torch model by {worst:.1e} (more than "
            f"{CHECK_TOLERANCE:g}); use backend=torch",
        )


def _require_onnxruntime() -> Any:
    try:
        import onnxruntime
    except ImportError as exc:
        raise ImportError(
            "encoder:backend=onnx needs onnxruntime: pip install 'simeval[encoders]', or run "
            "the model with encoder:backend=torch"
        ) from exc
    return onnxruntime


def omp_threads() -> int:
    """The threads ONNX Runtime computes with: ``OMP_NUM_THREADS`` where it is a positive
    number (what torch and the BLAS libraries read, so one setting holds both backends to it:
    two test processes on two cores each keep to one), else 0, one per core."""
    text = os.environ.get("OMP_NUM_THREADS", "")
    return int(text) if text.isdigit() and int(text) > 0 else 0


class OnnxModel:
    """An exported folder: its tokenizer (``tokenizers``) and graph (``onnxruntime``)."""

    def __init__(self, folder: Path, threads: int | None = None) -> None:
        ort = _require_onnxruntime()
        from tokenizers import Tokenizer

        self.meta = json.loads((folder / META_FILE).read_text(encoding="utf-8"))
        self.tokenizer = Tokenizer.from_file(str(folder / TOKENIZER_FILE))
        self.tokenizer.no_padding()  # padded here, per batch, to its longest text
        self.tokenizer.enable_truncation(self.meta["max_length"])
        self.tokenized: dict[str, Any] = {}
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.intra_op_num_threads = threads if threads is not None else omp_threads()
        options.log_severity_level = 3
        self.session = ort.InferenceSession(
            str(folder / MODEL_FILE), options, providers=["CPUExecutionProvider"]
        )

    def token_ids(self, texts: list[str]) -> list[tuple[int, ...]]:
        """Each text's token ids, special tokens included, truncated as the model is (the
        encodings are kept until the next call: :meth:`encode` need not tokenize again)."""
        encodings = self.tokenizer.encode_batch(texts)
        self.tokenized = dict(zip(texts, encodings, strict=True))
        return [tuple(e.ids) for e in encodings]

    def encode(self, texts: list[str]) -> np.ndarray:
        """Sentence embeddings of ``texts`` (one batch, padded to its longest text)."""
        if all(t in self.tokenized for t in texts):
            encodings = [self.tokenized[t] for t in texts]
        else:
            encodings = self.tokenizer.encode_batch(texts)
        width = max((len(e.ids) for e in encodings), default=0)
        shape = (len(encodings), width)
        feeds = {
            "input_ids": np.full(shape, self.meta["pad_id"], dtype=np.int64),
            "attention_mask": np.zeros(shape, dtype=np.int64),
            "token_type_ids": np.full(shape, self.meta["pad_type_id"], dtype=np.int64),
        }
        for row, e in enumerate(encodings):
            n = len(e.ids)
            feeds["input_ids"][row, :n] = e.ids
            feeds["attention_mask"][row, :n] = 1
            feeds["token_type_ids"][row, :n] = e.type_ids
        (out,) = self.session.run(None, {n: feeds[n] for n in self.meta["inputs"]})
        return np.asarray(out, dtype=np.float32)
