// admin/drop_vector_index — drop the memories' vector index, so that
// `admin/filtered_vector_index` can make it again with filter properties (an index's
// properties cannot change in place). Embeddings stay on the memories.
// Params: none.
DROP INDEX vector_index_Memory_embedding IF EXISTS
