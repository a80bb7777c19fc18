// recall/turns — the conversation neighbours of ranked memories (fragments/neighbours),
// for a recall without association (with it, recall/associate returns them itself).
// Params: $rows (list of {id, scope}), $scope, $layers, $lifecycles, $kinds, $filters,
//         $since, $until, $now, $decay, $temporal, $layer_factor.
// Returns: id, scope, prev, next — each neighbour null or {memory, retention, layer}.
UNWIND $rows AS r
MATCH (t:Memory {id: r.id, scope: r.scope})
  USING INDEX t:Memory(scope, id)
{{neighbours}}
RETURN r.id AS id, r.scope AS scope, prev, next
