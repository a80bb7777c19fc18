// admin/delete_scope — remove every memory of one scope and its relationships.
// Used by tests and benchmarks to leave nothing behind; not a user-facing forget
// (that one leaves tombstones). Batched so a large scope stays within memory.
// Params: $scope (string).
// Returns: deleted (int).
MATCH (m:Memory {scope: $scope})
CALL (m) {
  DETACH DELETE m
} IN TRANSACTIONS OF 5000 ROWS
RETURN count(*) AS deleted
