// admin/scope_label — the first step of a scope's own vector index: its node, locked,
// names the label its memories carry; from this commit on, writers add it to every
// memory they write into the scope (fragments/scope_lock).
// Params: $scope, $label (checked by graph.scope_indexes).
// Returns: scope.
MERGE (s:Scope {name: $scope})
SET s.label = $label
WITH s
SET s.written = CASE WHEN s.written IS NULL THEN COUNT { (x:Memory {scope: $scope}) }
                     ELSE s.written END
RETURN s.name AS scope
