// explore/links — the graph around some memories of a scope: each edge from one of them
// to a memory of the same scope, an entity or a session, strongest first (`GraphMem.links`;
// the quickstart notebook draws it).
// Params: $scope, $ids (memory ids).
// Returns: source, type, target (a memory id, an entity's name, a session id),
//          target_label, weight (ASSOCIATED's weight, else 1.0) — at most 500.
MATCH (m:Memory {scope: $scope})-[r:ASSOCIATED|MENTIONS|ABOUT|IN_SESSION|NEXT|SUPERSEDES|CONSOLIDATED_FROM]-(o)
WHERE m.id IN $ids AND (NOT o:Memory OR o.scope = $scope)
WITH m, r, o, CASE WHEN o:Memory THEN 'Memory' WHEN o:Entity THEN 'Entity' ELSE 'Session' END AS label
RETURN m.id AS source, type(r) AS type,
       CASE label WHEN 'Memory' THEN o.id WHEN 'Entity' THEN o.name ELSE o.id END AS target,
       label AS target_label, coalesce(r.weight, 1.0) AS weight
ORDER BY weight DESC, source, type, target
LIMIT 500
