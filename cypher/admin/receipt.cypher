// admin/receipt — the last statement of a write that must not count twice (an input's
// confirmations, recall's reinforcement, feedback): key $key joins the latest $keep
// receipts of scope $scope, in the same transaction. When the answer to the commit is
// lost with the connection, admin/receipt_landed tells whether it landed, so the write
// is not run again on top of itself (docs/decisions.md, "A server that went away is
// waited for"). The receipts are a node of their own, not the scope's (which the scope's
// writers lock first): feedback, which locks only its memory, does not wait for them.
// Bounded: no receipt outlives $keep newer ones of its scope.
// Params: $scope, $key, $keep (int).
// Returns: nothing.
MERGE (r:Receipts {scope: $scope})
SET r.keys = [$key] + coalesce(r.keys, [])[..$keep - 1]
