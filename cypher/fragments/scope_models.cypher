// fragments/scope_models — `models`: the embedding model of $scope and of each of $layers,
// as {scope, model} (null for a scope that holds no memory; $legacy for one written before
// models were recorded). Recall returns it with its candidates, so the caller refuses a
// scope another model made without a read of its own, whatever another process did
// since (graphmem/graph/scope_model.py). Needs $scope, $layers, $legacy.
CALL () {
  UNWIND [$scope] + $layers AS name
  OPTIONAL MATCH (s:Scope {name: name})
  RETURN collect({scope: name, model: CASE WHEN EXISTS { MATCH (:Memory {scope: name}) }
                                           THEN coalesce(s.model, $legacy) END}) AS models
}
