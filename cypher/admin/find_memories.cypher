// admin/find_memories — memories of one scope by id, or by one metadata value
// (e.g. a LoCoMo turn by its dia_id), with their sessions and entities.
// Params: $scope (string), $ids (list of string, or null for any), $key (a `meta.<name>`
//         property, or null), $values (the value in the forms it may be stored in),
//         $limit (int).
// Returns: memory (properties without the embedding), sessions, entities — oldest first.
MATCH (m:Memory)
WHERE m.scope = $scope
  AND ($ids IS NULL OR m.id IN $ids)
  AND ($key IS NULL OR m[$key] IN $values)
RETURN m {.*, embedding: null, context_embedding: null} AS memory,
       [(m)-[:IN_SESSION]->(s:Session) | s.name] AS sessions,
       [(m)-[:MENTIONS]->(e:Entity) | coalesce(e.ref, e.key)] AS entities,
       [(m)-[:SUPERSEDES]->(old:Memory) | old.id] AS supersedes
ORDER BY m.created_at, m.id
LIMIT $limit
