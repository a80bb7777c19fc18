// migrations/011_receipts_by_key — drops the lists of a scope's latest receipts that
// admin/receipt kept before each receipt became a node of its own (:Receipt, kept for a
// time, not a count): a writer asks only for receipts written since it started.
// Params: none.
// Returns: nothing.
MATCH (r:Receipts)
DETACH DELETE r
