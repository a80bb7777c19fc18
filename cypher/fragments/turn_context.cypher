// fragments/turn_context — a turn's context: the text of the turn before it and its own, so
// that recall can match it together with what it answers (the full-text index holds
// `context` beside `text`; its vector, `context_embedding`, is made by the writer from
// this text: graphmem/write/contexts.py). Set on each written memory and on the turn after
// it, from the NEXT chain as it now stands (fragments/context_text); a memory with no
// turn before it has none. A context that changes loses its vector.
// Reads $scope, $lists.placed (the memories just written).
UNWIND $lists.placed AS id
MATCH (m:Memory {id: id, scope: $scope})
  USING INDEX SEEK m:Memory(scope, id)
OPTIONAL MATCH (m)-[:NEXT]->(n)
UNWIND [m, n] AS x
WITH DISTINCT x WHERE x IS NOT NULL
OPTIONAL MATCH (p)-[:NEXT]->(x)
WITH x, {{context_text}} AS context
SET x.context_embedding = CASE WHEN x.context = context THEN x.context_embedding END
SET x.context = context
