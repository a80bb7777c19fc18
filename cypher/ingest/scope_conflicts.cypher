// ingest/scope_conflicts — ids of a batch that already exist in another scope.
// An id is global; a batch may not move a memory across scopes (privacy), so the
// writer aborts the whole batch when this returns anything.
// Params: $ids (list of string), $scope (string).
// Returns: id, scope — one row per conflicting memory.
MATCH (m:Memory)
WHERE m.id IN $ids AND m.scope <> $scope
RETURN m.id AS id, m.scope AS scope
