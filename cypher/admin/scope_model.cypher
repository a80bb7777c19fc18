// admin/scope_model — which embedding model made each scope's vectors (its Scope node's
// `model`, set at the scope's first write), and whether the scope holds a memory (one
// written before graphmem recorded models has none: the model then was all-MiniLM-L6-v2).
// Params: $scopes (list of string).
// Returns: scope, model (string or null), written (boolean) — one row per scope.
UNWIND $scopes AS name
OPTIONAL MATCH (s:Scope {name: name})
RETURN name AS scope, s.model AS model,
       EXISTS { MATCH (m:Memory {scope: name}) } AS written
