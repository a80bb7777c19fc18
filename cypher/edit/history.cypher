// edit/history — a memory's chain: what supersedes it, itself, and what it supersedes
// (its own earlier versions and the memories it replaced), newest first.
// Params: $id, $scope.
// Returns: memory (properties without the embedding), relation ("newer", "this",
//          "older"), depth — no row if the memory is missing from the scope.
MATCH (m:Memory {id: $id, scope: $scope})
  USING INDEX SEEK m:Memory(scope, id)
CALL (m) {
  MATCH p = (n:Memory)-[:SUPERSEDES*1..50]->(m)
  RETURN n AS x, 'newer' AS relation, -length(p) AS depth
  UNION
  RETURN m AS x, 'this' AS relation, 0 AS depth
  UNION
  MATCH p = (m)-[:SUPERSEDES*1..50]->(o:Memory)
  RETURN o AS x, 'older' AS relation, length(p) AS depth
}
RETURN x {.*, embedding: null, context_embedding: null} AS memory, relation, depth
ORDER BY depth
