// admin/prune_receipts — drop up to $limit receipts (admin/receipt) older than $kept_s
// seconds: long past any retry budget, no writer asks for them again. Idempotent; run
// now and then by writers (graphmem.graph.store.Store.commit).
// Params: $kept_s (int), $limit (int).
// Returns: deleted (int).
MATCH (r:Receipt)
WHERE r.at < datetime() - duration({seconds: $kept_s})
WITH r LIMIT $limit
DELETE r
RETURN count(*) AS deleted
