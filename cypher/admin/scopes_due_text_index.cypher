// admin/scopes_due_text_index — the scopes that should have a full-text index of their
// own and have none ready: at least $at memories written (a smaller scope is scored by
// its own statistics in Python, graphmem/read/keywords.py).
// Params: $at (int).
// Returns: scope, written — the biggest first.
MATCH (s:Scope)
WHERE s.written >= $at AND s.text_index IS NULL
RETURN s.name AS scope, s.written AS written
ORDER BY written DESC, scope
