// runs/undo_entities — after runs/undo_memories: the entities an undone run's memories
// named get their degrees counted again, and those no memory names any more go.
// Params: $run, $scope.
// Returns: settled.
MATCH (e:Entity {scope: $scope})
WHERE e.undo = $run
CALL (e) {
  WITH e, {{degree}} AS degree, {{public_degree}} AS public_degree
  SET e.degree = degree, e.public_degree = public_degree
  REMOVE e.undo
  WITH e WHERE degree = 0
  DETACH DELETE e
} IN TRANSACTIONS OF 1000 ROWS
RETURN count(*) AS settled
