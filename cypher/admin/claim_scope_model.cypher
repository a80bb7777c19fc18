// admin/claim_scope_model — record the embedding model of a scope that holds no memory (its
// first write; a scope emptied by forgets is anyone's again), and return the scope's
// model: the one given, or the one its memories were made with.
// Params: $scope, $model.
// Returns: model.
MERGE (s:Scope {name: $scope})
SET s.model = CASE WHEN EXISTS { MATCH (:Memory {scope: $scope}) }
                   THEN coalesce(s.model, $model) ELSE $model END
RETURN s.model AS model
