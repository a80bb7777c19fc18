// admin/scope_due — which indexes of their own the scopes just written ($scopes) should
// now get: the rules of admin/scopes_due_index and admin/scopes_due_text_index for these
// scopes alone, in one read (a write asks about its own scope, not every scope of the
// store: those two read every Scope node, twice a write).
// Params: $scopes (list of scope names), $at (int), $share (float).
// Returns: scope, vector (due a vector index of its own), text (due a full-text index).
MATCH (m:Memory)
WITH count(m) AS total
UNWIND $scopes AS name
MATCH (s:Scope {name: name})
WHERE s.written >= $at
WITH s, s.vector_index IS NULL AND s.written <= total * $share AS vector,
     s.text_index IS NULL AS text
WHERE vector OR text
RETURN s.name AS scope, vector, text
