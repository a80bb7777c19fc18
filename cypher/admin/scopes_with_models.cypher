// admin/scopes_with_models — every scope that holds a memory, and the model recorded for
// its vectors (null: written before graphmem recorded models).
// Params: none.
// Returns: scope, model — one row per scope.
MATCH (s:Scope)
WHERE EXISTS { MATCH (:Memory {scope: s.name}) }
RETURN s.name AS scope, s.model AS model
ORDER BY scope
