// explore/recent — the live memories (active, not kept versions) of a scope and the public
// ones of its mounted layers (fragments/in_scope), newest first: by the metadata property
// $order when given (a framework store keeps its items' update times there, as ISO-8601
// text), else by when they were written.
// Params: $scope, $layers (list of string), $order (a `meta.<key>` property, or null),
//         $offset (int), $limit (int).
// Returns: memory (properties without the embedding), sessions, entities, supersedes —
//          as admin/find_memories.
UNWIND [$scope] + $layers AS scope
MATCH (n:Memory {scope: scope})
WHERE {{in_scope}} AND n.lifecycle = 'active' AND n.version_of IS NULL
WITH DISTINCT n AS m
ORDER BY CASE WHEN $order IS NULL THEN toString(m.created_at)
              ELSE coalesce(m[$order], toString(m.created_at)) END DESC, m.scope, m.id
SKIP $offset
LIMIT $limit
RETURN m {.*, embedding: null, context_embedding: null} AS memory,
       [(m)-[:IN_SESSION]->(s:Session) | s.name] AS sessions,
       [(m)-[:MENTIONS]->(e:Entity) | coalesce(e.ref, e.key)] AS entities,
       [(m)-[:SUPERSEDES]->(old:Memory) | old.id] AS supersedes
