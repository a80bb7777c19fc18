"""Embeddings through ONNX Runtime, with no model framework: the model exported once per
machine (`embedding.export`), its own fast tokenizer (the `tokenizers` package) and numpy.
A process that finds an intact export never imports torch, transformers or
sentence-transformers, so a CLI call costs what its work costs (docs/decisions.md, "No
model framework on the query path").

An export is three files in the cache, named for the model's files and torch's version
(`export_key`): `<stem>.onnx`, `<stem>.tokenizer.json` and `<stem>.onnx.sha256`, which
holds the SHA-256 of the other two. A damaged or unchecked export is deleted, to be made
again.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.base.batching import Batches

log = logging.getLogger(__name__)

#: One thread per query: a second one embeds faster (4.5 against 7 ms for 40 tokens), but
#: it spins after the run and slows the vector search that follows by more than it saved
#: (docs/decisions.md, "Query embeddings run on ONNX Runtime").
QUERY_THREADS = 1
#: Batches (the write path) use every core ONNX Runtime finds (0 = its own choice).
BATCH_THREADS = 0
#: Calls of at most this many texts run on the query session, together with concurrent
#: ones up to this many texts a run: on one thread a run of 8 short texts cost about 8 ms
#: of CPU a text, one text alone 12 (2 cores), where the batch session's threads spin on
#: a busy service (docs/decisions.md, "An agent's write is embedded like a query").
FEW = 32


class Tokens:
    """The model's fast tokenizer, as saved with its export: truncation as the model
    truncates, each call padded to its longest text."""

    def __init__(self, path: Path, max_tokens: int | None = None) -> None:
        """`max_tokens` cuts each text to that many word pieces, where the tokenizer file
        does not say (the fetched models' files do not)."""
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(path))
        self.tokenizer.no_padding()
        if max_tokens is not None:
            self.tokenizer.enable_truncation(max_tokens)

    def __call__(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """input_ids, attention_mask and token_type_ids of `texts`, (n, longest) int64."""
        return self.padded(self.encode(texts))

    def encode(self, texts: Sequence[str]) -> list[Any]:
        """The tokenizer's encodings of `texts`."""
        return self.tokenizer.encode_batch(list(texts)) if len(texts) > 1 else \
            [self.tokenizer.encode(texts[0])]

    @staticmethod
    def padded(encoded: Sequence[Any]) -> dict[str, np.ndarray]:
        """Encodings as the model's inputs, padded to the longest, (n, longest) int64."""
        width = max(len(e.ids) for e in encoded)
        out = {name: np.zeros((len(encoded), width), dtype=np.int64)
               for name in ("input_ids", "attention_mask", "token_type_ids")}
        for row, e in enumerate(encoded):
            n = len(e.ids)
            out["input_ids"][row, :n] = e.ids
            out["attention_mask"][row, :n] = e.attention_mask
            out["token_type_ids"][row, :n] = e.type_ids
        return out


def session(path: Path, threads: int) -> Any:
    """An ONNX Runtime CPU session of the model at `path` on `threads` threads."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3  # warnings on load would reach stderr
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


class Together:
    """Calls from many threads that arrive while one runs are run together, once it is
    done (`base.batching.Batches`): one model run for a service's concurrent requests
    costs about two thirds as much a text as one run each (docs/decisions.md, "An agent's
    write is embedded like a query"); a run takes at most `most` texts."""

    def __init__(self, run: Callable[[list[str]], np.ndarray], most: int) -> None:
        def batch(calls: list[list[str]]) -> list[np.ndarray]:
            vectors = run([t for texts in calls for t in texts])
            return np.split(vectors, np.cumsum([len(texts) for texts in calls])[:-1])

        self.batches = Batches(batch, lambda calls, texts: sum(map(len, calls)) + len(
            texts) <= most)

    def __call__(self, texts: list[str]) -> np.ndarray:
        """The unit vectors of `texts`, run with whatever other calls are waiting."""
        return self.batches(texts)


class OnnxModel:
    """Texts in, unit vectors out: a few texts on the query session (one thread), those
    of concurrent calls in one run; batches on a second session made on first use (every
    core), sorted by length so that a batch pads little."""

    def __init__(self, path: Path, tokens: Tokens, query_session: Any = None, *,
                 pooling: str = "export", query_prefix: str = "",
                 passage_prefix: str = "", alone: bool = False) -> None:
        """`pooling` turns a model's last hidden states into one vector ("mean" or
        "cls"; "export": the model outputs it already); queries and stored texts get
        their prefixes; `alone` runs each text on its own (graphmem.base.models)."""
        self.path = path
        self.tokens = tokens
        self.pooling = pooling
        self.alone = alone
        self.query_prefix, self.passage_prefix = query_prefix, passage_prefix
        self.query_session = query_session or session(path, QUERY_THREADS)
        self.inputs = [i.name for i in self.query_session.get_inputs()]
        self._batch_session: Any = None
        self._lock = threading.Lock()
        #: The most texts `few` takes.
        self.most = FEW
        # Queries and writes queue apart: a recall never waits for a write's texts.
        self._queries, self._writes = (Together(
            lambda texts: self._texts(self.query_session, texts), FEW) for _ in range(2))

    def _texts(self, runner: Any, texts: list[str]) -> np.ndarray:
        """The unit vectors of `texts`, in one run, or one run each when `alone`."""
        if self.alone and len(texts) > 1:
            return np.concatenate([self._run(runner, self.tokens([t])) for t in texts])
        return self._run(runner, self.tokens(texts))

    def _run(self, runner: Any, features: dict[str, np.ndarray]) -> np.ndarray:
        out = np.asarray(runner.run(None, {n: features[n] for n in self.inputs})[0],
                         dtype=np.float32)
        vectors = pool(out, features["attention_mask"], self.pooling)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.maximum(norms, 1e-12)

    def one(self, text: str) -> np.ndarray:
        """The unit vector of the query `text` (float32, shape (d,))."""
        return self._queries([self.query_prefix + text])[0]

    def few(self, texts: Sequence[str]) -> np.ndarray:
        """The unit vectors of a few stored `texts` ((n, d) float32) on the query session,
        in one run with those of concurrent writes."""
        return self._writes([self.passage_prefix + t for t in texts])

    def many(self, texts: Sequence[str], batch_size: int) -> np.ndarray:
        """The unit vectors of stored `texts` ((n, d) float32), in their order."""
        with self._lock:
            if self._batch_session is None:
                self._batch_session = session(self.path, BATCH_THREADS)
        texts = [self.passage_prefix + t for t in texts]
        if self.alone:
            return self._texts(self._batch_session, texts)
        encoded = self.tokens.encode(texts)  # once: sorted by length, then padded
        order = np.argsort([len(e.ids) for e in encoded], kind="stable")
        out: np.ndarray | None = None
        for start in range(0, len(texts), batch_size):
            rows = order[start:start + batch_size]
            vectors = self._run(self._batch_session,
                                self.tokens.padded([encoded[i] for i in rows]))
            if out is None:
                out = np.empty((len(texts), vectors.shape[1]), dtype=np.float32)
            out[rows] = vectors
        assert out is not None, "many() needs at least one text"
        return out


def pool(out: np.ndarray, mask: np.ndarray, pooling: str) -> np.ndarray:
    """One vector a text ((n, d)) from a model's output: as it is ("export", already
    (n, d)), the mean of the last hidden states ((n, tokens, d)) over the text's tokens
    ("mean"), or the first token's ("cls")."""
    if pooling == "export":
        return out
    if pooling == "cls":
        return out[:, 0]
    weights = mask[..., None].astype(np.float32)
    return (out * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)


def files(cache: Path, model_path: str) -> tuple[Path, Path]:
    """Where the export of the model at `model_path` lives in `cache`: the ONNX file and
    the tokenizer file."""
    stem = f"{Path(model_path).name}-{export_key(model_path, torch_version())}"
    return cache / f"{stem}.onnx", cache / f"{stem}.tokenizer.json"


def torch_version() -> str:
    """The installed torch's version, read from its metadata: importing torch to ask would
    cost the seconds this module saves."""
    try:
        return metadata.version("torch")
    except metadata.PackageNotFoundError:
        return "none"


def ready(model_path: str, cache: Path) -> OnnxModel | None:
    """The model's export, if one is in `cache` and intact; None when it must be made (a
    damaged one is deleted, with a warning). Imports no model framework."""
    try:
        import onnxruntime  # noqa: F401
        import tokenizers  # noqa: F401
    except ImportError:
        return None
    target, tokenizer = files(cache, model_path)
    if not (target.is_file() and tokenizer.is_file()):
        return None
    # Hash the files while ONNX Runtime builds the session: both take a core for ~0.1 s.
    digests: list[str] = []
    hashing = threading.Thread(target=lambda: digests.append(_digests(target, tokenizer)))
    hashing.start()
    try:
        model = OnnxModel(target, Tokens(tokenizer))
    except Exception as e:  # a file ONNX Runtime cannot read: make it again
        hashing.join()
        log.warning("graphmem: the exported model %s does not load (%s); exporting it again",
                    target, str(e).splitlines()[0][:200] if str(e) else type(e).__name__)
        remove(target)
        return None
    hashing.join()
    if not _intact(target, digests[0] if digests else None):
        return None
    checksum(target).touch()  # in use: not stale (`prune`)
    return model


def _digests(target: Path, tokenizer: Path) -> str:
    return f"{digest(target)}\n{digest(tokenizer)}\n"


def _intact(target: Path, found: str | None) -> bool:
    """Whether an export still has the bytes it was checked with; a damaged or unchecked
    one is deleted, with a warning. A bit flipped on disk leaves a valid model that embeds
    wrongly, which no load error would show."""
    try:
        kept = checksum(target).read_text()
    except OSError:
        kept = None
    if kept is not None and kept == found:
        return True
    log.warning("graphmem: the exported query model %s %s; exporting it again", target,
                "no longer matches its checksum (damaged on disk)" if kept
                else "has no checksum")
    remove(target)
    return False


def seal(target: Path, tokenizer: Path) -> None:
    """Record the checksum of a checked export (it counts as intact from now on)."""
    write_whole(checksum(target), _digests(target, tokenizer))


def remove(target: Path) -> None:
    """Delete an export: its model, tokenizer and checksum."""
    for path in (target, tokenizer_of(target), checksum(target)):
        path.unlink(missing_ok=True)


def tokenizer_of(target: Path) -> Path:
    """The tokenizer file saved with the export `target`."""
    return target.with_name(target.name.removesuffix(".onnx") + ".tokenizer.json")


def export_key(model_path: str, torch_version: str) -> str:
    """What names a model's export: the torch version, and each file of the model's folder
    by name, size and the bytes at its two ends; not where the folder is or when it was
    installed, so every virtual environment with the same model and torch shares one
    export (a model that is not a folder is known by its path)."""
    folder = Path(model_path)
    found = sorted(p for p in folder.glob("*") if p.is_file()) if folder.is_dir() else []
    parts = [torch_version, *(f"{p.name}:{p.stat().st_size}:{_ends(p)}" for p in found)]
    if not found:
        parts.append(str(folder.resolve()))
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def _ends(path: Path, size: int = 65_536) -> str:
    """The SHA-256 of a file's first and last `size` bytes: a changed model file changes
    there (headers, the last tensors), and reading 90 MB at every start would not pay."""
    with path.open("rb") as f:
        head = f.read(size)
        f.seek(max(0, path.stat().st_size - size))
        return hashlib.sha256(head + f.read(size)).hexdigest()


#: An export of a model that no process has loaded for this many days (another torch
#: version's, say) is deleted when an export of that model is made.
STALE_DAYS = 7


def prune(cache: Path, model: str, *, now: float | None = None) -> list[Path]:
    """Delete the exports of `model` in `cache` that no process loaded for STALE_DAYS
    (their checksum is touched at each load), and files an export killed midway left;
    returns what it deleted."""
    oldest = (time.time() if now is None else now) - STALE_DAYS * 86_400
    gone = []
    for path in [*cache.glob(f"{model}-*.onnx"), *cache.glob("*.part")]:
        seen = checksum(path) if checksum(path).is_file() else path
        try:
            if seen.stat().st_mtime < oldest:
                remove(path)
                gone.append(path)
        except OSError:
            continue  # another process pruned it first
    return gone


def checksum(path: Path) -> Path:
    """Where the SHA-256s of an export are kept: beside it."""
    return path.with_name(path.name + ".sha256")


def digest(path: Path) -> str:
    """The SHA-256 of a file's bytes, in hex."""
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def write_whole(path: Path, text: str) -> None:
    """Write a small file whole or not at all (aside, then renamed)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".part")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def agreement(model: OnnxModel, reference: Callable[[str], np.ndarray],
              texts: Sequence[str]) -> float:
    """The lowest cosine between `model`'s vectors of `texts` (one by one and as a batch)
    and `reference`'s."""
    batch = model.many(texts, batch_size=len(texts))
    return min(min(float(model.one(t) @ reference(t)), float(v @ reference(t)))
               for t, v in zip(texts, batch, strict=True))
