// admin/filtered_vector_index — on Neo4j 2026 (Cypher 25), the memories' vector index
// with the properties SEARCH may filter on inside the index (vector_neighbours@search):
// scope, visibility, lifecycle, kind and time. The same name, dimensions and similarity as
// the index neomodel declares (graphmem.graph.model), which then finds it in place; the name
// and the filter properties must match graphmem.graph.schema.VECTOR_INDEX and VECTOR_FILTERS.
// Params: $dimensions (int).
CYPHER 25
CREATE VECTOR INDEX vector_index_Memory_embedding IF NOT EXISTS
FOR (m:Memory) ON m.embedding
WITH [m.scope, m.lifecycle, m.visibility, m.kind, m.created_at]
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}
