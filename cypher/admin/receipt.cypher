// admin/receipt — the last statement of a write that must not count twice (an input's
// confirmations, recall's reinforcement, feedback, a hard forget): a receipt of key $key
// for scope $scope, in the same transaction. When the answer to the commit is lost with
// the connection, admin/receipt_landed tells whether it landed, so the write is not run
// again on top of itself (docs/decisions.md, "A server that went away is waited for").
// One node a receipt, kept for a time, not a count: however many writes land meanwhile,
// a writer that asks within the retry budget finds its own (admin/prune_receipts drops
// them long after). Nothing locks anything shared: feedback, which locks only its
// memory, queues behind no one.
// Params: $scope, $key.
// Returns: nothing.
CREATE (:Receipt {key: $key, scope: $scope, at: datetime()})
