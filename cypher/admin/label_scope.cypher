// admin/label_scope — give every memory of a scope that lacks it the scope's own-index
// label, in batches (auto-commit): the memories written before admin/scope_label.
// Params: $scope, $label (checked by graph.scope_indexes).
// Returns: labelled (int).
MATCH (m:Memory {scope: $scope})
WHERE NOT $label IN labels(m)
CALL (m) {
  SET m:$($label)
} IN TRANSACTIONS OF 5000 ROWS
RETURN count(*) AS labelled
