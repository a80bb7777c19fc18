// admin/scope_vector_index — a vector index over the memories of one label (a scope's
// own), sized like the shared one. The procedure takes the label as a parameter, where
// CREATE VECTOR INDEX would need it written into the query.
// Params: $index, $label (both checked by graph.scope_indexes), $dimensions (int).
// Returns: nothing.
CALL db.index.vector.createNodeIndex($index, $label, 'embedding', $dimensions, 'cosine')
