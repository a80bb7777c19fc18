"""Query embeddings through ONNX Runtime: the same model and weights, exported once per
machine from the loaded sentence-transformers model and checked against it, answer one
40-token text in 7 ms on one thread where torch takes 7.7 on two, and leave the other core
to Neo4j (docs/decisions.md, "Query embeddings run on ONNX Runtime"). Batches (the write
path) stay on torch.

Nothing is downloaded: the export reads the weights already loaded. Anything that keeps
the export from working (no onnxruntime, an exporter error, vectors that differ from
torch's) leaves queries on torch, with one warning.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import logging
import os
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

log = logging.getLogger(__name__)

#: Texts an export must embed as torch does (cosine >= AGREEMENT) before it is used:
#: short, long enough to be truncated, and not English.
PROBES = ("which key-value store do we use?",
          "The deploy pipeline runs the integration tests against a real Neo4j server, " * 40,
          "Der Cache liegt in Redis; die Schlüssel beginnen mit user:")
AGREEMENT = 0.9999


#: One thread per query: a second one embeds faster (4.5 against 7 ms for 40 tokens), but
#: it spins after the run and slows the vector search that follows by more than it saved
#: (docs/decisions.md, "Query embeddings run on ONNX Runtime").
QUERY_THREADS = 1


class OnnxQueries:
    """One text in, its unit vector out, through an ONNX Runtime session."""

    def __init__(self, path: Path, tokenize: Callable[[list[str]], dict[str, Any]]) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = QUERY_THREADS
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # warnings on load would reach stderr
        self.session = ort.InferenceSession(str(path), options,
                                            providers=["CPUExecutionProvider"])
        self.inputs = [i.name for i in self.session.get_inputs()]
        self.tokenize = tokenize

    def __call__(self, text: str) -> np.ndarray:
        """The unit vector of `text` (float32, shape (d,))."""
        features = self.tokenize([text])
        feed = {name: np.asarray(features[name], dtype=np.int64) for name in self.inputs}
        vector = self.session.run(None, feed)[0][0].astype(np.float32)
        return vector / max(float(np.linalg.norm(vector)), 1e-12)


def load(model: SentenceTransformer, model_path: str, cache: Path,
         torch_one: Callable[[str], np.ndarray]) -> OnnxQueries | None:
    """The ONNX query path for `model`, exported into `cache` on first use and checked
    against `torch_one` (the torch query path); None, with a warning, when it cannot be."""
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        log.warning("graphmem: onnxruntime is not installed; queries are embedded by torch")
        return None
    tokenize = getattr(model, "preprocess", None) or model.tokenize  # renamed in v5

    def numpy_features(texts: list[str]) -> dict[str, Any]:
        return {k: v.numpy() for k, v in tokenize(texts).items() if hasattr(v, "numpy")}

    try:
        path = _exported(model, model_path, cache, numpy_features, torch_one)
        return OnnxQueries(path, numpy_features) if path else None
    except Exception as e:  # an exporter or runtime that cannot take this model
        log.warning("graphmem: queries are embedded by torch (ONNX export failed: %s)",
                    str(e).splitlines()[0][:200] if str(e) else type(e).__name__)
        return None


def _exported(model: SentenceTransformer, model_path: str, cache: Path,
              features: Callable[[list[str]], dict[str, Any]],
              torch_one: Callable[[str], np.ndarray]) -> Path | None:
    """The model's ONNX file in `cache`, exported and checked now if it is not there yet
    (None if it does not agree with torch). The name carries the model's files and the
    torch version (`export_key`), so a changed model is exported again; the file appears
    whole and checked (written aside, then renamed), its SHA-256 beside it, and one that
    no longer matches it is exported again."""
    import torch

    target = cache / f"{Path(model_path).name}-{export_key(model_path, torch.__version__)}.onnx"
    if target.is_file() and _intact(target):
        checksum(target).touch()  # in use: not stale (`prune`)
        return target
    cache.mkdir(parents=True, exist_ok=True)
    prune(cache, Path(model_path).name)
    sample = features([PROBES[0]])
    names = [n for n in ("input_ids", "attention_mask", "token_type_ids") if n in sample]
    if names[:2] != ["input_ids", "attention_mask"]:
        raise ValueError(f"the tokenizer gives {sorted(sample)}")

    class Sentence(torch.nn.Module):
        """The model's modules (transformer, pooling, …) from token ids to one vector."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                    token_type_ids: torch.Tensor | None = None) -> torch.Tensor:
            given = {"input_ids": input_ids, "attention_mask": attention_mask}
            if token_type_ids is not None:
                given["token_type_ids"] = token_type_ids
            out = self.model(given)["sentence_embedding"]
            return torch.nn.functional.normalize(out, dim=1)

    args = tuple(torch.from_numpy(sample[n]) for n in names)
    batch, tokens = torch.export.Dim("batch"), torch.export.Dim("tokens", max=4096)
    fd, tmp = tempfile.mkstemp(dir=cache, suffix=".onnx.part")
    os.close(fd)
    try:
        # The exporter reports its steps on stdout and stderr, which belong to graphmem's
        # results and diagnostics.
        with torch.no_grad(), warnings.catch_warnings(), \
                contextlib.redirect_stdout(io.StringIO()), _quiet("torch"):
            warnings.simplefilter("ignore")
            torch.onnx.export(Sentence().eval(), args, tmp, input_names=names,
                              output_names=["sentence_vector"], dynamo=True,
                              external_data=False,
                              dynamic_shapes={n: {0: batch, 1: tokens} for n in names})
        queries = OnnxQueries(Path(tmp), features)
        agreement = min(float(queries(p) @ torch_one(p)) for p in PROBES)
        if agreement < AGREEMENT:
            log.warning("graphmem: queries are embedded by torch (the ONNX export agrees "
                        "only to cosine %.6f)", agreement)
            return None
        _write(checksum(target), f"{digest(Path(tmp))}\n")
        os.replace(tmp, target)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return target


