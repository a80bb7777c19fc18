// maintenance/consolidation_groups — episodic memories that belong together: active
// episodic memories of one scope, written before $before, that no consolidation has taken
// in yet, and that mention the same entity (not a hub: at most $hub_limit mentions) or
// carry the same tag (a tag on more than $hub_limit of them is a hub too). Private and
// public memories never share a group: a summary is as visible as what it sums up.
// Groups of at least $min_size, largest first; members by importance, then age.
// Params: $scope (string or null), $before (datetime), $hub_limit, $min_size,
//         $max_members, $max_groups.
// Returns: scope, visibility, key (the entity's key, or "tag:<tag>"), name (the entity or
//          tag), size,
//          members (list of {id, text, importance}).
CALL () {
  MATCH (e:Entity)
  WHERE $min_size <= coalesce(e.degree, 0) <= $hub_limit
  MATCH (e)<-[:MENTIONS]-(m:Memory)
  WHERE m.kind = 'episodic' AND m.lifecycle = 'active'
    AND ($scope IS NULL OR m.scope = $scope) AND m.created_at <= $before
    AND NOT EXISTS { MATCH (:Memory)-[:CONSOLIDATED_FROM]->(m) }
  RETURN 'entity' AS via, coalesce(e.ref, e.key) AS key, e.name AS name, m
  UNION
  MATCH (m:Memory)
  WHERE m.kind = 'episodic' AND m.lifecycle = 'active' AND size(coalesce(m.tags, [])) > 0
    AND ($scope IS NULL OR m.scope = $scope) AND m.created_at <= $before
    AND NOT EXISTS { MATCH (:Memory)-[:CONSOLIDATED_FROM]->(m) }
  UNWIND m.tags AS tag
  RETURN 'tag' AS via, 'tag:' + tag AS key, tag AS name, m
}
WITH via, key, name, m ORDER BY m.importance DESC, m.created_at, m.id
WITH via, key, name, m.scope AS scope, coalesce(m.visibility, 'public') AS visibility,
     collect(m {.id, .text, .importance}) AS members
WHERE $min_size <= size(members) AND (via = 'entity' OR size(members) <= $hub_limit)
RETURN scope, visibility, key, name, size(members) AS size,
       members[..$max_members] AS members
ORDER BY size DESC, key, visibility
LIMIT $max_groups
