// admin/export_scope — a scope's memories as pack records: their properties, session,
// what each supersedes and its manual links, oldest first (a session's turns of one time
// in their conversation's order, which an import gives them again). References point only at
// memories the same export holds, so a pack always imports whole; a manual link (stored
// once, undirected in meaning) goes with the later of its two memories, so it points
// back at a line already read.
// Params: $scope, $lifecycles (list), $versions (bool: also the kept earlier versions of
//         updated memories).
// Returns: memory (properties without the embedding), sessions, entities (always []),
//          supersedes (ids), links (list of {id, weight}).
MATCH (m:Memory)
WHERE m.scope = $scope AND m.lifecycle IN $lifecycles AND ($versions OR m.version_of IS NULL)
RETURN m {.*, embedding: null, context_embedding: null} AS memory,
       [(m)-[:IN_SESSION]->(s:Session) | s.name] AS sessions,
       [] AS entities,
       [(m)-[:SUPERSEDES]->(old)
        WHERE old.scope = $scope AND old.lifecycle IN $lifecycles
          AND ($versions OR old.version_of IS NULL) | old.id] AS supersedes,
       [(m)-[r:ASSOCIATED {kind: 'manual'}]-(o)
        WHERE o.scope = $scope AND o.lifecycle IN $lifecycles
          AND (o.created_at < m.created_at OR (o.created_at = m.created_at AND o.id < m.id))
          AND ($versions OR o.version_of IS NULL) | {id: o.id, weight: r.weight}] AS links
ORDER BY m.created_at, m.session, m.position, m.id