def export_key(model_path: str, torch_version: str) -> str:
    """What names a model's export: the torch version, and each file of the model's folder
    by name, size and the bytes at its two ends; not where the folder is or when it was
    installed, so every virtual environment with the same model and torch shares one
    export (a model that is not a folder is known by its path)."""
    folder = Path(model_path)
    files = sorted(p for p in folder.glob("*") if p.is_file()) if folder.is_dir() else []
    parts = [torch_version, *(f"{p.name}:{p.stat().st_size}:{_ends(p)}" for p in files)]
    if not files:
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
                path.unlink(missing_ok=True)
                checksum(path).unlink(missing_ok=True)
                gone.append(path)
        except OSError:
            continue  # another process pruned it first
    return gone


def checksum(path: Path) -> Path:
    """Where the SHA-256 of an export is kept: beside it."""
    return path.with_name(path.name + ".sha256")


def digest(path: Path) -> str:
    """The SHA-256 of a file's bytes, in hex."""
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def _intact(target: Path) -> bool:
    """Whether an export still has the bytes it was checked with; a damaged or unchecked
    one is deleted, with a warning, to be exported again. A bit flipped on disk leaves a
    valid model that embeds wrongly, which no load error would show."""
    try:
        kept = checksum(target).read_text().strip()
    except OSError:
        kept = None
    if kept is not None and kept == digest(target):
        return True
    log.warning("graphmem: the exported query model %s %s; exporting it again", target,
                "no longer matches its checksum (damaged on disk)" if kept
                else "has no checksum")
    target.unlink(missing_ok=True)
    return False


def _write(path: Path, text: str) -> None:
    """Write a small file whole or not at all (aside, then renamed)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".part")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


@contextlib.contextmanager
def _quiet(name: str) -> Iterator[None]:
    """Only errors from logger `name` and its children while the block runs."""
    logger = logging.getLogger(name)
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)
