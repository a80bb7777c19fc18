// admin/embedded_texts — every memory of a scope that holds a vector, with the text it was
// made from and its context (`reembed` makes both vectors again with another model; cold
// memories hold none and are embedded by the model of the recall that brings them back).
// Params: $scope.
// Returns: id, text, context (null for a turn without one) — one row per memory with an
//          embedding.
MATCH (m:Memory {scope: $scope})
WHERE m.embedding IS NOT NULL
RETURN m.id AS id, m.text AS text, m.context AS context
