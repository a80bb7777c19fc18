// admin/scope_text_index_ready — the last step of a scope's own full-text index: every
// memory has the label and the index is ONLINE, so recall may ask it.
// Params: $scope, $index.
// Returns: scope.
MATCH (s:Scope {name: $scope})
SET s.text_index = $index
RETURN s.name AS scope
