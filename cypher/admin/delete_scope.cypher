// admin/delete_scope — remove every memory, session, entity, sweep record, tombstone and
// receipt of one scope with their edges.
// Used by tests and benchmarks to leave nothing behind; not a user-facing forget
// (that one leaves tombstones). Batched so a large scope stays within memory.
// Params: $scope (string).
// Returns: deleted (int, memories).
MATCH (m:Memory {scope: $scope})
CALL (m) {
  DETACH DELETE m
} IN TRANSACTIONS OF 5000 ROWS
WITH count(*) AS deleted
OPTIONAL MATCH (s:Session {scope: $scope})
WITH deleted, collect(s) AS sessions
FOREACH (s IN sessions | DETACH DELETE s)
WITH deleted
OPTIONAL MATCH (x) WHERE (x:Sweep OR x:Tombstone OR x:Entity OR x:Receipt)
  AND x.scope = $scope
WITH deleted, collect(x) AS records
FOREACH (x IN records | DETACH DELETE x)
RETURN deleted
