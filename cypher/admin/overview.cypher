// admin/overview — the graph at a glance: memories per kind, scope, tier and lifecycle,
// links per kind, contributors (added_by) per scope, and hard-forget tombstones.
// Params: $scope (string or null: every scope).
// Returns: kinds, scopes, tiers, lifecycles, links (lists of {key, n}), contributors
//          (list of {scope, added_by, n}), tombstones (int).
CALL () {
  MATCH (m:Memory) WHERE $scope IS NULL OR m.scope = $scope
  WITH m.kind AS key, count(*) AS n ORDER BY key
  RETURN collect({key: key, n: n}) AS kinds
}
CALL () {
  MATCH (m:Memory) WHERE $scope IS NULL OR m.scope = $scope
  WITH m.scope AS key, count(*) AS n ORDER BY key
  RETURN collect({key: key, n: n}) AS scopes
}
CALL () {
  MATCH (m:Memory) WHERE $scope IS NULL OR m.scope = $scope
  WITH m.tier AS key, count(*) AS n ORDER BY key
  RETURN collect({key: key, n: n}) AS tiers
}
CALL () {
  MATCH (m:Memory) WHERE $scope IS NULL OR m.scope = $scope
  WITH m.lifecycle AS key, count(*) AS n ORDER BY key
  RETURN collect({key: key, n: n}) AS lifecycles
}
CALL () {
  MATCH (a:Memory)-[r:ASSOCIATED]->(:Memory) WHERE $scope IS NULL OR a.scope = $scope
  WITH r.kind AS key, count(*) AS n ORDER BY key
  RETURN collect({key: key, n: n}) AS links
}
CALL () {
  MATCH (m:Memory) WHERE $scope IS NULL OR m.scope = $scope
  WITH m.scope AS scope, coalesce(m.added_by, 'unknown') AS added_by, count(*) AS n
  ORDER BY scope, n DESC, added_by
  RETURN collect({scope: scope, added_by: added_by, n: n}) AS contributors
}
CALL () {
  OPTIONAL MATCH (t:Tombstone) WHERE $scope IS NULL OR t.scope = $scope
  RETURN count(t) AS tombstones
}
RETURN kinds, scopes, tiers, lifecycles, links, contributors, tombstones
