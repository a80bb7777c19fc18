"""Fetched embedding models (graphmem.base.models, embed_fetch) and a scope's model: a jar from
a Maven repository checked against its SHA-256 and fetched once, offline after; a damaged
file refused; the real e5-small-v2 (int8) embeds queries and stored texts with their own
prefixes; and a scope written by one model refused to a process of another, also to a
long-lived one after another process moved the scope, and to a write whose scope changed
model while it embedded."""

from __future__ import annotations

import hashlib
import json
import shutil
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from graphmem.api import GraphMem
from graphmem.base import models
from graphmem.base.errors import ConfigError, ServerError
from graphmem.base.settings import Settings
from graphmem.embedding import chosen, embedders, fetch


def _artifact(name: str, data: bytes) -> models.Artifact:
    return models.Artifact(name, hashlib.sha256(data).hexdigest(), len(data))


def _repo_with(tmp_path: Path, onnx: bytes, tokenizer: bytes) -> tuple[str, models.Model]:
    """A Maven repository folder holding one model jar made here, and its registry entry."""
    artifact = "langchain4j-embeddings-test-model"
    folder = tmp_path / "repo" / models.GROUP.replace(".", "/") / artifact / models.VERSION
    folder.mkdir(parents=True)
    jar = folder / f"{artifact}-{models.VERSION}.jar"
    with zipfile.ZipFile(jar, "w") as z:
        z.writestr("test-model.onnx", onnx)
        z.writestr("test-model-tokenizer.json", tokenizer)
        z.writestr("README", "made by the test")
    spec = replace(models.E5_SMALL_V2_Q, name="test-model",
                   jar=_artifact(artifact, jar.read_bytes()),
                   onnx=_artifact("test-model.onnx", onnx),
                   tokenizer=_artifact("test-model-tokenizer.json", tokenizer))
    return (tmp_path / "repo").as_uri(), spec


def test_a_model_jar_is_fetched_once_checked_and_offline_after(tmp_path: Path) -> None:
    repo, spec = _repo_with(tmp_path, b"\x08\x07onnx-bytes" * 100, b'{"model": "wordpiece"}')
    cache = tmp_path / "cache"
    said: list[str] = []
    onnx, tokenizer = fetch.ensure(spec, cache, repo=repo, say=said.append)
    assert said and "test-model" in said[0]
    assert onnx.read_bytes() == b"\x08\x07onnx-bytes" * 100
    assert fetch.intact(onnx, spec.onnx) and fetch.intact(tokenizer, spec.tokenizer)
    assert sorted(p.name for p in onnx.parent.iterdir()) == sorted([onnx.name, tokenizer.name])
    shutil.rmtree(tmp_path / "repo")  # offline from now on
    said.clear()
    assert fetch.ensure(spec, cache, repo=repo, say=said.append) == (onnx, tokenizer)
    assert said == []


def test_a_fetch_killed_mid_way_leaves_no_partial_file_behind(tmp_path: Path) -> None:
    import subprocess
    import sys

    repo, spec = _repo_with(tmp_path, b"model" * 50, b"{}")
    cache = tmp_path / "cache"
    where = fetch.folder(spec, cache)
    for folder in (where, where / "jar"):  # as a process killed while it copied leaves it
        folder.mkdir(parents=True, exist_ok=True)
        killed = subprocess.run([sys.executable, "-c", (
            "import os, sys; from pathlib import Path; from graphmem.graph import jars; "
            "jars.place(Path(sys.argv[1]), lambda tmp: (tmp.write_bytes(b'x' * 4096), "
            "os._exit(9)))"), str(folder / spec.onnx.name)], check=False)
        assert killed.returncode == 9
    assert len(list(where.rglob("*.part"))) == 2
    onnx, tokenizer = fetch.ensure(spec, cache, repo=repo)
    assert not list(where.rglob("*.part"))
    assert sorted(p.name for p in where.iterdir()) == sorted([onnx.name, tokenizer.name])


def test_a_jar_or_file_that_does_not_match_its_hash_is_refused(tmp_path: Path) -> None:
    repo, spec = _repo_with(tmp_path, b"model" * 50, b"{}")
    forged = replace(spec, jar=replace(spec.jar, sha256="0" * 64))
    with pytest.raises(ServerError, match="SHA-256"):
        fetch.ensure(forged, tmp_path / "a", repo=repo)
    inside = replace(spec, onnx=replace(spec.onnx, sha256="0" * 64))
    with pytest.raises(ConfigError, match="SHA-256"):
        fetch.ensure(inside, tmp_path / "b", repo=repo)
    assert not fetch.present(inside, tmp_path / "b")


