// explore/entity_memories — every memory of a scope that mentions an entity.
// For Browser:  :param key => 'name:caroline'   :param scope => 'default'
// Params: $key (Entity key), $scope.
// Returns: e, r (MENTIONS), m — newest first, at most 100.
MATCH (e:Entity {ref: $key, scope: $scope})<-[r:MENTIONS]-(m:Memory)
WHERE m.scope = $scope
RETURN e, r, m
ORDER BY m.created_at DESC
LIMIT 100
