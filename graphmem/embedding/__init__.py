"""Embedding: the registry of models (`models`), fetching them from Maven Central
(`fetch`), running them on ONNX Runtime with no model framework (`runtime`), the one-time
export of a sentence-transformers model (`export`, the one step that needs torch), the
embedders recall and the write path call (`embedders`, `remote` for an endpoint), and
the one the settings name (`chosen`). Imports nothing itself, so the settings can read
the registry without loading a model."""
