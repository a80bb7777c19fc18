// fragments/vector_neighbours@search — the $index_fetch memories nearest to $vector that
// the caller may see, by Neo4j 2026's SEARCH with in-index filters (Cypher 25): its own
// scope, and a mounted layer's public memories (a filter holds no OR, so two searches),
// of the lifecycles, kinds and time asked (fragments/visible). The
// index's filter properties are declared by `admin/filtered_vector_index`; its name is
// written here because SEARCH takes no parameter for it. Node and score, as the 5.26
// fragment gives them.
CALL () {
  MATCH (node:Memory)
    SEARCH node IN (VECTOR INDEX vector_index_Memory_embedding FOR $vector
      WHERE node.scope = $scope AND node.lifecycle IN $lifecycles
        AND node.kind IN $kinds AND node.created_at >= $since
        AND node.created_at < $until
      LIMIT $index_fetch) SCORE AS score
  RETURN node, score
  UNION ALL
  // An empty scope list would leave the index nothing to find, searched in full.
  WITH 1 AS on WHERE size($layers) > 0
  MATCH (node:Memory)
    SEARCH node IN (VECTOR INDEX vector_index_Memory_embedding FOR $vector
      WHERE node.scope IN $layers AND node.visibility = 'public'
        AND node.lifecycle IN $lifecycles
        AND node.kind IN $kinds AND node.created_at >= $since
        AND node.created_at < $until
      LIMIT $index_fetch) SCORE AS score
  RETURN node, score
}
