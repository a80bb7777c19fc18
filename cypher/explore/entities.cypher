// explore/entities — what a scope's memories name (files, people, places, titles…),
// those named by most memories first.
// Params: $scope, $limit (int).
// Returns: name, type, memories (how many memories mention it or are about it).
MATCH (e:Entity {scope: $scope})
WHERE e.degree > 0
RETURN e.name AS name, e.type AS type, e.degree AS memories
ORDER BY memories DESC, name
LIMIT $limit
