// fragments/turn_context — a turn's context: the text of the turn before it and its own, so
// that recall can match it together with what it answers (the full-text index holds
// `context` beside `text`). Set on each written memory and on the turn after it, from
// the NEXT chain as it now stands (fragments/context_text); a memory with no turn before
// it has none.
// Reads $scope, $lists.placed (the memories just written).
UNWIND $lists.placed AS id
MATCH (m:Memory {id: id, scope: $scope})
  USING INDEX SEEK m:Memory(scope, id)
OPTIONAL MATCH (m)-[:NEXT]->(n)
UNWIND [m, n] AS x
WITH DISTINCT x WHERE x IS NOT NULL
OPTIONAL MATCH (p)-[:NEXT]->(x)
SET x.context = {{context_text}}
