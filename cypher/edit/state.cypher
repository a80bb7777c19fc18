// edit/state — what an edit must know first: each id's memory in $scope (tier and
// lifecycle), or the
// latest tombstone a hard forget left in $scope.
// Params: $ids (list of string), $scope.
// Returns: id, scope, tier, lifecycle, version_of (set on a kept version), tombstone
//          (map or null) — one row per id found.
UNWIND $ids AS id
OPTIONAL MATCH (m:Memory {id: id, scope: $scope})
  USING INDEX SEEK m:Memory(scope, id)
CALL (id) {
  OPTIONAL MATCH (t:Tombstone {id: id, scope: $scope})
  WITH t ORDER BY t.forgotten_at DESC
  RETURN collect(t)[0] AS t
}
WITH id, m, t WHERE m IS NOT NULL OR t IS NOT NULL
RETURN id, m.scope AS scope, m.tier AS tier, m.lifecycle AS lifecycle,
       m.version_of AS version_of, t {.*} AS tombstone
