// admin/receipt — the last statement of a write that must not count twice (an input's
// confirmations, recall's reinforcement, feedback): key $key joins the latest $keep
// receipts on scope $scope's node, in the same transaction. When the answer to the
// commit is lost with the connection, admin/receipt_landed tells whether it landed, so
// the write is not run again on top of itself (docs/decisions.md, "A server that went
// away is waited for"). Bounded: no receipt outlives $keep newer ones of its scope.
// Params: $scope, $key, $keep (int).
// Returns: nothing.
MERGE (s:Scope {name: $scope})
SET s.receipts = [$key] + coalesce(s.receipts, [])[..$keep - 1]
