// admin/scope_index_state — where a scope stands with its own indexes: memories written,
// its label and indexes (null until made), and how many of its memories it holds and
// how many carry the label.
// Params: $scope.
// Returns: written, label, vector_index, text_index, memories, labelled — no row
//          without a Scope node.
MATCH (s:Scope {name: $scope})
RETURN s.written AS written, s.label AS label, s.vector_index AS vector_index,
       s.text_index AS text_index,
       COUNT { (m:Memory {scope: $scope}) } AS memories,
       COUNT { (m:Memory {scope: $scope}) WHERE s.label IN labels(m) } AS labelled
