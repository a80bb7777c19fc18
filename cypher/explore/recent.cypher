// explore/recent — the live memories (active, not kept versions) of some scopes, newest
// first: by the metadata property $order when given (a framework store keeps its items'
// update times there, as ISO-8601 text), else by when they were written.
// Params: $scopes (list of string), $order (a `meta.<key>` property, or null),
//         $offset (int), $limit (int).
// Returns: memory (properties without the embedding), sessions, entities, supersedes —
//          as admin/find_memories.
UNWIND $scopes AS scope
MATCH (m:Memory {scope: scope})
WHERE m.lifecycle = 'active' AND m.version_of IS NULL
WITH m
ORDER BY CASE WHEN $order IS NULL THEN toString(m.created_at)
              ELSE coalesce(m[$order], toString(m.created_at)) END DESC, m.scope, m.id
SKIP $offset
LIMIT $limit
RETURN m {.*, embedding: null} AS memory,
       [(m)-[:IN_SESSION]->(s:Session) | s.name] AS sessions,
       [(m)-[:MENTIONS]->(e:Entity) | coalesce(e.ref, e.key)] AS entities,
       [(m)-[:SUPERSEDES]->(old:Memory) | old.id] AS supersedes
