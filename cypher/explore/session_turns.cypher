// explore/session_turns — the last $last turns of one session of a scope, in conversation
// order (oldest of them first): what an agent reads to pick a conversation up again. The
// live ones, or with $every archived and shadowed turns too (a framework's history,
// which holds every item it added until it removes it).
// Params: $scope, $session (the Session's id, "<scope>#<name>"), $last (int), $every.
// Returns: memory (properties without the embedding), sessions, entities, supersedes —
//          as admin/find_memories.
MATCH (m:Memory {session: $session})
WHERE m.scope = $scope AND m.position IS NOT NULL AND ($every OR m.lifecycle = 'active')
WITH m
ORDER BY m.position DESC
LIMIT $last
WITH m
ORDER BY m.position
RETURN m {.*, embedding: null, context_embedding: null} AS memory,
       [(m)-[:IN_SESSION]->(s:Session) | s.name] AS sessions,
       [(m)-[:MENTIONS]->(e:Entity) | coalesce(e.ref, e.key)] AS entities,
       [(m)-[:SUPERSEDES]->(old:Memory) | old.id] AS supersedes
