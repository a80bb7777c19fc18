// explore/scopes_under — the scopes whose names start with $prefix and hold a live memory
// (active, not a kept version), sorted: the namespaces a framework store lists.
// Params: $prefix (string).
// Returns: scope.
MATCH (s:Scope)
WHERE s.name STARTS WITH $prefix
  AND EXISTS {
    MATCH (m:Memory {scope: s.name})
    WHERE m.lifecycle = 'active' AND m.version_of IS NULL
  }
RETURN s.name AS scope
ORDER BY scope
