// migrations/012_scope_words — the scopes' own full-text indexes of earlier versions,
// whose words were not stemmed: each scope stops naming its own, so recall reads the
// shared index until `GraphMem.init` (which runs the migrations) builds it again stemmed
// (graph/scope_indexes.py: a scope names an index only once it is online).
// Params: none.
// Returns: index — the name of each index no scope names any more, to drop.
MATCH (s:Scope)
WHERE s.text_index IS NOT NULL
WITH s, s.text_index AS index
SET s.text_index = null
RETURN index
