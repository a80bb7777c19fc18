// explore/recent — the live memories (active, not kept versions) of some scopes, newest
// first (by created_at, which a rewrite of the same id moves forward): what a framework
// store lists when it is searched without a query.
// Params: $scopes (list of string), $offset (int), $limit (int).
// Returns: memory (properties without the embedding), sessions, entities, supersedes —
//          as admin/find_memories.
UNWIND $scopes AS scope
MATCH (m:Memory {scope: scope})
WHERE m.lifecycle = 'active' AND m.version_of IS NULL
WITH m
ORDER BY m.created_at DESC, m.scope, m.id
SKIP $offset
LIMIT $limit
RETURN m {.*, embedding: null} AS memory,
       [(m)-[:IN_SESSION]->(s:Session) | s.name] AS sessions,
       [(m)-[:MENTIONS]->(e:Entity) | coalesce(e.ref, e.key)] AS entities,
       [(m)-[:SUPERSEDES]->(old:Memory) | old.id] AS supersedes
