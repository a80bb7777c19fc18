// fragments/near_duplicates@search — fragments/near_duplicates on Neo4j 2026: the index
// itself keeps to the scope, kind and active memories (SEARCH with in-index filters), so
// other scopes never crowd a new text's nearest copies out of its $fetch; each is scored
// exactly (the index's scores are quantized).
UNWIND $lists.rows AS r
CALL (r) {
  MATCH (node:Memory)
    SEARCH node IN (VECTOR INDEX vector_index_Memory_embedding FOR r.embedding
      WHERE node.scope = $scope AND node.kind = r.kind AND node.lifecycle = 'active'
      LIMIT $fetch)
  RETURN node, vector.similarity.cosine(node.embedding, r.embedding) AS score
}
WITH r, node, score
WHERE score >= $min_score
OPTIONAL MATCH (node)-[:IN_SESSION]->(s:Session)
WITH r, node, score, collect(s.id) AS sessions
