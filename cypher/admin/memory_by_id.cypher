// admin/memory_by_id — one memory's stored properties, for inspection and tests.
// Params: $id (string).
// Returns: memory (all properties but the embedding, plus embedding_size), or no row.
MATCH (m:Memory {id: $id})
RETURN m {.*, embedding: null, embedding_size: size(m.embedding)} AS memory
