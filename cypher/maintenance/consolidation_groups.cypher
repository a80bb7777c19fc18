// maintenance/consolidation_groups — episodic memories that belong together: active
// episodic memories of one scope, written before $before, that mention the same entity
// (not a hub: at most $hub_limit mentions) and that no consolidation has taken in yet.
// Groups of at least $min_size, largest first; members by importance, then age.
// Params: $scope (string or null), $before (datetime), $hub_limit, $min_size,
//         $max_members, $max_groups.
// Returns: scope, key, name (the entity), size, members (list of {id, text, importance}).
MATCH (e:Entity)
WHERE $min_size <= coalesce(e.degree, 0) <= $hub_limit
MATCH (e)<-[:MENTIONS]-(m:Memory)
WHERE m.kind = 'episodic' AND m.lifecycle = 'active' AND ($scope IS NULL OR m.scope = $scope)
  AND m.created_at <= $before
  AND NOT EXISTS { MATCH (:Memory)-[:CONSOLIDATED_FROM]->(m) }
WITH e, m ORDER BY m.importance DESC, m.created_at, m.id
WITH e, m.scope AS scope, collect(m {.id, .text, .importance}) AS members
WHERE size(members) >= $min_size
RETURN scope, e.key AS key, e.name AS name, size(members) AS size,
       members[..$max_members] AS members
ORDER BY size DESC, key
LIMIT $max_groups
