// admin/delete_scope_node — remove a scope's own node (before its memories go, so that
// recall stops asking its own indexes first); whether it has, or was getting, indexes of
// its own, for the caller to drop.
// Params: $scope.
// Returns: own (bool) — no row if the scope has no node.
MATCH (s:Scope {name: $scope})
WITH s, s.label IS NOT NULL AS own
DETACH DELETE s
RETURN own