def test_e5_embeds_queries_and_stored_texts_with_their_own_prefixes(
        neo4j_settings: Settings) -> None:
    e5 = chosen.from_settings(neo4j_settings.model_copy(update={
        "embedding_model": "e5-small-v2-q"}))
    assert isinstance(e5, embedders.FetchedEmbedder) and e5.dimensions == 384
    e5.warm()
    model = e5._onnx_model()
    assert model is not None and model.pooling == "mean"
    text = "Caroline works at the animal shelter downtown"
    as_query, as_stored = e5.embed_query(text), e5.embed([text])[0]
    assert abs(float(np.linalg.norm(as_query)) - 1) < 1e-5
    assert float(as_query @ as_stored) < 0.999  # "query: " and "passage: " differ
    few = e5.embed([text, "Melanie paints sunsets"])
    many = e5.embed([text, "Melanie paints sunsets"] * 40)  # the batch session
    assert np.allclose(few[0], as_stored, atol=1e-5) and np.allclose(many[0], few[0],
                                                                       atol=1e-4)
    question = e5.embed_query("Where does Caroline work?")
    assert float(question @ few[0]) > float(question @ few[1])
    damaged, tokenizer = fetch.files(models.E5_SMALL_V2_Q, e5.cache)
    saved = damaged.read_bytes()
    try:
        damaged.write_bytes(saved[:-1] + bytes([saved[-1] ^ 1]))  # one bit flipped
        with pytest.raises(ConfigError, match="SHA-256"):
            fetch.load_fetched(models.E5_SMALL_V2_Q, damaged, tokenizer)
        assert not damaged.exists()
    finally:
        damaged.write_bytes(saved)


def _other(mem: GraphMem) -> str:
    """A model other than the one `mem` runs: MiniLM beside a fetched default, else e5."""
    own = models.find(mem.embedder.name)
    return models.MINILM.name if own is not models.MINILM else models.E5_SMALL_V2_Q.name


def test_a_scope_written_by_one_model_is_refused_to_another(mem: GraphMem) -> None:
    mem.remember("The backup job runs at two in the morning")
    scope, own, other_model = mem.settings.scope, mem.embedder.name, _other(mem)
    other = GraphMem(mem.settings.model_copy(update={"embedding_model": other_model}),
                     store=mem.ops.core.store)
    try:
        for act in (lambda: other.remember("The restore drill is every quarter"),
                    lambda: other.recall("when does the backup run?"),
                    lambda: other.recall("backup", scope=f"{scope}-new", layers=[scope])):
            with pytest.raises(ConfigError, match=own) as refused:
                act()
            assert "reembed" in refused.value.one_line()
        fresh = f"{scope}-other"
        other.remember("The restore drill is every quarter", scope=fresh)  # a new scope: its own
        assert other.recall("restore drill", scope=fresh, reinforce=False).hits
        with pytest.raises(ConfigError, match=other_model):
            mem.recall("restore drill", scope=fresh)
        other.drop_scope(fresh)
        assert mem.remember("The scope is written by the first model again after the drop",
                            scope=fresh).counts == {"created": 1}
        mem.drop_scope(fresh)
    finally:
        other.close()


def _stored(mem: GraphMem, scope: str) -> dict[str, np.ndarray]:
    store = mem.ops.core.store
    rows = store.driver.execute_query(
        "MATCH (m:Memory {scope: $scope}) WHERE m.embedding IS NOT NULL "
        "RETURN m.id AS id, m.embedding AS v", scope=scope, database_=store.database).records
    return {r["id"]: np.asarray(r["v"], dtype=np.float32) for r in rows}


