// admin/scopes_due_index — the scopes that should have a vector index of their own and
// have none ready: at least $at memories written, and at most $share of all memories
// (a scope that is most of the store is most of the shared index's neighbours anyway).
// Params: $at (int), $share (float).
// Returns: scope, written — the biggest first.
MATCH (m:Memory)
WITH count(m) AS total
MATCH (s:Scope)
WHERE s.written >= $at AND s.vector_index IS NULL AND s.written <= total * $share
RETURN s.name AS scope, s.written AS written
ORDER BY written DESC, scope
