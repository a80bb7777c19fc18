// explore/strongest_associations — the heaviest links of a scope, by weight.
// For Browser:  :param scope => 'default'
// Params: $scope.
// Returns: a, r (ASSOCIATED), b, weight — at most 50.
MATCH (a:Memory {scope: $scope})-[r:ASSOCIATED]->(b:Memory)
RETURN a, r, b, r.weight AS weight
ORDER BY r.weight DESC, a.id, b.id
LIMIT 50