def test_reembed_moves_a_scope_whole_even_when_killed_midway(mem: GraphMem,
                                                            shared_data: Path) -> None:
    import os
    import signal
    import subprocess
    import time

    from graphmem.bench.door import command

    turns = json.loads((shared_data / "locomo" / "conv-26.json").read_text())["session_1"]
    texts = [f"{t['speaker']}: {t['text']}" for t in turns]
    scope = mem.settings.scope
    mem.remember([{"text": t, "session": "s1"} for t in texts], source="import")
    before = _stored(mem, scope)
    own = {m.id: mem.embedder.embed([m.text])[0] for m in mem.recent(limit=1000)}
    other_model = _other(mem)
    other = GraphMem(mem.settings.model_copy(update={"embedding_model": other_model}),
                     store=mem.ops.core.store)
    try:
        other_of = {m.id: other.embedder.embed([m.text])[0] for m in mem.recent(limit=1000)}

        def whole() -> str:
            """Which model made every vector of the scope: never a mix."""
            now = _stored(mem, scope)
            assert set(now) == set(before)
            made = {("own" if float(v @ own[i]) > 0.999 else
                     "other" if float(v @ other_of[i]) > 0.999 else "neither")
                    for i, v in now.items()}
            assert len(made) == 1, made
            return made.pop()

        env = {**os.environ, "NEO4J_URI": mem.settings.neo4j_uri,
               "NEO4J_PASSWORD": mem.settings.neo4j_password.get_secret_value(),
               "GRAPHMEM_EMBEDDING_MODEL": other_model}
        for delay in (0.5, 1.5, 3.0):
            killed = subprocess.Popen([*command(), "reembed", "--scope", scope], env=env,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(delay)
            killed.send_signal(signal.SIGKILL)
            killed.wait(60)
            if whole() == "other":
                break
        assert whole() == "own" or scope_of_model(mem, scope) == other_model
        done = other.ops.reembed(scope)  # resumed: whatever the kill left, the scope moves whole
        assert whole() == "other" and scope_of_model(mem, scope) == other_model
        assert done[0].skipped or done[0].memories == len(before)
        assert other.ops.reembed(scope)[0].skipped  # again: nothing to do
        hits = other.recall("What did Caroline go to yesterday?", top_k=3, reinforce=False).hits
        assert any("support group" in h.text for h in hits)
        with pytest.raises(ConfigError, match=other_model):
            mem.recall("support group")
    finally:
        other.close()


def scope_of_model(mem: GraphMem, scope: str) -> str | None:
    from graphmem.graph import scope_model

    return scope_model.of(mem.ops.core.store, [scope])[scope]


@pytest.fixture
def elsewhere(mem: GraphMem) -> Iterator[tuple[GraphMem, str]]:
    """A GraphMem of another model with a store of its own: another process's view of the
    scope, sharing nothing this process keeps."""
    other_model = _other(mem)
    other = GraphMem(mem.settings.model_copy(update={"embedding_model": other_model}))
    try:
        yield other, other_model
    finally:
        other.close()


def test_a_long_lived_process_meets_a_scope_another_moved_to_another_model(
        mem: GraphMem, elsewhere: tuple[GraphMem, str]) -> None:
    other, other_model = elsewhere
    scope = mem.settings.scope
    mem.remember("The nightly export lands in the cold bucket")
    assert mem.recall("where does the export land?", reinforce=False).hits  # read and kept
    assert other.ops.reembed(scope)[0].memories == 1  # another process moves the scope
    for act in (lambda: mem.remember("The export is compressed with zstd"),
                lambda: mem.recall("where does the export land?"),
                lambda: mem.recall("export", scope=f"{scope}-new", layers=[scope])):
        with pytest.raises(ConfigError, match=other_model):
            act()
    assert other.ops.reembed(scope)[0].skipped  # nothing mixed, nothing to repair
    assert [m.text for m in other.recent()] == ["The nightly export lands in the cold bucket"]
    # Dropped and written anew by the other model: refused again, not trusted as before.
    other.drop_scope(scope)
    other.remember("The export moved to the archive bucket")
    with pytest.raises(ConfigError, match=other_model):
        mem.recall("where does the export land?")
    with pytest.raises(ConfigError, match=other_model):
        mem.remember("The export runs at midnight")
    assert scope_of_model(mem, scope) == other_model and mem.count() == 1


def _while_embedding(monkeypatch: pytest.MonkeyPatch, mem: GraphMem,
                     meanwhile: Callable[[], object]) -> None:
    """Run `meanwhile` once, as `mem` embeds its next write's texts: after any check made
    before embedding, before its transaction."""
    real = mem.embedder.embed

    def embed(texts: Sequence[str], advance: Callable[[int], None] | None = None) -> Any:
        monkeypatch.setattr(mem.embedder, "embed", real)
        meanwhile()
        return real(texts, advance)

    monkeypatch.setattr(mem.embedder, "embed", embed)


def test_a_write_meets_a_reembed_that_ran_while_it_embedded(
        mem: GraphMem, elsewhere: tuple[GraphMem, str], monkeypatch: pytest.MonkeyPatch) -> None:
    other, other_model = elsewhere
    scope = mem.settings.scope
    mem.remember("The deploy freeze starts on Friday")
    _while_embedding(monkeypatch, mem, lambda: other.ops.reembed(scope))
    with pytest.raises(ConfigError, match=other_model):
        mem.remember("The deploy freeze ends on Monday")
    assert scope_of_model(mem, scope) == other_model and mem.count() == 1


def test_two_first_writers_of_different_models_cannot_both_claim_a_scope(
        mem: GraphMem, elsewhere: tuple[GraphMem, str], monkeypatch: pytest.MonkeyPatch) -> None:
    other, other_model = elsewhere
    scope = mem.settings.scope
    _while_embedding(monkeypatch, mem, lambda: other.remember("The other model was first"))
    with pytest.raises(ConfigError, match=other_model):
        mem.remember("This model thought it was first")
    assert scope_of_model(mem, scope) == other_model
    assert [m.text for m in other.recent()] == ["The other model was first"]


def test_a_scope_records_an_endpoints_vectors_as_the_endpoints() -> None:
    from graphmem.embedding.remote import RemoteEmbedder

    # GRAPHMEM_EMBEDDING_MODEL left at its default names a local model; the endpoint's
    # vectors are not that model's.
    default = RemoteEmbedder("http://127.0.0.1:9/v1", models.DEFAULT.name)
    assert default.recorded == f"endpoint:{models.DEFAULT.name}" != models.DEFAULT.name
    assert RemoteEmbedder("http://127.0.0.1:9/v1", "text-embedding-3-small").recorded == \
        "text-embedding-3-small"
    assert embedders.Embedder(models.MINILM.name).recorded == models.MINILM.name


def test_a_bare_reembed_moves_the_configured_scope_alone(mem: GraphMem) -> None:
    import os
    import subprocess

    from graphmem.bench.door import command

    mem.remember("The quarterly audit is due in March")
    other_model = _other(mem)
    env = {**os.environ, "NEO4J_URI": mem.settings.neo4j_uri,
           "NEO4J_PASSWORD": mem.settings.neo4j_password.get_secret_value(),
           "GRAPHMEM_EMBEDDING_MODEL": other_model,
           "GRAPHMEM_SCOPE": f"{mem.settings.scope}-mine"}
    done = subprocess.run([*command(), "reembed", "--json"], env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert [r["scope"] for r in json.loads(done.stdout)] == [f"{mem.settings.scope}-mine"]
    assert scope_of_model(mem, mem.settings.scope) == models.find(mem.embedder.name).name
    both = subprocess.run([*command(), "reembed", "--scope", "x", "--all-scopes"], env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert both.returncode == 1 and "--all-scopes" in both.stderr


def test_a_cold_hit_brought_back_after_a_reembed_gets_no_vector_of_the_old_model(
        mem: GraphMem, elsewhere: tuple[GraphMem, str]) -> None:
    other, other_model = elsewhere
    scope, store = mem.settings.scope, mem.ops.core.store
    mem.remember([{"id": "kept", "text": "The staging database is refreshed every Sunday"},
                  {"id": "cold", "text": "The old wiki lived on a server called hermes"}])
    store.driver.execute_query(  # as a sweep leaves a memory nobody recalled for long
        "MATCH (m:Memory {scope: $scope, id: 'cold'}) SET m.tier = 'cold', m:Cold "
        "REMOVE m.embedding", scope=scope, database_=store.database)
    # Its reinforcement written when flushed, as a busy process's is, seconds later.
    with GraphMem(mem.settings, embedder=mem.embedder, store=store,
                  reinforce_every=3600) as later:
        hits = later.recall("hermes wiki server", mode="keyword").hits
        assert "cold" in [h.id for h in hits]
        other.ops.reembed(scope)  # meanwhile, another process moves the scope
        later.flush()  # the reinforcement, which brings the cold hit back hot
    rows = store.driver.execute_query(
        "MATCH (m:Memory {scope: $scope}) WHERE m.embedding IS NOT NULL "
        "RETURN m.text AS text, m.embedding AS v", scope=scope,
        database_=store.database).records
    made = other.embedder.embed([r["text"] for r in rows])
    assert all(float(made[i] @ np.asarray(r["v"], dtype=np.float32)) > 0.999
               for i, r in enumerate(rows)), "a vector of the old model in the moved scope"
    assert scope_of_model(mem, scope) == other_model
