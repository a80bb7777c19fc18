// fragments/unembedded_contexts — the contexts a write set or changed (fragments/turn_context:
// each written memory's and the next turn's) that have no vector yet, for the writer to
// embed in the same transaction (graphmem/write/contexts.py): returned by the statement
// that placed them, so a write asks no more of the server for them.
// Reads $scope, $lists.placed (the memories just placed).
// Returns: id, context — one row per turn whose context needs a vector.
UNWIND $lists.placed AS id
MATCH (m:Memory {id: id, scope: $scope})
  USING INDEX SEEK m:Memory(scope, id)
OPTIONAL MATCH (m)-[:NEXT]->(n)
UNWIND [m, n] AS x
WITH DISTINCT x
WHERE x IS NOT NULL AND x.context IS NOT NULL AND x.context_embedding IS NULL
  AND x.embedding IS NOT NULL
RETURN x.id AS id, x.context AS context
ORDER BY id
